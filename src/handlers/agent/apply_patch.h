#pragma once
/// \file
/// The `apply_patch` tool's core (coding-agent-loop spec §3.4 and Appendix A): parsing and
/// applying patches in the v4a format, the edit format OpenAI models are trained on.
///
/// A patch is a block of file operations:
///
///     *** Begin Patch
///     *** Add File: src/new.py          (then one "+line" per line of the new file)
///     *** Delete File: src/old.py
///     *** Update File: src/main.py
///     *** Move to: src/app.py           (optional: the update also renames the file)
///     @@ def main():                    (a hunk; the text after "@@ " is a hint locating it)
///          print("Hello")               (" " context, "-" delete, "+" add)
///     -    return 0
///     +    return 1
///     *** End of File                   (optional: the hunk's lines end the file)
///     *** End Patch
///
/// A hunk's old lines (its context and delete lines, in order) are looked up in the file after the
/// place where the previous hunk ended, starting at the hint's line when the hint is found. The
/// lookup tries an exact match, then ignores trailing whitespace, then leading and trailing
/// whitespace, then also treats typographic quotes, dashes and non-breaking spaces as their ASCII
/// equivalents. Lines kept as context keep the file's own text and line endings.
///
/// Applying is all-or-nothing: the whole patch is parsed, every affected file is read and every
/// hunk is matched in memory before the first write, so a patch with any error leaves every file
/// as it was. If the environment itself fails during the writes, the files already written are
/// restored (best effort). All file access goes through ExecutionEnvironment, which confines paths
/// to the working directory.

#include <string>
#include <string_view>
#include <vector>

#include "handlers/agent/execution_environment.h"

namespace attractor {

/// A patch that cannot be parsed or does not apply; the message names the patch line, or the
/// file and the hunk, and what was expected.
class PatchError : public ToolError {
 public:
  using ToolError::ToolError;
};

/// One line of a hunk: unchanged (" "), removed ("-") or added ("+").
struct PatchLine {
  enum class Kind { kContext, kDelete, kAdd };
  Kind kind = Kind::kContext;
  std::string text;  ///< without the prefix character and the line ending

  bool operator==(const PatchLine&) const = default;
};

/// One "@@" block of an Update File operation.
struct PatchHunk {
  std::string hint;  ///< the text after "@@ ", trimmed; empty when there is none
  std::vector<PatchLine> lines;
  bool end_of_file = false;  ///< followed by "*** End of File": the old lines end the file

  bool operator==(const PatchHunk&) const = default;
};

/// One file operation of a patch.
struct PatchOperation {
  enum class Kind { kAdd, kDelete, kUpdate };
  Kind kind = Kind::kAdd;
  std::string path;
  std::string move_to;                 ///< Update only: the new path, empty when not renamed
  std::vector<std::string> add_lines;  ///< Add only: the new file's lines
  std::vector<PatchHunk> hunks;        ///< Update only: at least one

  bool operator==(const PatchOperation&) const = default;
};

/// Parses a v4a patch. Throws PatchError naming the 1-based patch line and what was expected,
/// e.g. `patch line 3: expected "*** Add File: ", "*** Delete File: ", "*** Update File: " or
/// "*** End Patch", got "foo"`.
std::vector<PatchOperation> parse_patch(std::string_view text);

/// What a patch changed: one line per file, in patch order: `A path` (added), `D path`
/// (deleted), `M path` (updated) or `M old -> new` (updated and renamed).
struct PatchResult {
  std::vector<std::string> summary;
};

/// Parses `text` and applies it to `env`, all or nothing. Throws PatchError for a patch that does
/// not parse or apply (adding a file that exists, a hunk that does not match, a move onto an
/// existing file), FileNotFound for deleting or updating a missing file, and whatever the
/// environment throws (e.g. PathOutsideWorkspace).
PatchResult apply_patch(ExecutionEnvironment& env, std::string_view text);

}  // namespace attractor
