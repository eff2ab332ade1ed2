#include "attractor/launch/child_run_starter.h"

#include <filesystem>

#include "attractor/base/sha256.h"
#include "attractor/check/pipeline_loader.h"

namespace attractor {

namespace {

namespace fs = std::filesystem;

class LaunchedChild : public ChildRun {
 public:
  LaunchedChild(LoadedPipeline pipeline, HandlerServices services)
      : pipeline_(std::move(pipeline)), services_(std::move(services)) {}

  RunResult run(const ChildRunOptions& options) override {
    HandlerRegistry registry = make_default_registry(services_);
    EngineOptions engine_options;
    engine_options.run_dir = options.run_dir;
    engine_options.graph_path = fs::absolute(pipeline_.source->path()).lexically_normal().string();
    engine_options.graph_sha256 = sha256_hex(pipeline_.source->text());
    engine_options.clock = options.clock;
    engine_options.observer = options.observer;
    engine_options.cancel = options.cancel;
    engine_options.background_writes = false;
    engine_options.disk = options.disk;
    Engine engine(*pipeline_.graph, registry, std::move(engine_options));
    return engine.run(nlohmann::json::object());
  }

 private:
  LoadedPipeline pipeline_;
  HandlerServices services_;
};

class LaunchChildRuns : public ChildRunStarter, public std::enable_shared_from_this<LaunchChildRuns> {
 public:
  explicit LaunchChildRuns(HandlerServices services) : services_(std::move(services)) {
    services_.child_runs = nullptr;  // set per child: a starter must not own itself
  }

  LoadedChildRun load(const std::string& graph_path) override {
    LoadedChildRun out;
    LoadedPipeline pipeline = load_pipeline(graph_path, builtin_handler_catalog());
    if (!pipeline.ok()) {
      for (const Diagnostic& d : pipeline.diagnostics) {
        if (d.severity == Severity::kError) {
          out.problem = d.message;
          break;
        }
      }
      if (out.problem.empty() && !pipeline.diagnostics.empty()) out.problem = pipeline.diagnostics.front().message;
      return out;
    }
    HandlerServices services = services_;
    services.child_runs = shared_from_this();
    out.run = std::make_unique<LaunchedChild>(std::move(pipeline), std::move(services));
    return out;
  }

 private:
  HandlerServices services_;
};

}  // namespace

std::shared_ptr<ChildRunStarter> make_child_run_starter(HandlerServices services) {
  return std::make_shared<LaunchChildRuns>(std::move(services));
}

HandlerServices with_child_runs(HandlerServices services) {
  if (!services.child_runs) services.child_runs = make_child_run_starter(services);
  return services;
}

}  // namespace attractor
