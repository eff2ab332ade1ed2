#pragma once
/// \file
/// Where the launch layer reads the pipeline file a command names: the real file system in
/// production (system_input_files), a counting or failing reader in tests. The reading and its
/// one-line messages are read_input_file's (input_file.h).

#include <string>

#include "attractor/base/input_file.h"

namespace attractor {

/// Reads files the user named, classifying what is wrong with them.
class InputFileReader {
 public:
  virtual ~InputFileReader() = default;
  /// The whole file at `path` under `rules`, as read_input_file.
  virtual InputFile read(const std::string& path, const InputFileRules& rules) = 0;
};

/// read_input_file on the real file system.
InputFileReader& system_input_files();

}  // namespace attractor
