#include "support/engine_test_support.h"

#include <cstdlib>
#include <random>

#include <fmt/format.h>

#include "attractor/launch/child_run_starter.h"
#include "attractor/run/checkpoint_journal.h"
#include "attractor/run/run_directory.h"

namespace attractor::testing {

namespace fs = std::filesystem;

void node(Graph& g, const std::string& id, Attrs attrs) {
  Vertex v = g.add_node(id);
  for (const auto& [k, val] : attrs) g.node(v).set(k, val);
}

void edge(Graph& g, const std::string& from, const std::string& to, Attrs attrs) {
  AttributeBag bag;
  for (const auto& [k, val] : attrs) bag.set(k, val);
  g.add_edge(from, to, bag);
}

Graph linear_graph(std::initializer_list<const char*> middle) {
  Graph g;
  g.data().name = "linear";
  node(g, "start", {{"shape", "Mdiamond"}});
  std::string prev = "start";
  for (const char* id : middle) {
    node(g, id, {{"shape", "box"}});
    edge(g, prev, id);
    prev = id;
  }
  node(g, "exit", {{"shape", "Msquare"}});
  edge(g, prev, "exit");
  return g;
}

TempDir::TempDir() {
  std::random_device rd;
  fs::path p = fs::temp_directory_path() / fmt::format("attractor-test-{:08x}{:08x}", rd(), rd());
  fs::create_directories(p);
  path_ = p.string();
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

EngineOptions TestRun::options() {
  EngineOptions o;
  o.run_dir = run_dir();
  o.clock = &clock;
  o.random = [] { return 0.5; };
  o.observer = events;
  o.cancel = cancel;
  o.max_node_executions = max_node_executions;
  o.background_writes = background_writes;
  o.write_run_log = write_run_log;
  o.checkpoint_rewrite_below = checkpoint_rewrite_below;
  o.disk = disk;
  return o;
}

RunResult TestRun::run(const Graph& graph, const nlohmann::json& seed) {
  HandlerRegistry registry = make_default_registry(with_child_runs(services));
  return run(graph, registry, seed);
}

RunResult TestRun::run(const Graph& graph, const HandlerRegistry& registry, const nlohmann::json& seed) {
  Engine engine(graph, registry, options());
  return engine.run(seed);
}

RunResult TestRun::resume(const Graph& graph) {
  HandlerRegistry registry = make_default_registry(with_child_runs(services));
  return resume(graph, registry);
}

RunResult TestRun::resume(const Graph& graph, const HandlerRegistry& registry) {
  Engine engine(graph, registry, options());
  return engine.resume();
}

nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(read_text_file(path)); }

nlohmann::json read_checkpoint(const std::string& run_dir) {
  return read_checkpoint_document(run_dir, posix_run_disk());
}

}  // namespace attractor::testing
