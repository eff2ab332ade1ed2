#pragma once
/// \file
/// Runs the built `attractor` binary for end-to-end tests and captures its output.

#include <string>
#include <vector>

namespace attractor::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;  ///< stdout
  std::string err;  ///< stderr
};

/// Runs ATTRACTOR_BINARY_PATH with `args` (cwd = repo root), stdin from `input`.
CommandResult run_attractor(const std::vector<std::string>& args, const std::string& input = "");
/// Runs the program at path `argv[0]` the same way.
CommandResult run_command(const std::vector<std::string>& argv, const std::string& input = "");

/// Runs ATTRACTOR_BINARY_PATH like run_attractor, but without the capabilities that let root
/// read any file (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, dropped from the bounding set before
/// exec), so that a `chmod 000` file is unreadable to it even when the tests run as root.
CommandResult run_attractor_unprivileged(const std::vector<std::string>& args, const std::string& input = "");
/// Runs `argv` the same way (e.g. `cat FILE` to learn whether FILE is readable to such a process).
CommandResult run_command_unprivileged(const std::vector<std::string>& argv, const std::string& input = "");

/// A fresh, empty temporary directory unique to the calling test.
std::string make_temp_dir();

}  // namespace attractor::testing
