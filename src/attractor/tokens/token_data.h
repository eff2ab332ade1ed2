#pragma once
/// \file
/// Where the token rank data comes from at run time. The build turns the pinned rank files into
/// lookup tables and links them into the binary (`embedded_token_data.cc`, bpe_table_blob.h), so
/// a copied or installed binary needs nothing beside it. Only a build made without them (before
/// `make deps`) reads rank files beside the executable: build trees copy them to
/// `<build>/data/`; installs put them in `<prefix>/share/attractor/`.

#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

namespace attractor {

/// The table blob of `encoding` (e.g. `o200k_base`) built into the binary, aligned to 64 bytes;
/// nullopt when the build did not have its rank file.
std::optional<std::string_view> embedded_token_tables(std::string_view encoding);

/// Directory of the running executable (from /proc/self/exe); empty if it cannot be read.
std::filesystem::path executable_directory();

/// Searched in order: `<exe_dir>/data`, `<exe_dir>/../share/attractor`.
std::vector<std::filesystem::path> token_data_directories();

/// The first existing `<dir>/<file_name>` among `token_data_directories()`. Throws
/// TokenDataError listing every path tried when none exists.
std::filesystem::path find_token_data_file(std::string_view file_name);

}  // namespace attractor
