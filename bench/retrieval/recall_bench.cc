// bench/retrieval/recall_bench: Recall@10 of hand-labelled questions (and recall of hand-checked
// dependency chains) against an index of a real repository, through the backend API the pipeline uses
// (make_local_backend("local", ...) -> search / expand). See CMakeLists.txt and recall.sh.
//
// Usage: recall_bench [--verbose] [--json] [--split NAME] INDEX_DIR REPOSITORY QUESTIONS.json [CHAINS.json]
//   QUESTIONS.json  [{"query": "...", "relevant": ["<node id>", ...], "style": "plain"|"named",
//                     "split": "dev"|"test"}]   (--split keeps only the questions of that split)
//   CHAINS.json     [{"seed": "<id>", "reachable": ["<id>", ...], "note": "..."}]
// Prints Recall@10 per search type (bm25, semantic, hybrid), overall and split by style, and the hit
// rates at 5 and 10 (a question is a hit when any of its relevant ids is in the top k); for chains,
// the recall of `reachable` from expand (all edge types, outgoing, depth 3). --verbose lists the
// misses of every question and chain. --json adds one machine-readable line at the end ("JSON {...}").

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "percentile.h"
#include "retrieval/backend.h"
#include "retrieval/local/local_backend.h"
#include "retrieval/edge_types.h"

using namespace attractor::retrieval;
using attractor::bench::percentile;

namespace {

constexpr int kTopK = 10;
constexpr int kChainDepth = 3;
constexpr int kChainMaxNodes = 100000;

struct Question {
  std::string query;
  std::vector<std::string> relevant;
  std::string style;
  std::string split;
};

struct Chain {
  std::string seed;
  std::vector<std::string> reachable;
  std::string note;
};

nlohmann::json load_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::stringstream s;
  s << in.rdbuf();
  return nlohmann::json::parse(s.str());
}

int usage() {
  std::fprintf(
      stderr,
      "usage: recall_bench [--verbose] [--json] [--split NAME] INDEX_DIR REPOSITORY QUESTIONS.json [CHAINS.json]\n");
  return 2;
}

struct Mean {
  double sum = 0;
  int n = 0;
  void add(double v) {
    sum += v;
    ++n;
  }
  double value() const { return n ? sum / n : 0.0; }
};

}  // namespace

int main(int argc, char** argv) {
  bool verbose = false, json_out = false;
  std::string only_split;
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--verbose" || a == "-v") verbose = true;
    else if (a == "--json") json_out = true;
    else if (a == "--split" && i + 1 < argc) only_split = argv[++i];
    else if (!a.empty() && a[0] == '-') return usage();
    else args.push_back(a);
  }
  if (args.size() < 3 || args.size() > 4) return usage();
  const std::string index_dir = args[0], repository = args[1], branch = "main";

  try {
    auto backend = make_local_backend("local", index_dir);

    std::vector<Question> questions;
    for (const auto& q : load_json(args[2])) {
      Question question{q.at("query").get<std::string>(), q.at("relevant").get<std::vector<std::string>>(),
                        q.value("style", std::string("named")), q.value("split", std::string())};
      if (question.relevant.empty()) throw std::runtime_error("question without relevant ids: " + question.query);
      if (only_split.empty() || question.split == only_split) questions.push_back(std::move(question));
    }

    // Labels must name nodes that exist in the index, otherwise the recall is meaningless.
    std::set<std::string> all_ids;
    for (const auto& q : questions) all_ids.insert(q.relevant.begin(), q.relevant.end());
    std::vector<Chain> chains;
    if (args.size() == 4) {
      for (const auto& c : load_json(args[3])) {
        chains.push_back({c.at("seed").get<std::string>(), c.at("reachable").get<std::vector<std::string>>(),
                          c.value("note", std::string())});
        all_ids.insert(chains.back().seed);
        all_ids.insert(chains.back().reachable.begin(), chains.back().reachable.end());
      }
    }
    std::vector<std::string> id_list(all_ids.begin(), all_ids.end());
    std::set<std::string> known;
    for (const auto& info : backend->describe(id_list, repository, branch, nlohmann::json::object(), std::nullopt)) {
      known.insert(info.id);
    }
    int unknown = 0;
    for (const auto& id : id_list) {
      if (!known.count(id)) {
        std::fprintf(stderr, "warning: labelled id not in index: %s\n", id.c_str());
        ++unknown;
      }
    }

    const SearchType types[] = {SearchType::kBm25, SearchType::kSemantic, SearchType::kHybrid};
    // type -> style ("all", "plain", "named") -> mean recall
    std::map<std::string, std::map<std::string, Mean>> recall;
    std::map<std::string, Mean> hit5, hit10;  // type -> share of questions with a relevant id in the top k
    std::map<std::string, std::vector<std::string>> miss_lines;  // type -> lines
    std::map<std::string, std::vector<double>> latency_ms;       // type -> one per question
    for (auto type : types) {
      std::string tname(to_string(type));
      for (size_t qi = 0; qi < questions.size(); ++qi) {
        const auto& q = questions[qi];
        SearchRequest request;
        request.search_type = type;
        request.query = q.query;
        request.top_k = kTopK;
        request.repository = repository;
        request.branch = branch;
        auto started = std::chrono::steady_clock::now();
        auto response = backend->search(request);
        latency_ms[tname].push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count());
        std::set<std::string> top;
        for (const auto& hit : response.hits) top.insert(hit.id);
        std::set<std::string> relevant(q.relevant.begin(), q.relevant.end());
        int first = 0;  // 1-based rank of the first relevant hit, 0 for none
        for (size_t h = 0; h < response.hits.size() && first == 0; ++h) {
          if (relevant.count(response.hits[h].id)) first = static_cast<int>(h) + 1;
        }
        hit5[tname].add(first >= 1 && first <= 5 ? 1.0 : 0.0);
        hit10[tname].add(first >= 1 ? 1.0 : 0.0);
        size_t found = 0;
        std::vector<std::string> missed;
        for (const auto& id : relevant) {
          if (top.count(id)) ++found;
          else missed.push_back(id);
        }
        double r = static_cast<double>(found) / static_cast<double>(relevant.size());
        recall[tname]["all"].add(r);
        recall[tname][q.style].add(r);
        if (!missed.empty()) {
          std::string line = "  [" + tname + "] q" + std::to_string(qi + 1) + " (" + q.style + ", recall " +
                             std::to_string(r).substr(0, 4) + ") \"" + q.query + "\"\n";
          for (const auto& m : missed) line += "      missed: " + m + "\n";
          line += "      top10:";
          for (const auto& hit : response.hits) line += "\n        " + std::to_string(hit.rank) + ". " + hit.id;
          line += "\n";
          miss_lines[tname].push_back(line);
        }
      }
    }

    int plain = 0, named = 0;
    for (const auto& q : questions) (q.style == "plain" ? plain : named)++;
    std::printf("recall_bench: %s (repository %s), %zu questions (%d plain, %d named)%s\n", index_dir.c_str(),
                repository.c_str(), questions.size(), plain, named,
                unknown ? (", " + std::to_string(unknown) + " labelled ids NOT in the index").c_str() : "");
    std::printf("Recall@%d      all   plain   named   hit@5  hit@10\n", kTopK);
    nlohmann::json summary = {{"repository", repository}, {"questions", questions.size()}};
    for (auto type : types) {
      std::string tname(to_string(type));
      auto& m = recall[tname];
      std::printf("  %-8s  %.3f   %.3f   %.3f   %.3f  %.3f\n", tname.c_str(), m["all"].value(), m["plain"].value(),
                  m["named"].value(), hit5[tname].value(), hit10[tname].value());
      summary["recall"][tname] = {
          {"all", m["all"].value()}, {"plain", m["plain"].value()}, {"named", m["named"].value()}};
      summary["hit"][tname] = {{"at5", hit5[tname].value()}, {"at10", hit10[tname].value()}};
    }
    std::printf("latency (ms, in process, first query of a type included)   p50      p95\n");
    for (auto type : types) {
      std::string tname(to_string(type));
      std::printf("  %-8s                                               %7.2f  %7.2f\n", tname.c_str(),
                  percentile(latency_ms[tname], 50), percentile(latency_ms[tname], 95));
      summary["latency_ms"][tname] = {{"p50", percentile(latency_ms[tname], 50)},
                                      {"p95", percentile(latency_ms[tname], 95)}};
    }

    if (!chains.empty()) {
      namespace et = edge_type;
      ExpandRequest base;
      base.edge_allowlist = {et::kContains, et::kInherits, et::kImplements, et::kCalls,    et::kUsesType,
                             et::kReads,    et::kWrites,   et::kReferences, et::kExecutes, et::kMapsTo};
      base.max_depth = kChainDepth;
      base.max_nodes = kChainMaxNodes;
      base.repository = repository;
      base.branch = branch;
      Mean chain_recall;
      size_t total_targets = 0, total_found = 0;
      int complete = 0;
      std::vector<std::string> chain_misses;
      for (size_t ci = 0; ci < chains.size(); ++ci) {
        const auto& c = chains[ci];
        ExpandRequest request = base;
        request.seed_ids = {c.seed};
        auto result = backend->expand(request);
        std::set<std::string> reached;
        for (const auto& n : result.nodes) reached.insert(n.id);
        size_t found = 0;
        std::vector<std::string> missed;
        for (const auto& id : c.reachable) {
          if (reached.count(id)) ++found;
          else missed.push_back(id);
        }
        double r = c.reachable.empty() ? 1.0 : static_cast<double>(found) / static_cast<double>(c.reachable.size());
        chain_recall.add(r);
        total_targets += c.reachable.size();
        total_found += found;
        if (missed.empty()) ++complete;
        else {
          std::string line = "  chain" + std::to_string(ci + 1) + " seed " + c.seed + " (recall " +
                             std::to_string(r).substr(0, 4) + ", " + std::to_string(result.nodes.size()) +
                             " nodes reached" + (result.truncated ? ", TRUNCATED" : "") + ")\n";
          if (!c.note.empty()) line += "      note: " + c.note + "\n";
          for (const auto& m : missed) line += "      missed: " + m + "\n";
          chain_misses.push_back(line);
        }
      }
      std::printf(
          "chains (expand, all edge types outgoing, depth %d): %zu chains, mean recall %.3f, "
          "%zu/%zu targets reached (%.3f), %d chains complete\n",
          kChainDepth, chains.size(), chain_recall.value(), total_found, total_targets,
          total_targets ? static_cast<double>(total_found) / static_cast<double>(total_targets) : 0.0, complete);
      summary["chains"] = {{"count", chains.size()},
                           {"mean_recall", chain_recall.value()},
                           {"targets", total_targets},
                           {"found", total_found},
                           {"complete", complete}};
      if (verbose && !chain_misses.empty()) {
        std::printf("\nchain misses:\n");
        for (const auto& l : chain_misses) std::printf("%s", l.c_str());
      }
    }

    if (verbose) {
      for (auto type : types) {
        std::string tname(to_string(type));
        std::printf("\nmisses, %s (%zu questions with a miss):\n", tname.c_str(), miss_lines[tname].size());
        for (const auto& l : miss_lines[tname]) std::printf("%s", l.c_str());
      }
    }
    if (json_out) std::printf("JSON %s\n", summary.dump().c_str());
    return unknown ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "recall_bench: %s\n", e.what());
    return 1;
  }
}
