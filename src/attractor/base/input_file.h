#pragma once
/// \file
/// Reading a file the user named on the command line, with the problem classified so that every
/// command answers a bad path with the same one-line message (docs/decisions.md, "Bad input
/// files"). The message starts with the path, adds `:LINE:COL` for a bad byte, and never contains
/// a raw control byte:
///
///     PATH: no such file
///     PATH: is a directory (expected a .dot file)
///     PATH: cannot read: Permission denied
///     PATH: file is empty (expected a .dot file)
///     PATH:2:4: binary file: NUL byte (expected a .dot file)
///     PATH:2:13: binary file: invalid UTF-8 byte 0xff (expected a .dot file)
///     PATH: file is 70000000 bytes, more than the limit of 67108864 bytes
///     PATH: not a regular file (a FIFO; expected a .dot file)
///
/// Commands prefix it with `attractor <command>: ` and exit 2 (a bad input file is a usage error).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace attractor {

/// What a command accepts in a file, and what to call it in messages.
struct InputFileRules {
  std::string_view expected = "a file";  ///< e.g. "a .dot file", "a JSON file"
  bool allow_empty = false;              ///< an empty file is valid input (`tokens`)
  bool allow_binary = false;             ///< NUL bytes and invalid UTF-8 are valid input (`tokens`)
  /// Read at most this many bytes (a header check of a large file); the rest is not read.
  std::size_t read_limit = SIZE_MAX;
  /// A larger file is refused (kTooLarge) before it is read; a stream is read up to it.
  std::size_t max_bytes = SIZE_MAX;
  /// FIFOs and character devices are read as streams (up to `max_bytes`) instead of being refused
  /// as kNotRegular. Off for every input a command reads as a file: a FIFO nobody writes to would
  /// otherwise block the command forever.
  bool allow_stream = false;
};

/// The largest pipeline or JSON input file, as the parser's ParseLimits::max_file_bytes.
inline constexpr std::size_t kMaxInputFileBytes = 64u << 20;

/// The rules for a pipeline `.dot` file.
inline constexpr InputFileRules kDotFileRules{"a .dot file", false, false, SIZE_MAX, kMaxInputFileBytes};
/// The rules for a JSON file (answers, responses, context, run-directory files, ACLs).
inline constexpr InputFileRules kJsonFileRules{"a JSON file", false, false, SIZE_MAX, kMaxInputFileBytes};

enum class InputFileProblem {
  kNone,
  kMissing,
  kDirectory,
  kUnreadable,
  kEmpty,
  kNulByte,
  kInvalidUtf8,
  kTooLarge,
  kNotRegular
};

/// The outcome of read_input_file: the text, or the problem and its one-line message.
struct InputFile {
  std::string text;
  InputFileProblem problem = InputFileProblem::kNone;
  std::string message;  ///< "" when problem is kNone
  int line = 0;         ///< 1-based location of the first bad byte (binary problems only)
  int column = 0;

  bool ok() const { return problem == InputFileProblem::kNone; }
};

/// Reads the whole file at `path` and classifies what is wrong with it under `rules`. The file is
/// opened without blocking (O_NONBLOCK) and classified by fstat before anything is read, so a
/// FIFO, device or socket never blocks the caller.
InputFile read_input_file(const std::string& path, const InputFileRules& rules = {});

/// Opens `path` the way read_input_file does, for a caller that reads it in pieces: the descriptor
/// (O_CLOEXEC; blocking again for a stream), or -1 with `problem` set to what read_input_file
/// would have said before reading. `is_stream`, when set, tells a FIFO or device (allowed by
/// rules.allow_stream) from a regular file. `max_bytes` is checked here only for regular files.
int open_input_file(const std::string& path, const InputFileRules& rules, InputFile& problem,
                    bool* is_stream = nullptr);

/// Thrown by read_input_file_or_throw; what() is the one-line message.
class InputFileError : public std::runtime_error {
 public:
  InputFileError(InputFileProblem problem, const std::string& message)
      : std::runtime_error(message), problem_(problem) {}
  InputFileProblem problem() const { return problem_; }

 private:
  InputFileProblem problem_;
};

/// read_input_file, throwing InputFileError on any problem.
std::string read_input_file_or_throw(const std::string& path, const InputFileRules& rules = {});

/// The problem with a path that must name an existing directory, as a one-line message
/// (`PATH: no such directory`, `PATH: not a directory (expected EXPECTED)`); nullopt when fine.
std::optional<std::string> input_directory_problem(const std::string& path, std::string_view expected);

/// What kind of file that is not a regular file `mode` names ("a FIFO", "a socket", ...).
std::string_view special_file_kind(unsigned mode);

/// `text` safe for a terminal: bytes below 0x20 (except tab) and 0x7f become `\xHH`; valid UTF-8
/// and tabs are kept; invalid UTF-8 bytes become `\xHH` too.
std::string escape_control_bytes(std::string_view text);

}  // namespace attractor
