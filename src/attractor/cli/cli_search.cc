// `attractor search`: queries a local index the way the retrieval pipeline will see it.

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "attractor/launch/flag_checks.h"
#include "attractor/base/json_limits.h"
#include "attractor/cli/cli.h"
#include "attractor/cli/cli_support.h"
#include "retrieval/backend.h"

namespace attractor {

namespace rt = ::attractor::retrieval;

int run_search_command(int argc, char** argv) {
  CLI::App app{
      "Search a local code index: prints ranked node ids, scores, paths and line ranges "
      "(JSON with --json). Filters are enforced exactly as in the pipeline. Exit 2 on usage errors "
      "(bad filters, empty query), 3 when the index or the repository/branch is missing."};
  app.name("attractor search");
  std::string index_dir, repository, branch, type = "hybrid", filters_text = "{}", active_index, match_operator;
  int top_k = 10, rrf_k = 60;
  bool as_json = false;
  std::vector<std::string> words;
  app.add_option("--index", index_dir, "index directory written by `attractor index`")->required();
  app.add_option("--repository", repository, "repository name")->required();
  app.add_option("--branch", branch, "branch name")->required();
  app.add_option("--type", type, "bm25, semantic or hybrid (default)")
      ->check(CLI::IsMember({"bm25", "semantic", "hybrid"}));
  app.add_option("--top-k", top_k, "number of hits (default 10)")->check(positive_number());
  app.add_option("--filters", filters_text,
                 "retrieval filters as a JSON object: acl_tags_any, classification_labels_all, snapshot_id, "
                 "language, kind, data_type, tenant, ...");
  app.add_option("--active-index", active_index, "named index (default: default)");
  app.add_option("--match-operator", match_operator, "bm25 term combination: and | or (default or)")
      ->check(CLI::IsMember({"and", "or"}));
  app.add_option("--rrf-k", rrf_k, "hybrid RRF constant (default 60)")->check(positive_number());
  app.add_flag("--json", as_json, "print JSON");
  app.add_option("QUERY", words, "query text")->required();
  if (auto code = parse_cli(app, argc, argv)) return *code;
  if (auto code = check_index_directory("attractor search", index_dir)) return *code;

  rt::SearchRequest request;
  request.search_type = *rt::parse_search_type(type);
  for (const auto& w : words) request.query += (request.query.empty() ? "" : " ") + w;
  request.top_k = top_k;
  request.repository = repository;
  request.branch = branch;
  request.rrf_k = rrf_k;
  if (!active_index.empty()) request.active_index = active_index;
  if (!match_operator.empty()) request.match_operator = rt::parse_match_operator(match_operator);
  try {
    request.retrieval_filters = parse_json_limited(filters_text, "--filters");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attractor search: error: %s\n", e.what());
    return kExitUsage;
  }
  try {
    auto backend = rt::make_retrieval_backend("local", index_dir);
    auto response = backend->search(request);
    std::vector<std::string> ids;
    for (const auto& h : response.hits) ids.push_back(h.id);
    auto infos = backend->describe(ids, repository, branch, request.retrieval_filters, request.active_index);
    std::map<std::string, rt::NodeInfo> info_of;
    for (auto& i : infos) info_of[i.id] = i;
    if (as_json) {
      nlohmann::json out = {{"search_type", type}, {"query", request.query}, {"top_k", top_k}};
      out["hits"] = nlohmann::json::array();
      for (const auto& h : response.hits) {
        const auto& i = info_of[h.id];
        out["hits"].push_back({{"rank", h.rank},
                               {"id", h.id},
                               {"score", h.score},
                               {"path", i.path},
                               {"start_line", i.start_line},
                               {"end_line", i.end_line},
                               {"kind", i.kind},
                               {"language", i.language}});
      }
      out["debug"] = response.debug;
      std::cout << out.dump(2) << "\n";
    } else {
      if (response.hits.empty()) std::cout << "no hits\n";
      for (const auto& h : response.hits) {
        const auto& i = info_of[h.id];
        std::cout << fmt::format("{:>3}  {:<9.6g}  {}  {}:{}-{}\n", h.rank, h.score, h.id, i.path, i.start_line,
                                 i.end_line);
      }
    }
    return kExitSuccess;
  } catch (const rt::RetrievalError& e) {
    std::fprintf(stderr, "attractor search: error: %s\n", e.what());
    return e.kind() == rt::RetrievalError::Kind::kInvalidArgument ? kExitUsage : kExitRuntime;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attractor search: error: %s\n", e.what());
    return kExitRuntime;
  }
}

}  // namespace attractor
