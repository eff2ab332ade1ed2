#pragma once
/// \file
/// The diagnostic model of spec §7.1 plus source positions, and its two renderings:
/// compiler form (`FILE:LINE:COL: error: [rule] message`, source line, caret, `fix:`) and JSON.

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "attractor/model/source_file.h"

namespace attractor {

/// ERROR stops a pipeline from running; WARNING and INFO do not.
enum class Severity { kError, kWarning, kInfo };

/// "error", "warning" or "info".
const char* severity_name(Severity severity);

/// One finding of the parser or a lint rule.
struct Diagnostic {
  std::string rule;  ///< rule id, e.g. "start_node" or "syntax"
  Severity severity = Severity::kError;
  std::string message;
  std::string node_id;                                      ///< related node, "" if none
  std::optional<std::pair<std::string, std::string>> edge;  ///< related edge (from, to)
  std::string fix;                                          ///< suggested fix, "" if none
  SourceLocation location;                                  ///< where in the file; unknown when not tied to text
};

/// A diagnostic tied to a node (`node_id` may be "") with a fix ("" for none).
Diagnostic make_diagnostic(std::string rule, Severity severity, std::string message, std::string node_id,
                           std::string fix, SourceLocation location);

/// Renders in compiler form. `file` supplies the path and the source line for the caret;
/// it may be null, in which case only the message lines are printed. The excerpt is a window
/// around the caret, and a message or fix longer than kMaxDiagnosticTextBytes is cut, saying how
/// many bytes were left out.
std::string format_diagnostic(const Diagnostic& diagnostic, const SourceFile* file);

/// JSON object with rule, severity, message, node, edge, line, column, fix (null where absent).
nlohmann::json diagnostic_to_json(const Diagnostic& diagnostic);

/// How many diagnostics of one rule are shown before the rest are counted instead
/// (docs/hardening.md, "Limits").
inline constexpr std::size_t kMaxDiagnosticsPerRule = 20;
/// Longest message or fix text shown for one diagnostic; the rest is counted instead.
inline constexpr std::size_t kMaxDiagnosticTextBytes = 400;

/// How many diagnostics of one rule a cap left out.
struct LeftOut {
  std::string rule;
  std::size_t count = 0;                ///< left out
  std::size_t total = 0;                ///< of this rule in all
  Severity severity = Severity::kInfo;  ///< the highest severity left out
};

/// Diagnostics after a cap: those kept, in their order, and per cut rule (in the order of its
/// first left-out diagnostic) how many were left out.
struct CappedDiagnostics {
  std::vector<Diagnostic> kept;
  std::vector<LeftOut> left_out;
};

/// The first `per_rule` diagnostics of each rule, and at most `in_all` in all.
CappedDiagnostics cap_diagnostics(const std::vector<Diagnostic>& diagnostics, std::size_t per_rule,
                                  std::size_t in_all = static_cast<std::size_t>(-1));

/// `diagnostics` with the first `per_rule` of each rule kept in their order, and after them, for
/// each rule that had more, one diagnostic of that rule (the highest severity left out, no
/// location) saying "... and N more `RULE` diagnostics left out". The counts of errors and
/// warnings are the caller's, taken before the cap.
std::vector<Diagnostic> diagnostics_capped_per_rule(const std::vector<Diagnostic>& diagnostics,
                                                    std::size_t per_rule = kMaxDiagnosticsPerRule);

/// True if any diagnostic has ERROR severity.
bool has_errors(const std::vector<Diagnostic>& diagnostics);

/// Thrown by `validate_or_raise` and by loaders when errors stop the pipeline.
class ValidationError : public std::runtime_error {
 public:
  explicit ValidationError(std::vector<Diagnostic> diagnostics);
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

}  // namespace attractor
