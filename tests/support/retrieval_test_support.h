#pragma once
// Helpers for retrieval handler tests: a recording fake IRetrievalBackend, a graph builder, and a
// local index of tests/data/csharp_sql_repo built once per test process.

#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "attractor/model/context.h"
#include "attractor/model/graph.h"
#include "retrieval/backend.h"
#include "retrieval/indexer.h"

namespace attractor::testing {

/// Records every call; `search` returns the first `top_k` of `hits` (ranks as given),
/// `fetch_texts` the entries of `texts` for the requested ids, `expand` `expand_result`.
class RecordingBackend : public retrieval::IRetrievalBackend {
 public:
  struct FetchCall {
    std::vector<std::string> ids;
    std::string repository;
    std::string branch;
    nlohmann::json filters;
    std::optional<std::string> active_index;
  };

  retrieval::SearchResponse search(const retrieval::SearchRequest& request) override {
    searches.push_back(request);
    if (search_error) throw *search_error;
    retrieval::SearchResponse response;
    for (const auto& hit : hits) {
      if (static_cast<int>(response.hits.size()) >= request.top_k) break;
      response.hits.push_back(hit);
    }
    return response;
  }
  std::map<std::string, std::string> fetch_texts(const std::vector<std::string>& ids, const std::string& repository,
                                                 const std::string& branch, const nlohmann::json& filters,
                                                 const std::optional<std::string>& active_index) override {
    fetches.push_back({ids, repository, branch, filters, active_index});
    std::map<std::string, std::string> out = extra_texts;
    for (const auto& id : ids) {
      if (auto it = texts.find(id); it != texts.end()) out[id] = it->second;
    }
    return out;
  }
  retrieval::ExpandResult expand(const retrieval::ExpandRequest& request) override {
    expands.push_back(request);
    if (expand_error) throw *expand_error;
    return expand_result;
  }
  std::vector<retrieval::NodeInfo> describe(const std::vector<std::string>&, const std::string&, const std::string&,
                                            const nlohmann::json&, const std::optional<std::string>&) override {
    ++describes;
    return {};
  }

  std::vector<retrieval::SearchHit> hits;
  std::map<std::string, std::string> texts;
  std::map<std::string, std::string> extra_texts;  ///< returned even when not asked for
  retrieval::ExpandResult expand_result;
  std::optional<retrieval::RetrievalError> search_error;
  std::optional<retrieval::RetrievalError> expand_error;

  std::vector<retrieval::SearchRequest> searches;
  std::vector<FetchCall> fetches;
  std::vector<retrieval::ExpandRequest> expands;
  int describes = 0;
};

/// A graph with one node `id` of `type` carrying `attrs`, plus graph attributes `settings`.
inline Graph retrieval_graph(const std::string& id, const std::string& type,
                             const std::vector<std::pair<std::string, std::string>>& attrs,
                             const std::vector<std::pair<std::string, std::string>>& settings = {}) {
  Graph g;
  for (const auto& [k, v] : settings) g.data().set(k, v);
  Vertex v = g.add_node(id);
  g.node(v).set("type", type);
  for (const auto& [k, value] : attrs) g.node(v).set(k, value);
  return g;
}

/// A context with repository "acme", branch "main" and the given extra keys.
inline Context retrieval_context(const nlohmann::json& extra = nlohmann::json::object()) {
  Context c;
  c.set("repository", "acme");
  c.set("branch", "main");
  for (auto it = extra.begin(); it != extra.end(); ++it) c.set(it.key(), it.value());
  return c;
}

/// The index of tests/data/csharp_sql_repo (repository acme, branch main, snapshot s1, its ACL
/// file, lexical embedder), built on first use and removed at process exit.
class LocalRepoIndex {
 public:
  static const std::string& dir() {
    static LocalRepoIndex index;
    return index.dir_;
  }
  ~LocalRepoIndex() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

 private:
  LocalRepoIndex() {
    std::random_device rd;
    dir_ = (std::filesystem::temp_directory_path() / ("attractor-hidx-" + std::to_string(rd()) + std::to_string(rd())))
               .string();
    std::string repo = std::string(ATTRACTOR_SOURCE_DIR) + "/tests/data/csharp_sql_repo";
    retrieval::IndexOptions o;
    o.src_dir = repo;
    o.index_dir = dir_;
    o.repository = "acme";
    o.branch = "main";
    o.snapshot = "s1";
    o.acl_file = repo + "/acl.json";
    retrieval::index_repository(o);
  }
  std::string dir_;
};

}  // namespace attractor::testing
