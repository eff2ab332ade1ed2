// `attractor resume` on damaged run directories: every case is refused with exit 2 and a message
// naming the file and the problem, and the checkpoint on disk (snapshot and journal) is left
// byte-for-byte as it was.
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attractor/run/checkpoint_journal.h"
#include "attractor/run/posix_run_disk.h"
#include "support/hardening_support.h"

namespace attractor::hardening {
namespace {

namespace fs = std::filesystem;

struct Corruption {
  std::string name;
  std::function<void(const std::string& run_dir, const std::string& graph)> apply;
  std::string message;  ///< expected in stderr; RUN stands for the run directory
};

/// Folds the journal into the snapshot (as a compaction would), then edits the snapshot: the
/// damage must be in `checkpoint.json`, not hidden under records replayed after it.
void edit_checkpoint(const std::string& run_dir, const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json j = read_checkpoint_document(run_dir, posix_run_disk());
  fs::remove(run_dir + "/" + std::string(kCheckpointJournalFile));
  edit(j);
  spit(run_dir + "/checkpoint.json", j.dump());
}

/// Appends a record with a valid checksum after the journal's last one.
void append_journal_record(const std::string& run_dir, const std::string& delta) {
  const std::string journal = run_dir + "/" + std::string(kCheckpointJournalFile);
  const std::uint64_t seq = read_checkpoint_document(run_dir, posix_run_disk())["journal_seq"].get<std::uint64_t>();
  spit(journal, slurp(journal) + encode_journal_record(seq + 1, delta));
}

std::string slurp_if_exists(const std::string& path) { return fs::exists(path) ? slurp(path) : std::string("<none>"); }

std::vector<Corruption> corruptions() {
  return {
      {"truncated_checkpoint",
       [](const std::string& run, const std::string&) {
         std::string text = slurp(run + "/checkpoint.json");
         spit(run + "/checkpoint.json", text.substr(0, text.size() / 2));
       },
       "attractor resume: RUN/checkpoint.json is not valid JSON: parse error at line 1, column "},
      {"empty_checkpoint", [](const std::string& run, const std::string&) { spit(run + "/checkpoint.json", ""); },
       "attractor resume: RUN/checkpoint.json: file is empty (expected a JSON file)"},
      {"binary_checkpoint",
       [](const std::string& run, const std::string&) {
         spit(run + "/checkpoint.json", std::string("\x00\xff\x13", 3));
       },
       "attractor resume: RUN/checkpoint.json:1:1: binary file: NUL byte (expected a JSON file)"},
      {"checkpoint_not_an_object",
       [](const std::string& run, const std::string&) { spit(run + "/checkpoint.json", "[1,2]"); },
       "attractor resume: RUN/checkpoint.json: checkpoint is not a JSON object"},
      {"checkpoint_wrong_type",
       [](const std::string& run, const std::string&) {
         edit_checkpoint(run, [](nlohmann::json& j) { j["completed_nodes"] = 5; });
       },
       "attractor resume: RUN/checkpoint.json: `completed_nodes` must be an array of strings, found a number"},
      // Issue 42 point 6: a one-byte change of a member name used to resume with an empty context.
      {"checkpoint_member_renamed",
       [](const std::string& run, const std::string&) {
         edit_checkpoint(run, [](nlohmann::json&) {});
         std::string text = slurp(run + "/checkpoint.json");
         text.replace(text.find("\"context\":"), 10, "\"?ontext\":");
         spit(run + "/checkpoint.json", text);
       },
       "attractor resume: RUN/checkpoint.json: unknown member `?ontext`"},
      {"checkpoint_context_value_too_deep",
       [](const std::string& run, const std::string&) {
         edit_checkpoint(run, [](nlohmann::json& j) {
           j["context"]["deep"] = nlohmann::json::parse(std::string(201, '[') + std::string(201, ']'));
         });
       },
       "attractor resume: RUN/checkpoint.json: `context.deep` is nested deeper than 200 levels"},
      {"checkpoint_log_not_a_string",
       [](const std::string& run, const std::string&) {
         edit_checkpoint(run, [](nlohmann::json& j) { j["logs"].push_back(7); });
       },
       "attractor resume: RUN/checkpoint.json: `logs[*]` must be a string, found a number"},
      {"checkpoint_bad_outcome",
       [](const std::string& run, const std::string&) {
         edit_checkpoint(run, [](nlohmann::json& j) { j["node_outcomes"]["prep"] = {{"status", "exploded"}}; });
       },
       "attractor resume: RUN/checkpoint.json: unknown outcome \"exploded\""},
      {"checkpoint_deeply_nested",
       [](const std::string& run, const std::string&) {
         std::string text = slurp(run + "/checkpoint.json");
         text.insert(1, "\"deep\":" + std::string(100000, '[') + std::string(100000, ']') + ",");
         spit(run + "/checkpoint.json", text);
       },
       "attractor resume: RUN/checkpoint.json is not valid JSON: nested deeper than 256 levels"},
      {"checkpoint_missing", [](const std::string& run, const std::string&) { fs::remove(run + "/checkpoint.json"); },
       "attractor resume: RUN/checkpoint.json: no such file"},
      {"manifest_missing", [](const std::string& run, const std::string&) { fs::remove(run + "/manifest.json"); },
       "attractor resume: RUN: not a run directory (no manifest.json)"},
      {"manifest_invalid",
       [](const std::string& run, const std::string&) { spit(run + "/manifest.json", "{\"name\":"); },
       "attractor resume: RUN/manifest.json is not valid JSON"},
      {"manifest_wrong_type",
       [](const std::string& run, const std::string&) { spit(run + "/manifest.json", "{\"graph_path\": 7}"); },
       "attractor resume: RUN/manifest.json: malformed manifest: [json.exception.type_error.302] type must be string, "
       "but is number"},
      {"graph_deleted", [](const std::string&, const std::string& graph) { fs::rename(graph, graph + ".gone"); },
       "attractor resume: graph file 'GRAPH' not found"},
      {"graph_changed",
       [](const std::string&, const std::string& graph) { spit(graph, slurp(graph) + "\n// edited\n"); },
       "attractor resume: GRAPH changed since the run started (sha256 "},
      {"unknown_next_node",
       [](const std::string& run, const std::string&) {
         edit_checkpoint(run, [](nlohmann::json& j) { j["next_node"] = "ghost"; });
       },
       "attractor resume: RUN/checkpoint.json: checkpoint next_node names node \"ghost\", which is not in graph "
       "\"kill_resume\""},
      {"unknown_current_node",
       [](const std::string& run, const std::string&) {
         edit_checkpoint(run, [](nlohmann::json& j) { j["current_node"] = "phantom"; });
       },
       "attractor resume: RUN/checkpoint.json: checkpoint current_node names node \"phantom\", which is not in graph "
       "\"kill_resume\""},
      {"unknown_completed_node",
       [](const std::string& run, const std::string&) {
         edit_checkpoint(run, [](nlohmann::json& j) { j["completed_nodes"].push_back("removed_step"); });
       },
       "attractor resume: RUN/checkpoint.json: checkpoint completed_nodes names node \"removed_step\", which is not "
       "in graph \"kill_resume\""},
      {"unknown_visit_count",
       [](const std::string& run, const std::string&) {
         edit_checkpoint(run, [](nlohmann::json& j) { j["visit_counts"]["old_node"] = 2; });
       },
       "attractor resume: RUN/checkpoint.json: checkpoint visit_counts names node \"old_node\", which is not in graph "
       "\"kill_resume\""},
      {"journal_record_of_the_wrong_kind",
       [](const std::string& run, const std::string&) {
         append_journal_record(run, R"({"append":{"context":["x"]}})");
       },
       "attractor resume: RUN/checkpoint.journal: record * (byte *): unknown member `append.context`"},
      // Issue 42 point 6: a record with a valid checksum used to replace the context with an array.
      {"journal_record_sets_context_to_an_array",
       [](const std::string& run, const std::string&) { append_journal_record(run, R"({"set":{"context":[1,2]}})"); },
       "attractor resume: RUN/checkpoint.journal: record * (byte *): `set.context` must be an object, found an array"},
      {"journal_record_of_an_unknown_part",
       [](const std::string& run, const std::string&) { append_journal_record(run, R"({"sett":{"state":"fail"}})"); },
       "attractor resume: RUN/checkpoint.journal: record * (byte *): unknown member `sett`"},
      {"journal_record_with_a_wrong_count",
       [](const std::string& run, const std::string&) {
         append_journal_record(run, R"({"merge":{"visit_counts":{"prep":"two"}}})");
       },
       "attractor resume: RUN/checkpoint.journal: record * (byte *): `merge.visit_counts.prep` must be an integer, "
       "found a string"},
      // Issue 42 point 4: such a record (valid checksum) crashed `resume` with a stack overflow.
      {"journal_record_nested_deeply",
       [](const std::string& run, const std::string&) {
         append_journal_record(
             run, "{\"merge\":{\"context\":{\"x\":" + std::string(100000, '[') + std::string(100000, ']') + "}}}");
       },
       "attractor resume: RUN/checkpoint.journal: record * (byte *): the record is not valid JSON: nested deeper "
       "than 256 levels"},
      {"journal_record_not_json",
       [](const std::string& run, const std::string&) { append_journal_record(run, "{\"set\":"); },
       "attractor resume: RUN/checkpoint.journal: record * (byte *): the record is not valid JSON: parse error"},
      {"journal_names_an_unknown_node",
       [](const std::string& run, const std::string&) {
         append_journal_record(run, R"({"append":{"completed_nodes":["removed_step"]}})");
       },
       "checkpoint completed_nodes names node \"removed_step\", which is not in graph \"kill_resume\""},
      {"invalid_state",
       [](const std::string& run, const std::string&) {
         edit_checkpoint(run, [](nlohmann::json& j) { j["state"] = "exploded"; });
       },
       "attractor resume: RUN/checkpoint.json: checkpoint state \"exploded\" is not one of running, success, fail"},
  };
}

/// Whether `text` contains `pattern`, where each `*` in the pattern stands for any text.
bool contains_pattern(const std::string& text, const std::string& pattern) {
  std::vector<std::string> parts;
  for (std::size_t start = 0;;) {
    const std::size_t star = pattern.find('*', start);
    parts.push_back(pattern.substr(start, star == std::string::npos ? std::string::npos : star - start));
    if (star == std::string::npos) break;
    start = star + 1;
  }
  for (std::size_t from = text.find(parts[0]); from != std::string::npos; from = text.find(parts[0], from + 1)) {
    std::size_t at = from + parts[0].size();
    bool all = true;
    for (std::size_t i = 1; i < parts.size() && all; ++i) {
      const std::size_t found = text.find(parts[i], at);
      const std::size_t line_end = text.find('\n', at);
      all = found != std::string::npos && (line_end == std::string::npos || found <= line_end);
      if (all) at = found + parts[i].size();
    }
    if (all) return true;
  }
  return false;
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t p = text.find(from); p != std::string::npos; p = text.find(from, p + to.size())) {
    text.replace(p, from.size(), to);
  }
  return text;
}

TEST(CorruptRunDirTest, ResumeRefusesWithExitTwoAndLeavesTheCheckpointUntouched) {
  ScratchDir dir;
  const std::string graph = dir.sub("kill_resume.dot");
  const std::string original_graph = slurp(std::string(ATTRACTOR_SOURCE_DIR) + "/tests/data/engine/kill_resume.dot");
  spit(graph, original_graph);
  const std::string pristine = dir.sub("pristine");
  ProcessResult killed = run_program(
      {ATTRACTOR_FAULT_BINARY_PATH, "kill", "5", "run", graph, "--simulate", "--logs-root", pristine, "-q"});
  ASSERT_EQ(killed.signal, SIGKILL) << killed.err;

  for (const Corruption& c : corruptions()) {
    SCOPED_TRACE(c.name);
    const std::string run = dir.sub(c.name);
    fs::copy(pristine, run, fs::copy_options::recursive);
    c.apply(run, graph);
    const bool had_checkpoint = fs::exists(run + "/checkpoint.json");
    const std::string before = had_checkpoint ? slurp(run + "/checkpoint.json") : "";
    const std::string journal = run + "/" + std::string(kCheckpointJournalFile);
    const std::string journal_before = slurp_if_exists(journal);

    ProcessResult resumed = run_attractor({"resume", run, "-q"});
    EXPECT_EQ(resumed.exit_code, 2) << resumed.err;
    std::string expected = replace_all(replace_all(c.message, "RUN", run), "GRAPH", graph);
    EXPECT_TRUE(contains_pattern(resumed.err, expected)) << "expected: " << expected << "\nstderr: " << resumed.err;
    EXPECT_EQ(fs::exists(run + "/checkpoint.json"), had_checkpoint);
    if (had_checkpoint) EXPECT_EQ(slurp(run + "/checkpoint.json"), before);
    EXPECT_EQ(slurp_if_exists(journal), journal_before);
    EXPECT_FALSE(fs::exists(run + "/checkpoint.json.tmp"));

    if (fs::exists(graph + ".gone")) fs::rename(graph + ".gone", graph);
    spit(graph, original_graph);
  }

  // The killed run stopped between snapshots: its last stages are only in the journal.
  ASSERT_TRUE(fs::exists(pristine + "/" + std::string(kCheckpointJournalFile)));
  // The untouched copy still resumes to the end.
  ProcessResult resumed = run_attractor({"resume", pristine, "-q"});
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
}

TEST(CorruptRunDirTest, ResumeOfANonDirectoryIsRefused) {
  ScratchDir dir;
  ProcessResult resumed = run_attractor({"resume", dir.sub("nothing-here"), "-q"});
  EXPECT_EQ(resumed.exit_code, 2);
  EXPECT_EQ(resumed.err, "attractor resume: " + dir.sub("nothing-here") + ": no such directory\n");
}

}  // namespace
}  // namespace attractor::hardening
