// bench/retrieval: see CMakeLists.txt. Prints one report; all numbers come from this run.

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "percentile.h"
#include "repo_generator.h"
#include "retrieval/local/code_tokens.h"
#include "retrieval/local/index_store.h"
#include "retrieval/local/local_indexer.h"
#include "retrieval/local/lexical_embedder.h"
#include "retrieval/local/local_backend.h"
#include "retrieval/local/vector_sync.h"
#include "retrieval/local/vector_index.h"

namespace fs = std::filesystem;
using namespace attractor::retrieval;
using attractor::bench::percentile;
using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

long peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Labelled {
  std::string query;
  std::set<std::string> relevant;
};

double recall_at_10(LocalBackend& backend, SearchType type, const std::vector<Labelled>& labelled) {
  double total = 0;
  for (const auto& l : labelled) {
    SearchRequest r{type, l.query, 10, "bench", "main", nlohmann::json::object(), std::nullopt, std::nullopt, 60};
    size_t found = 0;
    for (const auto& h : backend.search(r).hits) found += l.relevant.count(h.id);
    total += static_cast<double>(found) / static_cast<double>(l.relevant.size());
  }
  return total / static_cast<double>(labelled.size());
}

}  // namespace

int main(int argc, char** argv) {
  int files = 5000, queries = 200;
  std::string vector_kind = "flat", keep;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--files" && i + 1 < argc) files = std::atoi(argv[++i]);
    else if (a == "--queries" && i + 1 < argc) queries = std::atoi(argv[++i]);
    else if (a == "--vector-index" && i + 1 < argc) vector_kind = argv[++i];
    else if (a == "--keep" && i + 1 < argc) keep = argv[++i];
    else {
      std::fprintf(stderr,
                   "usage: retrieval_bench [--files N] [--queries N] [--vector-index flat|hnsw] [--keep DIR]\n");
      return 2;
    }
  }
  fs::path work = keep.empty()
                      ? fs::temp_directory_path() / fmt::format("attractor-retrieval-bench-{}", std::random_device{}())
                      : fs::path(keep);
  fs::remove_all(work);
  fs::path src = work / "repo", index = work / "index";
  const fs::path labelled_repo = fs::path(ATTRACTOR_SOURCE_DIR) / "tests/data/csharp_sql_repo";

  auto t0 = Clock::now();
  auto generated_queries = attractor::bench::generate_repository(src.string(), files, queries);
  fs::copy(labelled_repo, src / "acme", fs::copy_options::recursive);
  double gen_ms = ms_since(t0);
  long rss_before = peak_rss_mib();

  IndexOptions o;
  o.src_dir = src.string();
  o.index_dir = index.string();
  o.repository = "bench";
  o.branch = "main";
  o.vector_kind = vector_kind;
  t0 = Clock::now();
  auto summary = run_local_indexer(o);
  double index_s = ms_since(t0) / 1000.0;
  long rss_after = peak_rss_mib();
  t0 = Clock::now();
  auto again = run_local_indexer(o);
  double reindex_s = ms_since(t0) / 1000.0;

  int64_t nodes = 0, edges = 0;
  for (const auto& [k, v] : summary.nodes_by_kind) nodes += v;
  for (const auto& [k, v] : summary.edges_by_type) edges += v;
  std::printf(
      "retrieval bench: %lld files (%d generated + labelled repo), %lld nodes, %lld edges, vectors %s/lexical-256\n",
      static_cast<long long>(summary.files_seen), files, static_cast<long long>(nodes), static_cast<long long>(edges),
      vector_kind.c_str());
  std::printf("generate: %.0f ms\n", gen_ms);
  std::printf("index build: %.2f s (%.0f files/s), peak RSS %ld MiB (before indexing %ld MiB), index size %.1f MiB\n",
              index_s, static_cast<double>(summary.files_seen) / index_s, rss_after, rss_before,
              static_cast<double>(summary.index_bytes) / (1024.0 * 1024.0));
  std::printf("re-index, nothing changed: %.2f s (%lld files unchanged)\n", reindex_s,
              static_cast<long long>(again.files_unchanged));

  LocalBackend backend(index.string());
  std::vector<std::string> qs = generated_queries;
  auto labelled_json = nlohmann::json::parse(slurp(labelled_repo / "queries.json"));
  std::vector<Labelled> labelled;
  for (const auto& l : labelled_json) {
    labelled.push_back({l["query"], l["relevant"].get<std::set<std::string>>()});
    qs.push_back(l["query"]);
  }

  std::printf("\nquery latency, top_k 10, %zu queries (ms)      p50      p99\n", qs.size());
  for (auto type : {SearchType::kBm25, SearchType::kSemantic, SearchType::kHybrid}) {
    std::vector<double> lat;
    SearchRequest warm{type, qs[0], 10, "bench", "main", nlohmann::json::object(), std::nullopt, std::nullopt, 60};
    backend.search(warm);
    for (const auto& q : qs) {
      SearchRequest r{type, q, 10, "bench", "main", nlohmann::json::object(), std::nullopt, std::nullopt, 60};
      auto t = Clock::now();
      backend.search(r);
      lat.push_back(ms_since(t));
    }
    std::printf("  %-40s %8.3f %8.3f\n", fmt::format("backend {}", to_string(type)).c_str(), percentile(lat, 50),
                percentile(lat, 99));
  }

  IndexStore store(index.string(), false);
  {
    auto stmt = store.db().prepare("SELECT rowid FROM nodes_fts WHERE nodes_fts MATCH ? ORDER BY rank LIMIT 10");
    std::vector<double> lat;
    for (const auto& q : qs) {
      auto expr = fts_match_expression(q, MatchOperator::kOr);
      auto t = Clock::now();
      stmt.bind(1, expr);
      while (stmt.step()) {
      }
      stmt.reset();
      lat.push_back(ms_since(t));
    }
    std::printf("  %-40s %8.3f %8.3f\n", "floor: bare FTS5 MATCH ... LIMIT 10", percentile(lat, 50),
                percentile(lat, 99));
  }
  {
    auto vectors = load_vectors(store, "default");
    LexicalEmbedder embedder(256);
    std::vector<double> lat, embed_lat;
    for (const auto& q : qs) {
      auto t = Clock::now();
      auto v = embedder.embed_one(q);
      embed_lat.push_back(ms_since(t));
      t = Clock::now();
      vectors.search(v, 10, nullptr);
      lat.push_back(ms_since(t));
    }
    std::printf("  %-40s %8.3f %8.3f\n", "floor: bare FAISS search k=10", percentile(lat, 50), percentile(lat, 99));
    std::printf("  %-40s %8.3f %8.3f\n", "(query embedding, lexical)", percentile(embed_lat, 50),
                percentile(embed_lat, 99));
  }

  std::printf("\nRecall@10 on %zu labelled queries (tests/data/csharp_sql_repo/queries.json) inside this index\n",
              labelled.size());
  for (auto type : {SearchType::kBm25, SearchType::kSemantic, SearchType::kHybrid}) {
    std::printf("  %-8s %.3f\n", std::string(to_string(type)).c_str(), recall_at_10(backend, type, labelled));
  }
  if (keep.empty()) fs::remove_all(work);
  return 0;
}
