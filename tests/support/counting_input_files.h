#pragma once
/// \file
/// An InputFileReader that reads the real files and counts the reads per path: what a command
/// reads of the files the user named (the pipeline file).

#include <map>
#include <mutex>
#include <string>

#include "attractor/base/input_file_reader.h"

namespace attractor::testing {

class CountingInputFiles : public InputFileReader {
 public:
  InputFile read(const std::string& path, const InputFileRules& rules) override {
    {
      std::lock_guard lock(mutex_);
      ++reads_[path];
    }
    return system_input_files().read(path, rules);
  }
  /// Every read so far, by path as given.
  std::map<std::string, int> reads() const {
    std::lock_guard lock(mutex_);
    return reads_;
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::string, int> reads_;
};

}  // namespace attractor::testing
