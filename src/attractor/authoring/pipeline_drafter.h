#pragma once
/// \file
/// `attractor new`: a model drafts a pipeline from a plain-English description, attractor lints
/// it, and the diagnostics go back for a bounded number of repair rounds until it validates
/// (docs/authoring.md, "attractor new"). The prompt carries the generated dialect reference, so
/// it says what lint and the engine accept, never an older copy of it.

#include <string>
#include <string_view>
#include <vector>

#include "attractor/authoring/pipeline_document.h"
#include "attractor/model/chat_message.h"
#include "attractor/model/diagnostic.h"

namespace attractor {

/// The model behind the drafting: one reply per call.
class DraftModel {
 public:
  virtual ~DraftModel() = default;
  /// The reply to `conversation` (user and assistant turns, oldest first, ending with a user
  /// turn). Throws std::runtime_error when the model cannot be reached.
  virtual std::string reply(const std::vector<ChatMessage>& conversation) = 0;
};

/// What to draft.
struct DraftRequest {
  std::string description;  ///< the user's words
  std::string reference;    ///< `attractor help reference`
  std::string path;         ///< the output file, named in diagnostics
  int repair_rounds = 3;    ///< replies after the first draft, at most
};

/// One reply and what lint said about it.
struct DraftRound {
  std::string reply;
  std::string dot;  ///< the pipeline taken from the reply ("" when it held none)
  std::vector<Diagnostic> diagnostics;
  bool valid = false;  ///< parsed and no errors (warnings allowed)
};

/// Every round; the last is the result.
struct DraftOutcome {
  std::vector<DraftRound> rounds;
  bool valid() const { return !rounds.empty() && rounds.back().valid; }
};

/// Drafts until a reply validates or the repair rounds are used up.
DraftOutcome draft_pipeline(DraftModel& model, const DraftRequest& request, const AuthoringCatalog& catalog);

/// The pipeline in a reply: the first ```dot (or ```) fenced block that holds `digraph`, else the
/// text from the first `digraph` to the last `}`; "" when there is none.
std::string extract_dot(std::string_view reply);

/// The first message: the task, the rules of the dialect and the reference.
std::string draft_prompt(const DraftRequest& request);

/// The message after a draft that did not validate: its diagnostics in compiler form.
std::string repair_prompt(const DraftRound& round, const std::string& path);

}  // namespace attractor
