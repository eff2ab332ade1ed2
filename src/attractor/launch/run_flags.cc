#include "attractor/launch/run_flags.h"

#include "attractor/launch/flag_checks.h"

#include <climits>
#include <filesystem>
#include <stdexcept>

#include "attractor/base/input_file.h"
#include "attractor/base/json_limits.h"
#include "attractor/model/sandbox_level.h"
#include "handlers/llm/provider_table.h"

namespace attractor {

namespace {

namespace fs = std::filesystem;

std::string absolute(const std::string& path) {
  return path.empty() ? path : fs::absolute(path).lexically_normal().string();
}

/// Splits "KEY=VALUE" at its first '='; throws naming `option` when there is no key.
std::pair<std::string, std::string> key_value(const std::string& arg, const char* option, const char* form) {
  auto eq = arg.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw std::runtime_error(std::string(option) + " expects " + form + ", got '" + arg + "'");
  }
  return {arg.substr(0, eq), arg.substr(eq + 1)};
}

bool given(const CLI::App& app, const char* name) { return app.count(name) > 0; }

std::string string_option(const nlohmann::json& options, const char* key) {
  auto it = options.find(key);
  return it != options.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool bool_option(const nlohmann::json& options, const char* key) {
  auto it = options.find(key);
  return it != options.end() && it->is_boolean() && it->get<bool>();
}

}  // namespace

void add_seed_options(CLI::App& app, RunFlags& f, bool shown) {
  const std::string group = shown ? "Options" : "";
  app.add_option("--set", f.sets, "initial context value KEY=VALUE, stored as the text VALUE")->group(group);
  app.add_option("--set-json", f.set_jsons, "initial context value KEY=JSON, stored as the JSON value")->group(group);
  app.add_option("--context", f.context_file, "initial context values from a JSON object file")->group(group);
}

void add_common_options(CLI::App& app, RunFlags& f) {
  auto* simulate = app.add_flag("--simulate", f.simulate,
                                "answer every LLM stage with the deterministic simulation backend (tools still run)");
  app.add_option("--backend", f.backend,
                 "LLM backend for nodes without llm_provider/llm_model: " + builtin_providers()->choices(true) +
                     " (attractor help providers)")
      ->excludes(simulate);
  auto* approve = app.add_flag("--auto-approve", f.auto_approve, "answer every human gate with its first option");
  app.add_option("--answers", f.answers, "replay human answers from a JSON file (array, or object keyed by node)")
      ->excludes(approve);
  app.add_option("--responses", f.responses, "script simulated LLM responses per node from a JSON file");
  app.add_flag("--strict", f.strict, "treat lint warnings as errors (as graph attribute strict=true does)");
  auto* quiet = app.add_flag("--quiet,-q", f.quiet, "no progress display");
  app.add_flag("--verbose,-v", f.verbose, "more progress detail (checkpoints)")->excludes(quiet);
  app.add_flag("--json-events", f.json_events, "stream events as JSON lines on stdout");
  app.add_option("--index", f.index_dir,
                 "retrieval index directory for retrieval actions (overrides graph attribute index_dir, which is "
                 "relative to the graph file)");
  app.add_option("--max-total-tokens", f.max_total_tokens,
                 "stop before the next LLM stage once the run's model requests used N tokens (exit 4; resume with a "
                 "higher budget); overrides graph attribute max_total_tokens")
      ->check(number_at_least(0));
  app.add_option("--max-cost", f.max_cost,
                 "stop before the next LLM stage once the run cost USD (needs --prices); overrides graph attribute "
                 "max_cost")
      ->check(number_at_least(0));
  app.add_option("--prices", f.prices,
                 "price table JSON: {\"MODEL\": {\"input\": USD, \"output\": USD}} per million tokens (\"*\" for "
                 "any other model); costs appear in status files, events and the summary");
  app.add_option("--sandbox", f.sandbox,
                 "confine the commands of tool stages, hooks and the coding agent whose node sets no `sandbox`: "
                 "none, workspace or strict (docs/security.md); overrides graph attribute sandbox")
      ->check(CLI::IsMember(sandbox_level_names()));
  app.add_option("--snapshot-every", f.snapshot_every,
                 "rewrite checkpoint.json whole at least every N stages (default 0: only when the checkpoint "
                 "journal outgrows it and 64 KiB)")
      ->check(number_at_least(0));
  app.add_option("--checkpoint-rewrite-below", f.checkpoint_rewrite_below,
                 "rewrite checkpoint.json after every stage while it is at most BYTES (default 4096; 0: "
                 "append to the checkpoint journal instead)")
      ->check(number_at_least(0));
}

RunBudget run_budget(const RunFlags& f) {
  RunBudget budget;
  budget.max_total_tokens = f.max_total_tokens;
  budget.max_cost_usd = f.max_cost;
  if (!f.prices.empty()) {
    nlohmann::json j = parse_json_limited(read_input_file_or_throw(f.prices, kJsonFileRules), f.prices);
    try {
      budget.prices = PriceTable::from_json(j);
    } catch (const std::exception& e) {
      throw std::runtime_error(f.prices + ": " + e.what());
    }
  }
  return budget;
}

nlohmann::json seed_context(const RunFlags& f) {
  nlohmann::json seed = nlohmann::json::object();
  if (!f.context_file.empty()) {
    nlohmann::json j = parse_json_limited(read_input_file_or_throw(f.context_file, kJsonFileRules), f.context_file);
    if (!j.is_object()) throw std::runtime_error(f.context_file + ": expected a JSON object");
    for (const auto& [key, value] : j.items()) {
      if (std::string deep = json_depth_problem(value); !deep.empty()) {
        throw std::runtime_error(f.context_file + ": value `" + key + "` is " + deep +
                                 " (the limit of a stored value)");
      }
    }
    seed.update(j);
  }
  for (const std::string& s : f.sets) {
    auto [key, value] = key_value(s, "--set", "KEY=VALUE");
    seed[key] = value;
  }
  for (const std::string& s : f.set_jsons) {
    auto [key, text] = key_value(s, "--set-json", "KEY=JSON");
    nlohmann::json value = parse_json_or_discarded(text, kMaxValueDepth);
    if (value.is_discarded()) {
      if (parse_json_or_discarded(text, INT_MAX).is_discarded()) {
        throw std::runtime_error("--set-json " + key + ": '" + text +
                                 "' is not JSON (quote strings: --set-json 'name=\"text\"', or use --set)");
      }
      throw std::runtime_error("--set-json " + key + ": the value is nested deeper than " +
                               std::to_string(kMaxValueDepth) + " levels (the limit of a stored value)");
    }
    seed[key] = std::move(value);
  }
  return seed;
}

nlohmann::json manifest_options(const RunFlags& f) {
  return {{"backend", f.backend},
          {"simulate", f.simulate},
          {"auto_approve", f.auto_approve},
          {"answers", absolute(f.answers)},
          {"responses", absolute(f.responses)},
          {"index", absolute(f.index_dir)},
          {"strict", f.strict},
          {"max_total_tokens", f.max_total_tokens ? nlohmann::json(*f.max_total_tokens) : nlohmann::json()},
          {"max_cost", f.max_cost ? nlohmann::json(*f.max_cost) : nlohmann::json()},
          {"prices", absolute(f.prices)},
          {"snapshot_every", f.snapshot_every},
          {"checkpoint_rewrite_below", f.checkpoint_rewrite_below},
          {"sandbox", f.sandbox},
          {"sandbox_floor", f.sandbox_floor}};
}

std::vector<std::string> restore_manifest_options(const nlohmann::json& options, const CLI::App& app, RunFlags& f) {
  std::vector<std::string> restored;
  if (!options.is_object()) return restored;
  if (!given(app, "--simulate") && !given(app, "--backend")) {
    f.simulate = bool_option(options, "simulate");
    f.backend = string_option(options, "backend");
    if (f.simulate) restored.push_back("--simulate");
    if (!f.backend.empty()) restored.push_back("--backend " + f.backend);
  }
  if (!given(app, "--auto-approve") && !given(app, "--answers")) {
    f.auto_approve = bool_option(options, "auto_approve");
    f.answers = string_option(options, "answers");
    if (f.auto_approve) restored.push_back("--auto-approve");
    if (!f.answers.empty()) restored.push_back("--answers " + f.answers);
  }
  if (!given(app, "--responses")) {
    f.responses = string_option(options, "responses");
    if (!f.responses.empty()) restored.push_back("--responses " + f.responses);
  }
  if (!given(app, "--index")) {
    f.index_dir = string_option(options, "index");
    if (!f.index_dir.empty()) restored.push_back("--index " + f.index_dir);
  }
  if (!given(app, "--strict") && bool_option(options, "strict")) {
    f.strict = true;
    restored.push_back("--strict");
  }
  if (!given(app, "--max-total-tokens") && options.contains("max_total_tokens") &&
      options["max_total_tokens"].is_number_integer()) {
    f.max_total_tokens = options["max_total_tokens"].get<std::int64_t>();
    restored.push_back("--max-total-tokens " + std::to_string(*f.max_total_tokens));
  }
  if (!given(app, "--max-cost") && options.contains("max_cost") && options["max_cost"].is_number()) {
    f.max_cost = options["max_cost"].get<double>();
    restored.push_back("--max-cost " + options["max_cost"].dump());
  }
  if (!given(app, "--snapshot-every") && options.contains("snapshot_every") &&
      options["snapshot_every"].is_number_unsigned() && options["snapshot_every"].get<std::size_t>() > 0) {
    f.snapshot_every = options["snapshot_every"].get<std::size_t>();
    restored.push_back("--snapshot-every " + std::to_string(f.snapshot_every));
  }
  if (!given(app, "--checkpoint-rewrite-below") && options.contains("checkpoint_rewrite_below") &&
      options["checkpoint_rewrite_below"].is_number_unsigned() &&
      options["checkpoint_rewrite_below"].get<std::size_t>() != CheckpointWriter::kRewriteBelowBytes) {
    f.checkpoint_rewrite_below = options["checkpoint_rewrite_below"].get<std::size_t>();
    restored.push_back("--checkpoint-rewrite-below " + std::to_string(f.checkpoint_rewrite_below));
  }
  if (!given(app, "--prices")) {
    f.prices = string_option(options, "prices");
    if (!f.prices.empty()) restored.push_back("--prices " + f.prices);
  }
  if (!given(app, "--sandbox")) {
    f.sandbox = string_option(options, "sandbox");
    if (!f.sandbox.empty()) restored.push_back("--sandbox " + f.sandbox);
  }
  f.sandbox_floor = string_option(options, "sandbox_floor");
  return restored;
}

}  // namespace attractor
