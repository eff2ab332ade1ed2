#include "attractor/authoring/pipeline_drafter.h"

#include <memory>

namespace attractor {

std::string extract_dot(std::string_view reply) {
  std::size_t at = 0;
  while ((at = reply.find("```", at)) != std::string_view::npos) {
    std::size_t body = reply.find('\n', at);
    if (body == std::string_view::npos) break;
    std::size_t close = reply.find("```", body);
    if (close == std::string_view::npos) break;
    std::string_view block = reply.substr(body + 1, close - body - 1);
    if (block.find("digraph") != std::string_view::npos) return std::string(block);
    at = close + 3;
  }
  std::size_t first = reply.find("digraph");
  std::size_t last = reply.rfind('}');
  if (first == std::string_view::npos || last == std::string_view::npos || last < first) return "";
  return std::string(reply.substr(first, last - first + 1)) + "\n";
}

std::string draft_prompt(const DraftRequest& request) {
  return "Write an attractor pipeline: one Graphviz DOT `digraph` that attractor runs as a multi-stage AI "
         "workflow. What it must do:\n\n" +
         request.description +
         "\n\nRules: exactly one start node (shape=Mdiamond) and one exit node (shape=Msquare); every node "
         "reachable from the start and able to reach the exit; each LLM stage has a prompt; node ids are "
         "identifiers (letters, digits, _); use only the shapes, handler types and attributes of the reference "
         "below. Answer with the whole file in one ```dot block and nothing else.\n\n"
         "The reference (the same text as `attractor help reference`):\n\n" +
         request.reference;
}

std::string repair_prompt(const DraftRound& round, const std::string& path) {
  if (round.dot.empty()) {
    return "Your answer held no `digraph`. Answer with the whole pipeline in one ```dot block.";
  }
  std::string out = "attractor validate reports:\n\n";
  SourceFile file(path, round.dot);
  for (const Diagnostic& d : diagnostics_capped_per_rule(round.diagnostics)) {
    if (d.severity != Severity::kError) continue;
    out += format_diagnostic(d, &file);
    out += '\n';
  }
  out += "\nFix every error and answer with the whole corrected file in one ```dot block.";
  return out;
}

namespace {

DraftRound judge(std::string reply, const std::string& path, const AuthoringCatalog& catalog) {
  DraftRound round;
  round.reply = std::move(reply);
  round.dot = extract_dot(round.reply);
  if (round.dot.empty()) return round;
  LoadedPipeline loaded = load_pipeline_text(path, round.dot, *catalog.handlers);
  round.valid = loaded.ok();
  round.diagnostics = std::move(loaded.diagnostics);
  return round;
}

}  // namespace

DraftOutcome draft_pipeline(DraftModel& model, const DraftRequest& request, const AuthoringCatalog& catalog) {
  DraftOutcome outcome;
  std::vector<ChatMessage> conversation = {{"user", draft_prompt(request), nullptr}};
  for (int round = 0; round <= request.repair_rounds; ++round) {
    std::string reply = model.reply(conversation);
    outcome.rounds.push_back(judge(reply, request.path, catalog));
    const DraftRound& last = outcome.rounds.back();
    if (last.valid) break;
    conversation.push_back({"assistant", reply, nullptr});
    conversation.push_back({"user", repair_prompt(last, request.path), nullptr});
  }
  return outcome;
}

}  // namespace attractor
