#pragma once
/// \file
/// Where the token rank files are found at run time: beside the executable, without any
/// environment variable. Build trees copy them to `<build>/data/`; installs put them in
/// `<prefix>/share/attractor/`.

#include <filesystem>
#include <string_view>
#include <vector>

namespace attractor {

/// Directory of the running executable (from /proc/self/exe); empty if it cannot be read.
std::filesystem::path executable_directory();

/// Searched in order: `<exe_dir>/data`, `<exe_dir>/../share/attractor`.
std::vector<std::filesystem::path> token_data_directories();

/// The first existing `<dir>/<file_name>` among `token_data_directories()`. Throws
/// TokenDataError listing every path tried when none exists.
std::filesystem::path find_token_data_file(std::string_view file_name);

}  // namespace attractor
