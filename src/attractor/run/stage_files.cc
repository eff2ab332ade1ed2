#include "attractor/run/stage_files.h"

#include "attractor/run/posix_run_disk.h"
#include "attractor/run/write_behind.h"

namespace attractor {

void StageFiles::write(const std::string& path, std::string content) const {
  if (writer_) {
    writer_->write_file(path, std::move(content));
  } else {
    posix_run_disk().write_file(path, content);
  }
}

void StageFiles::flush() const {
  if (writer_) writer_->flush();
}

RunDisk& StageFiles::disk() const { return writer_ ? writer_->disk() : posix_run_disk(); }

}  // namespace attractor
