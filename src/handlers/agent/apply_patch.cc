#include "handlers/agent/apply_patch.h"

#include <array>
#include <optional>
#include <set>
#include <utility>

namespace attractor {

namespace {

constexpr std::string_view kBeginPatch = "*** Begin Patch";
constexpr std::string_view kEndPatch = "*** End Patch";
constexpr std::string_view kEndOfFile = "*** End of File";
constexpr std::string_view kAddFile = "*** Add File:";
constexpr std::string_view kDeleteFile = "*** Delete File:";
constexpr std::string_view kUpdateFile = "*** Update File:";
constexpr std::string_view kMoveTo = "*** Move to:";
constexpr std::string_view kHunkStart = "@@";
constexpr std::string_view kExpectedOperation =
    R"("*** Add File: ", "*** Delete File: ", "*** Update File: " or "*** End Patch")";
constexpr std::string_view kExpectedHunkLine = R"(a hunk line starting with " ", "-" or "+")";
constexpr std::size_t kQuotedLineLimit = 120;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

std::string_view trim_right(std::string_view s) {
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

std::string_view trim(std::string_view s) {
  s = trim_right(s);
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  return s;
}

std::string quoted(std::string_view line) {
  if (line.size() <= kQuotedLineLimit) return "\"" + std::string(line) + "\"";
  return "\"" + std::string(line.substr(0, kQuotedLineLimit)) + "...\"";
}

/// The patch's lines without their line endings ("\n" or "\r\n"); a final line ending adds no line.
std::vector<std::string_view> split_patch_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

/// Reads the patch grammar of Appendix A line by line, remembering every path it has seen.
class PatchParser {
 public:
  explicit PatchParser(std::string_view text) : lines_(split_patch_lines(text)) {}

  std::vector<PatchOperation> parse() {
    std::vector<PatchOperation> operations;
    if (at_end() || trim_right(current()) != kBeginPatch) fail("\"" + std::string(kBeginPatch) + "\"");
    ++pos_;
    for (;;) {
      if (at_end()) fail(kExpectedOperation);
      if (trim_right(current()) == kEndPatch) break;
      operations.push_back(parse_operation());
    }
    ++pos_;
    parse_trailer();
    return operations;
  }

 private:
  bool at_end() const { return pos_ >= lines_.size(); }
  std::string_view current() const { return lines_[pos_]; }
  bool current_starts_with(std::string_view prefix) const { return !at_end() && current().starts_with(prefix); }

  [[noreturn]] void fail(std::string_view expected) const {
    std::string got = at_end() ? "end of input" : quoted(current());
    throw PatchError("patch line " + std::to_string(pos_ + 1) + ": expected " + std::string(expected) + ", got " + got);
  }

  void parse_trailer() {
    for (; !at_end(); ++pos_) {
      if (!trim(current()).empty()) fail("nothing after \"" + std::string(kEndPatch) + "\"");
    }
  }

  PatchOperation parse_operation() {
    PatchOperation op;
    if (current_starts_with(kAddFile)) {
      op.kind = PatchOperation::Kind::kAdd;
      op.path = parse_path(kAddFile);
      op.add_lines = parse_added_lines();
    } else if (current_starts_with(kDeleteFile)) {
      op.kind = PatchOperation::Kind::kDelete;
      op.path = parse_path(kDeleteFile);
    } else if (current_starts_with(kUpdateFile)) {
      op.kind = PatchOperation::Kind::kUpdate;
      op.path = parse_path(kUpdateFile);
      if (current_starts_with(kMoveTo)) op.move_to = parse_move_target(op.path);
      op.hunks = parse_hunks(op.path);
    } else {
      fail(kExpectedOperation);
    }
    return op;
  }

  /// The path after `header` on the current line, which must not be empty or already used.
  std::string parse_path(std::string_view header) {
    std::string path(trim(current().substr(header.size())));
    if (path.empty()) fail("a file path after \"" + std::string(header) + " \"");
    if (!paths_.insert(path).second) {
      throw PatchError("patch line " + std::to_string(pos_ + 1) + ": " + path + " appears more than once in the patch");
    }
    ++pos_;
    return path;
  }

  /// A move onto the file itself is no move at all.
  std::string parse_move_target(const std::string& path) {
    if (trim(current().substr(kMoveTo.size())) == path) {
      ++pos_;
      return "";
    }
    return parse_path(kMoveTo);
  }

  std::vector<std::string> parse_added_lines() {
    std::vector<std::string> lines;
    for (; !at_end() && !current().starts_with("***"); ++pos_) {
      if (!current().starts_with('+')) fail(R"(a line of the added file starting with "+")");
      lines.emplace_back(current().substr(1));
    }
    return lines;
  }

  std::vector<PatchHunk> parse_hunks(const std::string& path) {
    std::vector<PatchHunk> hunks;
    if (!current_starts_with(kHunkStart)) fail("\"@@\" (a hunk of " + path + ")");
    while (current_starts_with(kHunkStart)) {
      hunks.push_back(parse_hunk());
      if (hunks.back().end_of_file) break;
    }
    return hunks;
  }

  PatchHunk parse_hunk() {
    PatchHunk hunk;
    hunk.hint = trim(current().substr(kHunkStart.size()));
    ++pos_;
    for (; !at_end(); ++pos_) {
      std::string_view line = current();
      if (trim_right(line) == kEndOfFile && !hunk.lines.empty()) {
        hunk.end_of_file = true;
        ++pos_;
        break;
      }
      if (line.starts_with(kHunkStart) || line.starts_with("***")) break;
      hunk.lines.push_back(parse_hunk_line(line));
    }
    if (hunk.lines.empty()) fail(kExpectedHunkLine);
    return hunk;
  }

  /// An entirely empty line is an empty context line: models often drop the leading space.
  PatchLine parse_hunk_line(std::string_view line) const {
    if (line.empty()) return {PatchLine::Kind::kContext, ""};
    std::string text(line.substr(1));
    switch (line.front()) {
      case ' ': return {PatchLine::Kind::kContext, std::move(text)};
      case '-': return {PatchLine::Kind::kDelete, std::move(text)};
      case '+': return {PatchLine::Kind::kAdd, std::move(text)};
      default: fail(kExpectedHunkLine);
    }
  }

  std::vector<std::string_view> lines_;
  std::size_t pos_ = 0;
  std::set<std::string> paths_;
};

struct FileLine {
  std::string text;  ///< without its line ending
  bool crlf = false;
};

/// A file as lines, so hunks can be matched and spliced while line endings are kept.
struct TextFile {
  std::vector<FileLine> lines;
  bool crlf = false;          ///< the ending most lines use, given to new lines
  bool final_newline = true;  ///< an empty file counts as ending with one
};

TextFile split_file(const std::string& content) {
  TextFile file;
  std::size_t crlf_lines = 0;
  std::size_t lf_lines = 0;
  std::size_t start = 0;
  while (start < content.size()) {
    std::size_t end = content.find('\n', start);
    if (end == std::string::npos) {
      file.lines.push_back({content.substr(start), false});
      file.final_newline = false;
      break;
    }
    FileLine line{content.substr(start, end - start), false};
    if (!line.text.empty() && line.text.back() == '\r') {
      line.text.pop_back();
      line.crlf = true;
    }
    ++(line.crlf ? crlf_lines : lf_lines);
    file.lines.push_back(std::move(line));
    start = end + 1;
  }
  file.crlf = crlf_lines > lf_lines;
  if (!file.final_newline) file.lines.back().crlf = file.crlf;
  return file;
}

std::string join_file(const TextFile& file) {
  std::string out;
  for (std::size_t i = 0; i < file.lines.size(); ++i) {
    out += file.lines[i].text;
    if (i + 1 < file.lines.size() || file.final_newline) out += file.lines[i].crlf ? "\r\n" : "\n";
  }
  return out;
}

/// How loosely two lines are compared, from strictest to loosest.
enum MatchLevel : std::size_t { kExact, kIgnoreTrailingSpace, kIgnoreSurroundingSpace, kIgnorePunctuation, kLevels };

struct Replacement {
  std::string_view from;
  std::string_view to;
};

constexpr std::array kPunctuation = {
    Replacement{"\u2018", "'"},  Replacement{"\u2019", "'"},  Replacement{"\u201A", "'"},  Replacement{"\u201B", "'"},
    Replacement{"\u201C", "\""}, Replacement{"\u201D", "\""}, Replacement{"\u201E", "\""}, Replacement{"\u201F", "\""},
    Replacement{"\u2010", "-"},  Replacement{"\u2011", "-"},  Replacement{"\u2012", "-"},  Replacement{"\u2013", "-"},
    Replacement{"\u2014", "-"},  Replacement{"\u2015", "-"},  Replacement{"\u2212", "-"},  Replacement{"\u2026", "..."},
    Replacement{"\u00A0", " "},  Replacement{"\u2007", " "},  Replacement{"\u202F", " "},
};

/// `s` with typographic quotes, dashes, ellipses and non-breaking spaces replaced by ASCII.
std::string normalise_punctuation(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  while (!s.empty()) {
    const Replacement* hit = nullptr;
    for (const Replacement& r : kPunctuation) {
      if (s.starts_with(r.from)) hit = &r;
    }
    out += hit ? hit->to : s.substr(0, 1);
    s.remove_prefix(hit ? hit->from.size() : 1);
  }
  return out;
}

/// What is compared of a line at `level`.
std::string line_key(std::string_view line, MatchLevel level) {
  switch (level) {
    case kExact: return std::string(line);
    case kIgnoreTrailingSpace: return std::string(trim_right(line));
    case kIgnoreSurroundingSpace: return std::string(trim(line));
    default: return std::string(trim(normalise_punctuation(line)));
  }
}

/// The keys of every line at every level, computed once per file.
using LineKeys = std::array<std::vector<std::string>, kLevels>;

LineKeys make_keys(const std::vector<std::string_view>& lines) {
  LineKeys keys;
  for (std::size_t level = 0; level < kLevels; ++level) {
    for (std::string_view line : lines) keys[level].push_back(line_key(line, MatchLevel(level)));
  }
  return keys;
}

LineKeys make_keys(const std::vector<FileLine>& lines) {
  std::vector<std::string_view> texts;
  for (const FileLine& line : lines) texts.push_back(line.text);
  return make_keys(texts);
}

LineKeys make_keys(const std::vector<std::string>& lines) {
  return make_keys(std::vector<std::string_view>(lines.begin(), lines.end()));
}

bool matches_at(const std::vector<std::string>& file, const std::vector<std::string>& old, std::size_t pos) {
  for (std::size_t i = 0; i < old.size(); ++i) {
    if (file[pos + i] != old[i]) return false;
  }
  return true;
}

/// The first position at or after `start` where `old` occurs, trying the strictest level first;
/// with `at_end` only the position that ends the file counts.
std::optional<std::size_t> find_lines(const LineKeys& file, const LineKeys& old, std::size_t start, bool at_end) {
  std::size_t file_size = file[kExact].size();
  std::size_t old_size = old[kExact].size();
  if (old_size > file_size) return std::nullopt;
  std::size_t last = file_size - old_size;
  for (std::size_t level = 0; level < kLevels; ++level) {
    for (std::size_t pos = at_end ? last : start; pos <= last; ++pos) {
      if (pos >= start && matches_at(file[level], old[level], pos)) return pos;
    }
  }
  return std::nullopt;
}

/// The first line at or after `start` that contains `hint`, exactly or with punctuation normalised.
std::optional<std::size_t> find_hint(const TextFile& file, const std::string& hint, std::size_t start) {
  for (std::size_t i = start; i < file.lines.size(); ++i) {
    if (file.lines[i].text.find(hint) != std::string::npos) return i;
  }
  std::string normalised = normalise_punctuation(hint);
  for (std::size_t i = start; i < file.lines.size(); ++i) {
    if (normalise_punctuation(file.lines[i].text).find(normalised) != std::string::npos) return i;
  }
  return std::nullopt;
}

std::vector<std::string> old_lines(const PatchHunk& hunk) {
  std::vector<std::string> old;
  for (const PatchLine& line : hunk.lines) {
    if (line.kind != PatchLine::Kind::kAdd) old.push_back(line.text);
  }
  return old;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) out += (i == 0 ? "" : "\n") + lines[i];
  return out;
}

/// Applies one file's hunks, in order, to its text in memory.
class HunkApplier {
 public:
  HunkApplier(const std::string& path, TextFile file)
      : path_(path), file_(std::move(file)), keys_(make_keys(file_.lines)) {}

  std::string apply(const std::vector<PatchHunk>& hunks) {
    for (std::size_t i = 0; i < hunks.size(); ++i) apply_hunk(hunks[i], i + 1);
    result_.insert(result_.end(), file_.lines.begin() + static_cast<std::ptrdiff_t>(cursor_), file_.lines.end());
    TextFile out{std::move(result_), file_.crlf, file_.final_newline};
    return join_file(out);
  }

 private:
  void apply_hunk(const PatchHunk& hunk, std::size_t number) {
    std::vector<std::string> old = old_lines(hunk);
    std::size_t pos = locate(hunk, old, number);
    result_.insert(result_.end(), file_.lines.begin() + static_cast<std::ptrdiff_t>(cursor_),
                   file_.lines.begin() + static_cast<std::ptrdiff_t>(pos));
    std::size_t old_index = pos;
    for (const PatchLine& line : hunk.lines) {
      if (line.kind == PatchLine::Kind::kContext) result_.push_back(file_.lines[old_index]);
      if (line.kind == PatchLine::Kind::kAdd) result_.push_back({line.text, file_.crlf});
      if (line.kind != PatchLine::Kind::kAdd) ++old_index;
    }
    cursor_ = old_index;
  }

  /// Where the hunk's old lines start in the file (for a pure addition: where its lines go).
  std::size_t locate(const PatchHunk& hunk, const std::vector<std::string>& old, std::size_t number) const {
    std::optional<std::size_t> hint_line;
    if (!hunk.hint.empty()) hint_line = find_hint(file_, hunk.hint, cursor_);
    if (old.empty()) return locate_insertion(hunk, hint_line, number);
    LineKeys old_keys = make_keys(old);
    std::optional<std::size_t> pos = find_lines(keys_, old_keys, hint_line.value_or(cursor_), hunk.end_of_file);
    if (!pos && hint_line) pos = find_lines(keys_, old_keys, cursor_, hunk.end_of_file);
    if (!pos) {
      std::string where = hunk.end_of_file ? "the end of the file" : "the file";
      throw PatchError(hunk_name(hunk, number) + " does not match " + where + "; the expected lines were:\n" +
                       join_lines(old));
    }
    return *pos;
  }

  /// A hunk without old lines goes after its hint's line, at the end of the file with
  /// "*** End of File", else where the previous hunk ended.
  std::size_t locate_insertion(const PatchHunk& hunk, std::optional<std::size_t> hint_line, std::size_t number) const {
    if (hunk.end_of_file) return file_.lines.size();
    if (hint_line) return *hint_line + 1;
    if (hunk.hint.empty()) return cursor_;
    std::string after = number == 1 ? "" : " after hunk " + std::to_string(number - 1);
    throw PatchError(hunk_name(hunk, number) + " does not match the file; it has no context lines and no line" + after +
                     " contains its hint");
  }

  std::string hunk_name(const PatchHunk& hunk, std::size_t number) const {
    std::string name = "apply_patch: " + path_ + ": hunk " + std::to_string(number);
    return hunk.hint.empty() ? name : name + " (@@ " + hunk.hint + ")";
  }

  const std::string& path_;
  TextFile file_;
  LineKeys keys_;
  std::vector<FileLine> result_;
  std::size_t cursor_ = 0;  ///< the first original line not yet copied to result_
};

/// One operation with everything it will write, computed before any file changes.
struct PlannedChange {
  const PatchOperation* op = nullptr;
  std::string old_content;  ///< Delete and Update: the file as it was, for a rollback
  std::string new_content;  ///< Add and Update
};

std::string added_file_content(const std::vector<std::string>& lines) {
  std::string content;
  for (const std::string& line : lines) content += line + "\n";
  return content;
}

void require_exists(ExecutionEnvironment& env, const std::string& path, std::string_view verb) {
  if (!env.file_exists(path)) {
    throw FileNotFound("apply_patch: cannot " + std::string(verb) + " " + path + ": the file does not exist");
  }
}

PlannedChange plan_change(ExecutionEnvironment& env, const PatchOperation& op) {
  PlannedChange change{&op, "", ""};
  switch (op.kind) {
    case PatchOperation::Kind::kAdd:
      if (env.file_exists(op.path))
        throw PatchError("apply_patch: cannot add " + op.path + ": the file already exists");
      change.new_content = added_file_content(op.add_lines);
      break;
    case PatchOperation::Kind::kDelete:
      require_exists(env, op.path, "delete");
      change.old_content = env.read_file(op.path);
      break;
    case PatchOperation::Kind::kUpdate:
      require_exists(env, op.path, "update");
      if (!op.move_to.empty() && env.file_exists(op.move_to)) {
        throw PatchError("apply_patch: cannot move " + op.path + " to " + op.move_to + ": the target already exists");
      }
      change.old_content = env.read_file(op.path);
      change.new_content = HunkApplier(op.path, split_file(change.old_content)).apply(op.hunks);
      break;
  }
  return change;
}

/// How to undo one write: restore `content`, or remove the file when there was none.
struct Undo {
  std::string path;
  std::optional<std::string> content;
};

void roll_back(ExecutionEnvironment& env, const std::vector<Undo>& undo) {
  for (auto it = undo.rbegin(); it != undo.rend(); ++it) {
    try {
      if (it->content) env.write_file(it->path, *it->content);
      else env.delete_file(it->path);
    } catch (const std::exception&) {
      // Best effort: the error that started the rollback is the one reported.
    }
  }
}

/// Performs one planned change, recording its undo before each write.
void perform(ExecutionEnvironment& env, const PlannedChange& change, std::vector<Undo>& undo) {
  const PatchOperation& op = *change.op;
  switch (op.kind) {
    case PatchOperation::Kind::kAdd:
      undo.push_back({op.path, std::nullopt});
      env.write_file(op.path, change.new_content);
      break;
    case PatchOperation::Kind::kDelete:
      undo.push_back({op.path, change.old_content});
      env.delete_file(op.path);
      break;
    case PatchOperation::Kind::kUpdate:
      if (op.move_to.empty()) {
        undo.push_back({op.path, change.old_content});
        env.write_file(op.path, change.new_content);
      } else {
        undo.push_back({op.move_to, std::nullopt});
        env.write_file(op.move_to, change.new_content);
        undo.push_back({op.path, change.old_content});
        env.delete_file(op.path);
      }
      break;
  }
}

std::string summary_line(const PatchOperation& op) {
  switch (op.kind) {
    case PatchOperation::Kind::kAdd: return "A " + op.path;
    case PatchOperation::Kind::kDelete: return "D " + op.path;
    default: return op.move_to.empty() ? "M " + op.path : "M " + op.path + " -> " + op.move_to;
  }
}

}  // namespace

std::vector<PatchOperation> parse_patch(std::string_view text) { return PatchParser(text).parse(); }

PatchResult apply_patch(ExecutionEnvironment& env, std::string_view text) {
  std::vector<PatchOperation> operations = parse_patch(text);
  std::vector<PlannedChange> plan;
  for (const PatchOperation& op : operations) plan.push_back(plan_change(env, op));

  std::vector<Undo> undo;
  try {
    for (const PlannedChange& change : plan) perform(env, change, undo);
  } catch (...) {
    roll_back(env, undo);
    throw;
  }

  PatchResult result;
  for (const PatchOperation& op : operations) result.summary.push_back(summary_line(op));
  return result;
}

}  // namespace attractor
