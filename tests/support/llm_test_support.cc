#include "support/llm_test_support.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <random>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "attractor/check/pipeline_loader.h"
#include "attractor/run/run_directory.h"
#include "handlers/registry.h"
#include "support/child_image.h"

namespace attractor::testing {

namespace fs = std::filesystem;

Graph load_graph(const std::string& dot) {
  LoadedPipeline p = load_pipeline_text("test.dot", dot, builtin_handler_catalog());
  std::string messages;
  for (const auto& d : p.diagnostics) messages += format_diagnostic(d, p.source.get());
  EXPECT_TRUE(p.ok()) << messages;
  return p.graph ? *p.graph : Graph();
}

ScratchDir::ScratchDir() {
  std::random_device rd;
  path_ = (fs::temp_directory_path() / fmt::format("attractor-llm-{:08x}{:08x}", rd(), rd())).string();
  fs::create_directories(path_);
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::string ScratchDir::write_script(const std::string& name, const std::string& body) const {
  std::string path = sub(name);
  write_text_file(path, "#!/bin/sh\n" + body);
  ::chmod(path.c_str(), 0755);
  return path;
}

RunResult LlmRun::run(const Graph& graph, std::shared_ptr<CodergenBackend> backend) {
  HandlerServices services;
  services.backend = std::move(backend);
  HandlerRegistry registry = make_default_registry(services);
  EngineOptions options;
  options.run_dir = run_dir();
  options.clock = &clock;
  options.random = [] { return 0.5; };
  options.observer = events;
  Engine engine(graph, registry, options);
  return engine.run();
}

nlohmann::json LlmRun::status(const std::string& node) const {
  return nlohmann::json::parse(read_text_file(run_dir() + "/" + node + "/status.json"));
}

std::vector<nlohmann::json> LlmRun::events_named(const std::string& name) const {
  std::vector<nlohmann::json> out;
  for (const Event& e : events->events()) {
    if (e.name == name) out.push_back(e.fields);
  }
  return out;
}

BinaryRun run_binary(const std::vector<std::string>& args, const std::vector<std::pair<std::string, std::string>>& set,
                     const ScratchDir& dir, const std::string& program) {
  const std::string log = dir.sub("stderr.txt");
  std::vector<std::string> argv{program};
  argv.insert(argv.end(), args.begin(), args.end());
  const ChildImage image(
      std::move(argv), ChildImage::entries(set),
      {"OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "ATTRACTOR_CLI_AGENT"});
  pid_t pid = ::fork();
  if (pid == 0) {
    int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 2);
    int null_fd = ::open("/dev/null", O_RDWR);
    ::dup2(null_fd, 0);
    ::dup2(null_fd, 1);
    image.exec();
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  BinaryRun r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = read_text_file(log);
  return r;
}

BackendConfig config_with_env(std::map<std::string, std::string> vars) {
  BackendConfig config;
  config.transport_random = [] { return 0.5; };  // transport retries wait their exact backoff
  config.env = [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end() || it->second.empty()) return std::nullopt;
    return it->second;
  };
  return config;
}

std::string anthropic_message(const nlohmann::json& content, int input_tokens, int output_tokens) {
  return nlohmann::json{{"id", "m"},
                        {"type", "message"},
                        {"model", "claude-test"},
                        {"content", content},
                        {"usage", {{"input_tokens", input_tokens}, {"output_tokens", output_tokens}}}}
      .dump();
}

}  // namespace attractor::testing
