#include <cstdio>
#include <filesystem>
#include <string>

#include <CLI/CLI.hpp>

#include "attractor/authoring/pipeline_drafter.h"
#include "attractor/cli/cli.h"
#include "attractor/cli/cli_support.h"
#include "attractor/cli/reference.h"
#include "attractor/run/posix_run_disk.h"
#include "handlers/llm/backend_router.h"

namespace attractor {

namespace {

/// The drafting model: the LLM backends of `run`, asked as one `full`-fidelity stage whose
/// thread is the conversation.
class BackendDraftModel : public DraftModel {
 public:
  BackendDraftModel(const std::string& backend, const std::string& model) : backend_(config(backend)) {
    Vertex v = graph_.add_node("draft");
    if (!backend.empty()) graph_.node(v).set("llm_provider", backend);
    if (!model.empty()) graph_.node(v).set("llm_model", model);
  }

  std::string reply(const std::vector<ChatMessage>& conversation) override {
    CodergenRequest request;
    request.node = graph_.node("draft");
    request.graph = &graph_;
    request.context = &context_;
    request.prompt = conversation.back().content;
    request.history.assign(conversation.begin(), conversation.end() - 1);
    request.fidelity = "full";
    request.thread_id = "draft";
    request.attempt = ++calls_;
    return backend_.run(request).response;
  }

 private:
  static BackendConfig config(const std::string& backend) {
    BackendConfig c;
    c.default_provider = backend;
    return c;
  }

  Graph graph_;
  Context context_;
  RoutingBackend backend_;
  std::int64_t calls_ = 0;
};

struct NewOptions {
  std::string description;
  std::string output;
  std::string backend;
  std::string model;
  int rounds = 3;
  bool force = false;
};

void write_text(RunDisk& disk, const std::string& path, const std::string& text) {
  std::string_view parts[] = {text};
  disk.write_file_atomic(path, parts);
}

int keep_rejected(RunDisk& disk, const NewOptions& o, const DraftOutcome& outcome) {
  const DraftRound& last = outcome.rounds.back();
  std::string draft = o.output + ".rejected.dot";
  std::string notes = o.output + ".rejected.txt";
  SourceFile file(draft, last.dot);
  std::string report;
  for (const Diagnostic& d : diagnostics_capped_per_rule(last.diagnostics))
    report += format_diagnostic(d, &file) + "\n";
  if (last.dot.empty()) report = "the last reply held no digraph; it is kept as it was\n";
  write_text(disk, draft, last.dot.empty() ? last.reply : last.dot);
  write_text(disk, notes, report);
  std::fprintf(stderr,
               "attractor new: no draft validated after %zu replies; the last is kept as %s, its diagnostics as %s\n",
               outcome.rounds.size(), draft.c_str(), notes.c_str());
  return kExitFail;
}

void report_rounds(const DraftOutcome& outcome) {
  for (std::size_t i = 0; i < outcome.rounds.size(); ++i) {
    const DraftRound& r = outcome.rounds[i];
    std::size_t errors = 0;
    for (const Diagnostic& d : r.diagnostics) errors += d.severity == Severity::kError;
    if (r.valid) {
      std::fprintf(stderr, "draft %zu: valid\n", i + 1);
    } else if (r.dot.empty()) {
      std::fprintf(stderr, "draft %zu: no digraph in the reply\n", i + 1);
    } else {
      std::fprintf(stderr, "draft %zu: %zu error%s\n", i + 1, errors, errors == 1 ? "" : "s");
    }
  }
}

}  // namespace

int run_new_command(int argc, char** argv) { return run_new_command(argc, argv, posix_run_disk()); }

int run_new_command(int argc, char** argv, RunDisk& disk) {
  CLI::App app{
      "Draft a pipeline from a plain-English description (docs/authoring.md): the model's draft is linted and "
      "the diagnostics are sent back for repair until it validates. Writes FILE only when it validates; "
      "otherwise keeps the last draft as FILE.rejected.dot with its diagnostics in FILE.rejected.txt and exits 1."};
  app.name("attractor new");
  NewOptions o;
  app.add_option("DESCRIPTION", o.description, "what the pipeline should do")->required();
  app.add_option("-o,--output", o.output, "the .dot file to write")->required();
  app.add_option("--backend", o.backend,
                 "the LLM provider that drafts (as `run --backend`; `attractor help providers`)");
  app.add_option("--model", o.model, "the model to ask (default: the provider's)");
  app.add_option("--rounds", o.rounds, "repair rounds after the first draft (0-10)")->check(CLI::Range(0, 10));
  app.add_flag("--force", o.force, "replace FILE when it exists");
  if (auto code = parse_cli(app, argc, argv)) return *code;
  if (o.backend.empty() && o.model.empty()) {
    std::fprintf(stderr, "attractor new: choose the model: --backend openai|anthropic|cli:AGENT|... or --model NAME\n");
    return kExitUsage;
  }
  if (!o.force && std::filesystem::exists(o.output)) {
    std::fprintf(stderr, "attractor new: %s exists; pass --force to replace it\n", o.output.c_str());
    return kExitUsage;
  }
  static const AuthoringCatalog catalog = builtin_authoring_catalog();
  DraftRequest request{o.description, pipeline_reference(*catalog.handlers), o.output, o.rounds};
  DraftOutcome outcome;
  try {
    BackendDraftModel model(o.backend, o.model);
    outcome = draft_pipeline(model, request, catalog);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attractor new: the model could not be asked: %s\n", e.what());
    return kExitRuntime;
  }
  report_rounds(outcome);
  try {
    if (!outcome.valid()) return keep_rejected(disk, o, outcome);
    write_text(disk, o.output, outcome.rounds.back().dot);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attractor new: %s\n", e.what());
    return kExitRuntime;
  }
  std::fprintf(stderr, "attractor new: wrote %s\n", o.output.c_str());
  return kExitSuccess;
}

}  // namespace attractor
