#include "attractor/model/diagnostic.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "attractor/base/input_file.h"
#include "attractor/base/utf8.h"

namespace attractor {

Diagnostic make_diagnostic(std::string rule, Severity severity, std::string message, std::string node_id,
                           std::string fix, SourceLocation location) {
  Diagnostic d;
  d.rule = std::move(rule);
  d.severity = severity;
  d.message = std::move(message);
  d.node_id = std::move(node_id);
  d.fix = std::move(fix);
  d.location = location;
  return d;
}

namespace {
/// Longest source excerpt printed under a diagnostic; a longer line is cut to a window around the
/// caret, marked with "..." on the cut sides.
constexpr std::size_t kMaxExcerptBytes = 160;
/// What to print before the caret so that it stands under the character at the end of `prefix`
/// as printed by escape_control_bytes: tabs are kept, an escaped byte takes the width of its
/// escape, and a multi-byte character one column.
std::string caret_padding(std::string_view prefix) {
  std::string pad;
  for (std::size_t i = 0; i < prefix.size();) {
    std::size_t valid = find_invalid_utf8(prefix.substr(i));
    std::size_t end = valid == std::string_view::npos ? prefix.size() : i + valid;
    for (; i < end; ++i) {
      const auto c = static_cast<unsigned char>(prefix[i]);
      if (c == '\t') pad += '\t';
      else if (c < 0x20 || c == 0x7f) pad.append(4, ' ');
      else if (!is_utf8_continuation(prefix[i])) pad += ' ';
    }
    if (i < prefix.size()) {
      pad.append(4, ' ');
      ++i;
    }
  }
  return pad;
}

/// `text` cut to kMaxDiagnosticTextBytes at a character boundary, with the count of the rest.
std::string shortened(const std::string& text) {
  if (text.size() <= kMaxDiagnosticTextBytes) return text;
  std::size_t end = kMaxDiagnosticTextBytes;
  while (end > 0 && is_utf8_continuation(text[end])) --end;
  return text.substr(0, end) + "... (" + std::to_string(text.size() - end) + " more bytes left out)";
}

}  // namespace

CappedDiagnostics cap_diagnostics(const std::vector<Diagnostic>& diagnostics, std::size_t per_rule,
                                  std::size_t in_all) {
  CappedDiagnostics capped;
  std::map<std::string, std::size_t> seen;
  std::map<std::string, std::size_t> slot;  // rule -> index in capped.left_out
  for (const Diagnostic& d : diagnostics) {
    if (++seen[d.rule] <= per_rule && capped.kept.size() < in_all) {
      capped.kept.push_back(d);
      continue;
    }
    auto [it, fresh] = slot.try_emplace(d.rule, capped.left_out.size());
    if (fresh) capped.left_out.push_back(LeftOut{d.rule, 0, 0, d.severity});
    LeftOut& out = capped.left_out[it->second];
    ++out.count;
    if (static_cast<int>(d.severity) < static_cast<int>(out.severity)) out.severity = d.severity;
  }
  for (LeftOut& out : capped.left_out) out.total = seen[out.rule];
  return capped;
}

std::vector<Diagnostic> diagnostics_capped_per_rule(const std::vector<Diagnostic>& diagnostics, std::size_t per_rule) {
  CappedDiagnostics capped = cap_diagnostics(diagnostics, per_rule);
  for (const LeftOut& out : capped.left_out) {
    Diagnostic note;
    note.rule = out.rule;
    note.severity = out.severity;
    note.message = "... and " + std::to_string(out.count) + " more `" + out.rule + "` diagnostic" +
                   (out.count == 1 ? "" : "s") + " left out";
    capped.kept.push_back(std::move(note));
  }
  return std::move(capped.kept);
}

const char* severity_name(Severity severity) {
  switch (severity) {
    case Severity::kError: return "error";
    case Severity::kWarning: return "warning";
    case Severity::kInfo: return "info";
  }
  return "error";
}

std::string format_diagnostic(const Diagnostic& d, const SourceFile* file) {
  std::string out;
  if (file != nullptr) {
    out += escape_control_bytes(file->path());
    if (d.location.known()) {
      out += ':';
      out += std::to_string(d.location.line);
      out += ':';
      out += std::to_string(d.location.column);
    }
    out += ": ";
  }
  out += severity_name(d.severity);
  out += ": [" + d.rule + "] " + shortened(d.message) + "\n";
  if (file != nullptr && d.location.known()) {
    std::string_view line = file->line_text(d.location.line);
    std::size_t caret = std::min<std::size_t>(static_cast<std::size_t>(d.location.column - 1), line.size());
    // A long line is shown as a window around the caret, so that many diagnostics on one huge line
    // (a 100,000-node edge chain) cost a bounded amount of output each.
    std::string_view before = "", after = "";
    if (line.size() > kMaxExcerptBytes) {
      auto continuation = [&](std::size_t i) { return i < line.size() && is_utf8_continuation(line[i]); };
      std::size_t begin = caret > kMaxExcerptBytes / 2 ? caret - kMaxExcerptBytes / 2 : 0;
      std::size_t end = std::min(line.size(), begin + kMaxExcerptBytes);
      while (begin < caret && continuation(begin)) ++begin;
      while (end > caret && continuation(end)) --end;
      if (begin > 0) before = "...";
      if (end < line.size()) after = "...";
      line = line.substr(begin, end - begin);
      caret -= begin;
    }
    out += "  ";
    out.append(before);
    out += escape_control_bytes(line);
    out.append(after);
    out += "\n  ";
    out.append(before.size(), ' ');
    out += caret_padding(line.substr(0, caret));
    out += "^\n";
  }
  if (!d.fix.empty()) out += "  fix: " + shortened(d.fix) + "\n";
  return out;
}

nlohmann::json diagnostic_to_json(const Diagnostic& d) {
  nlohmann::json j;
  j["rule"] = d.rule;
  j["severity"] = severity_name(d.severity);
  j["message"] = d.message;
  j["node"] = d.node_id.empty() ? nlohmann::json(nullptr) : nlohmann::json(d.node_id);
  j["edge"] = d.edge ? nlohmann::json::array({d.edge->first, d.edge->second}) : nlohmann::json(nullptr);
  j["line"] = d.location.known() ? nlohmann::json(d.location.line) : nlohmann::json(nullptr);
  j["column"] = d.location.known() ? nlohmann::json(d.location.column) : nlohmann::json(nullptr);
  j["fix"] = d.fix.empty() ? nlohmann::json(nullptr) : nlohmann::json(d.fix);
  return j;
}

bool has_errors(const std::vector<Diagnostic>& diagnostics) {
  return std::any_of(diagnostics.begin(), diagnostics.end(),
                     [](const Diagnostic& d) { return d.severity == Severity::kError; });
}

namespace {
std::string summarize(const std::vector<Diagnostic>& diagnostics) {
  std::string text = "pipeline has errors:";
  for (const auto& d : diagnostics) {
    if (d.severity == Severity::kError) text += "\n  [" + d.rule + "] " + d.message;
  }
  return text;
}
}  // namespace

ValidationError::ValidationError(std::vector<Diagnostic> diagnostics)
    : std::runtime_error(summarize(diagnostics)), diagnostics_(std::move(diagnostics)) {}

}  // namespace attractor
