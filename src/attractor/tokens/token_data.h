#pragma once
/// \file
/// Where the token rank data comes from at run time. The build links the pinned rank files into the
/// binary (`embedded_token_data.cc`), so a copied or installed binary needs nothing beside it.
/// Only a build made without them (before `make deps`) looks for files beside the executable:
/// build trees copy them to `<build>/data/`; installs put them in `<prefix>/share/attractor/`.

#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

namespace attractor {

/// The rank file `file_name` (e.g. `o200k_base.tiktoken`) as built into the binary; nullopt when
/// the build did not have it.
std::optional<std::string_view> embedded_token_data(std::string_view file_name);

/// Directory of the running executable (from /proc/self/exe); empty if it cannot be read.
std::filesystem::path executable_directory();

/// Searched in order: `<exe_dir>/data`, `<exe_dir>/../share/attractor`.
std::vector<std::filesystem::path> token_data_directories();

/// The first existing `<dir>/<file_name>` among `token_data_directories()`. Throws
/// TokenDataError listing every path tried when none exists.
std::filesystem::path find_token_data_file(std::string_view file_name);

}  // namespace attractor
