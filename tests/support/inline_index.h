#pragma once
// A repository written file by file into a temporary folder, indexed by the local indexer as
// repository "r", branch "main", and searched through the local backend: the fixture of ranking
// tests whose few files are clearer inline than under tests/data.

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "retrieval/local/local_backend.h"
#include "retrieval/local/local_indexer.h"
#include "support/temp_dir.h"

namespace attractor::retrieval::testing {

class InlineIndex {
 public:
  /// Writes `text` to `rel` under the source folder (parents made).
  void write(const std::string& rel, const std::string& text) const {
    std::filesystem::path p = src_.path() / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }

  /// Indexes what was written.
  void build() const {
    IndexOptions o;
    o.src_dir = src_.str();
    o.index_dir = index_.str();
    o.repository = "r";
    o.branch = "main";
    run_local_indexer(o);
  }

  /// Searches through a backend made with `options` (default: the system's WordNet, when present).
  SearchResponse search(const std::string& query, SearchType type, int top_k, LocalBackendOptions options = {}) const {
    LocalBackend backend(index_.str(), std::move(options));
    SearchRequest r;
    r.search_type = type;
    r.query = query;
    r.top_k = top_k;
    r.repository = "r";
    r.branch = "main";
    return backend.search(r);
  }

  /// The index folder, for tests that make their own backend.
  std::string index_dir() const { return index_.str(); }

  /// The ids of search's hits, best first.
  std::vector<std::string> ids(const std::string& query, SearchType type, int top_k,
                               LocalBackendOptions options = {}) const {
    std::vector<std::string> out;
    for (const auto& h : search(query, type, top_k, std::move(options)).hits) out.push_back(h.id);
    return out;
  }

 private:
  TempDir src_, index_;
};

}  // namespace attractor::retrieval::testing
