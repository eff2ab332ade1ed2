// `attractor graph callers|callees|deps|path`: questions about the unified C# + SQL graph of a
// local index, answered with the backend's expand (filters and ACL enforced as in the pipeline).

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "attractor/base/ascii.h"
#include "attractor/base/json_limits.h"
#include "attractor/cli/cli.h"
#include "attractor/cli/cli_support.h"
#include "attractor/launch/flag_checks.h"
#include "retrieval/backend.h"
#include "retrieval/edge_types.h"

namespace attractor {

namespace rt = ::attractor::retrieval;
namespace et = ::attractor::retrieval::edge_type;

namespace {

/// How many bm25 hits a name is looked up among (a type's members all mention its name, so the
/// type itself can rank below them).
constexpr int kNameCandidates = 2000;

/// What the command was asked, with the request fields every backend call shares.
struct GraphQuestion {
  std::string question;  ///< callers | callees | deps | path
  std::vector<std::string> symbols;
  std::string repository, branch;
  nlohmann::json filters = nlohmann::json::object();
  std::optional<std::string> active_index;
  std::vector<std::string> edge_types;
  int depth = 1;
  int max_nodes = 200;
};

/// The edge types a question follows unless `--edge-types` says otherwise (docs/cli.md).
std::vector<std::string> default_edge_types(const std::string& question) {
  if (question == "callers") return {std::string("~") + et::kCalls, std::string("~") + et::kExecutes};
  if (question == "callees") return {et::kCalls, et::kExecutes};
  std::vector<std::string> out;
  for (const char* type : et::kAll) {
    if (question == "path" || std::string_view(type) != et::kContains) out.emplace_back(type);
  }
  return out;
}

std::optional<std::string> bad_edge_type(const std::vector<std::string>& types) {
  for (const auto& t : types) {
    if (!et::is_allowlist_entry(t)) return t;
  }
  return std::nullopt;
}

/// The last part of a node name without parameters: `A.B.Repo.GetAsync(Guid)` -> `getasync`.
std::string short_name(std::string name) {
  name = name.substr(0, name.find('('));
  if (auto dot = name.rfind('.'); dot != std::string::npos) name = name.substr(dot + 1);
  return ascii_lower(name);
}

/// How well a node answers to a name: 0 its whole name, 1 a type or SQL object of that short name,
/// 2 a member of that short name (constructors last, as they share their type's name), -1 not at all.
int name_match(const rt::NodeInfo& info, const std::string& wanted) {
  std::string full = ascii_lower(info.name);
  if (full == wanted || full.substr(0, full.find('(')) == wanted) return 0;
  if (short_name(info.name) != wanted) return -1;
  if (info.kind == "constructor") return 3;
  return info.kind == "method" || info.kind == "property" ? 2 : 1;
}

/// The node ids a symbol means: itself when it is a visible id, the SQL object `dbo.SYMBOL`, or
/// the nodes whose name or short name is SYMBOL (case-insensitive), the best match kind only, sorted.
std::vector<std::string> resolve_symbol(rt::IRetrievalBackend& backend, const GraphQuestion& q,
                                        const std::string& symbol) {
  std::vector<std::string> direct = {symbol, "sql:dbo." + symbol, "sql:" + symbol, "cs:" + symbol};
  auto infos = backend.describe(direct, q.repository, q.branch, q.filters, q.active_index);
  if (!infos.empty()) return {infos.front().id};
  rt::SearchRequest search;
  search.search_type = rt::SearchType::kBm25;
  search.query = symbol;
  search.top_k = kNameCandidates;
  search.repository = q.repository;
  search.branch = q.branch;
  search.retrieval_filters = q.filters;
  search.active_index = q.active_index;
  std::vector<std::string> ids;
  for (const auto& h : backend.search(search).hits) ids.push_back(h.id);
  std::map<int, std::vector<std::string>> by_match;
  std::string wanted = ascii_lower(symbol);
  for (const auto& info : backend.describe(ids, q.repository, q.branch, q.filters, q.active_index)) {
    if (int m = name_match(info, wanted); m >= 0) by_match[m].push_back(info.id);
  }
  if (by_match.empty()) return {};
  auto out = by_match.begin()->second;
  std::sort(out.begin(), out.end());
  return out;
}

rt::ExpandResult expand(rt::IRetrievalBackend& backend, const GraphQuestion& q, const std::vector<std::string>& seeds) {
  rt::ExpandRequest request;
  request.seed_ids = seeds;
  request.edge_allowlist = q.edge_types;
  request.max_depth = q.depth;
  request.max_nodes = q.max_nodes;
  request.repository = q.repository;
  request.branch = q.branch;
  request.retrieval_filters = q.filters;
  request.active_index = q.active_index;
  return backend.expand(request);
}

/// The type of the edge that reached `child` from `parent` (`~type` when followed backwards).
std::string edge_between(const rt::ExpandResult& r, const std::string& parent, const std::string& child) {
  for (const auto& e : r.edges) {
    if (e.from_id == parent && e.to_id == child) return e.edge_type;
  }
  for (const auto& e : r.edges) {
    if (e.from_id == child && e.to_id == parent) return "~" + e.edge_type;
  }
  return "?";
}

nlohmann::json node_json(const rt::NodeInfo& i) {
  return {{"id", i.id},
          {"kind", i.kind},
          {"name", i.name},
          {"path", i.path},
          {"start_line", i.start_line},
          {"end_line", i.end_line}};
}

std::map<std::string, rt::NodeInfo> describe_all(rt::IRetrievalBackend& backend, const GraphQuestion& q,
                                                 const std::vector<std::string>& ids) {
  std::map<std::string, rt::NodeInfo> out;
  for (auto& i : backend.describe(ids, q.repository, q.branch, q.filters, q.active_index)) out[i.id] = i;
  return out;
}

std::string located(const std::map<std::string, rt::NodeInfo>& info, const std::string& id) {
  auto it = info.find(id);
  if (it == info.end()) return id;
  return fmt::format("{}  {}:{}-{}", id, it->second.path, it->second.start_line, it->second.end_line);
}

/// callers, callees, deps: the nodes reached from the seeds, each with the edge it was reached by.
int answer_neighbours(rt::IRetrievalBackend& backend, const GraphQuestion& q, const std::vector<std::string>& seeds,
                      bool as_json) {
  auto r = expand(backend, q, seeds);
  std::vector<std::string> ids;
  for (const auto& n : r.nodes) ids.push_back(n.id);
  auto info = describe_all(backend, q, ids);
  if (as_json) {
    nlohmann::json out = {{"question", q.question},
                          {"seeds", r.seed_ids},
                          {"depth", q.depth},
                          {"edge_types", q.edge_types},
                          {"truncated", r.truncated}};
    out["nodes"] = nlohmann::json::array();
    for (const auto& n : r.nodes) {
      if (n.depth == 0) continue;
      auto j = node_json(info[n.id]);
      j["depth"] = n.depth;
      j["via"] = *n.parent_id;
      j["edge"] = edge_between(r, *n.parent_id, n.id);
      out["nodes"].push_back(j);
    }
    std::cout << out.dump(2) << "\n";
    return kExitSuccess;
  }
  for (const auto& s : r.seed_ids) std::cout << fmt::format("{} of {}\n", q.question, located(info, s));
  size_t shown = 0;
  for (const auto& n : r.nodes) {
    if (n.depth == 0) continue;
    ++shown;
    std::cout << fmt::format("{}{:<12} {}\n", std::string(2 * static_cast<size_t>(n.depth), ' '),
                             edge_between(r, *n.parent_id, n.id), located(info, n.id));
  }
  if (shown == 0) std::cout << "  (none)\n";
  if (r.truncated) std::cout << fmt::format("  (stopped at --max-nodes {})\n", q.max_nodes);
  return kExitSuccess;
}

/// path FROM TO: the shortest chain of edges from FROM to TO (breadth-first, so the first found).
int answer_path(rt::IRetrievalBackend& backend, const GraphQuestion& q, const std::string& from, const std::string& to,
                bool as_json) {
  auto r = expand(backend, q, {from});
  std::map<std::string, std::string> parent_of;
  for (const auto& n : r.nodes) {
    if (n.parent_id) parent_of[n.id] = *n.parent_id;
  }
  std::vector<std::string> chain;
  bool found = std::any_of(r.nodes.begin(), r.nodes.end(), [&](const auto& n) { return n.id == to; });
  if (found) {
    for (std::string at = to; at != from; at = parent_of.at(at)) chain.push_back(at);
    chain.push_back(from);
    std::reverse(chain.begin(), chain.end());
  }
  auto info = describe_all(backend, q, chain);
  if (as_json) {
    nlohmann::json out = {{"question", "path"}, {"from", from}, {"to", to}, {"found", found}, {"depth", q.depth}};
    out["path"] = nlohmann::json::array();
    for (size_t i = 0; i < chain.size(); ++i) {
      auto j = node_json(info[chain[i]]);
      if (i > 0) j["edge"] = edge_between(r, chain[i - 1], chain[i]);
      out["path"].push_back(j);
    }
    std::cout << out.dump(2) << "\n";
    return kExitSuccess;
  }
  if (!found) {
    std::cout << fmt::format("no path from {} to {} within {} edges{}\n", from, to, q.depth,
                             r.truncated ? fmt::format(" (stopped at --max-nodes {})", q.max_nodes) : "");
    return kExitSuccess;
  }
  for (size_t i = 0; i < chain.size(); ++i) {
    if (i > 0) std::cout << fmt::format("  {}\n", edge_between(r, chain[i - 1], chain[i]));
    std::cout << located(info, chain[i]) << "\n";
  }
  return kExitSuccess;
}

int answer(rt::IRetrievalBackend& backend, const GraphQuestion& q, bool as_json) {
  std::vector<std::vector<std::string>> resolved;
  for (const auto& s : q.symbols) {
    resolved.push_back(resolve_symbol(backend, q, s));
    if (resolved.back().empty()) {
      std::fprintf(stderr,
                   "attractor graph: %s: no node of that id or name in %s/%s (find it with `attractor search`)\n",
                   escape_control_bytes(s).c_str(), escape_control_bytes(q.repository).c_str(),
                   escape_control_bytes(q.branch).c_str());
      return kExitUsage;
    }
  }
  if (q.question != "path") return answer_neighbours(backend, q, resolved[0], as_json);
  for (size_t i = 0; i < 2; ++i) {
    if (resolved[i].size() > 1) {
      std::string names;
      for (const auto& id : resolved[i]) names += "\n  " + id;
      std::fprintf(stderr, "attractor graph: %s names %zu nodes; give one id:%s\n",
                   escape_control_bytes(q.symbols[i]).c_str(), resolved[i].size(), names.c_str());
      return kExitUsage;
    }
  }
  return answer_path(backend, q, resolved[0][0], resolved[1][0], as_json);
}

}  // namespace

int run_graph_command(int argc, char** argv) {
  CLI::App app{
      "Ask the code index's dependency graph: `callers SYMBOL`, `callees SYMBOL`, `deps SYMBOL` or "
      "`path FROM TO`. A symbol is a node id (`sql:dbo.Cipher_DeleteById`) or a name "
      "(`Cipher_DeleteById`, `CipherRepository`). Filters and ACL are enforced as in the pipeline. "
      "Exit 2 on usage errors (unknown symbol, ambiguous path end, bad edge type), 3 when the index "
      "or the repository/branch is missing."};
  app.name("attractor graph");
  GraphQuestion q;
  std::string index_dir, filters_text = "{}", active_index;
  std::vector<std::string> edge_types;
  bool as_json = false;
  app.add_option("QUESTION", q.question, "callers | callees | deps | path")
      ->required()
      ->check(CLI::IsMember({"callers", "callees", "deps", "path"}));
  app.add_option("SYMBOL", q.symbols, "node id or name (two for path: FROM TO)")->required();
  app.add_option("--index", index_dir, "index directory written by `attractor index`")->required();
  app.add_option("--repository", q.repository, "repository name")->required();
  app.add_option("--branch", q.branch, "branch name")->required();
  app.add_option("--depth", q.depth, "edges to follow from the symbol (default 1; path: 6)")->check(positive_number());
  app.add_option("--edge-types", edge_types,
                 "edge types to follow, comma-separated or repeated; ~type follows it backwards")
      ->delimiter(',');
  app.add_option("--max-nodes", q.max_nodes, "most nodes to visit, the symbol included (default 200)")
      ->check(positive_number());
  app.add_option("--filters", filters_text, "retrieval filters as a JSON object (as for `attractor search`)");
  app.add_option("--active-index", active_index, "named index (default: default)");
  app.add_flag("--json", as_json, "print JSON");
  if (auto code = parse_cli(app, argc, argv)) return *code;
  size_t wanted = q.question == "path" ? 2 : 1;
  if (q.symbols.size() != wanted) {
    std::fprintf(stderr, "attractor graph: %s takes %zu symbol%s, got %zu\n", q.question.c_str(), wanted,
                 wanted == 1 ? "" : "s", q.symbols.size());
    return kExitUsage;
  }
  if (q.question == "path" && app.count("--depth") == 0) q.depth = 6;
  q.edge_types = edge_types.empty() ? default_edge_types(q.question) : edge_types;
  if (auto bad = bad_edge_type(q.edge_types)) {
    std::string known;
    for (const char* t : et::kAll) known += (known.empty() ? "" : ", ") + std::string(t);
    std::fprintf(stderr, "attractor graph: --edge-types: unknown edge type '%s' (one of %s; ~ follows it backwards)\n",
                 escape_control_bytes(*bad).c_str(), known.c_str());
    return kExitUsage;
  }
  if (auto code = check_index_directory("attractor graph", index_dir)) return *code;
  if (!active_index.empty()) q.active_index = active_index;
  try {
    q.filters = parse_json_limited(filters_text, "--filters");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attractor graph: error: %s\n", e.what());
    return kExitUsage;
  }
  try {
    auto backend = rt::make_retrieval_backend("local", index_dir);
    return answer(*backend, q, as_json);
  } catch (const rt::RetrievalError& e) {
    std::fprintf(stderr, "attractor graph: error: %s\n", e.what());
    return e.kind() == rt::RetrievalError::Kind::kInvalidArgument ? kExitUsage : kExitRuntime;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attractor graph: error: %s\n", e.what());
    return kExitRuntime;
  }
}

}  // namespace attractor
