#include "attractor/base/input_file_reader.h"

namespace attractor {

namespace {

class SystemInputFiles : public InputFileReader {
 public:
  InputFile read(const std::string& path, const InputFileRules& rules) override { return read_input_file(path, rules); }
};

}  // namespace

InputFileReader& system_input_files() {
  static SystemInputFiles files;
  return files;
}

}  // namespace attractor
