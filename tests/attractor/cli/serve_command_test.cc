// `attractor serve` as a process: it prints where it listens and how to log in, logs one line per
// request, demands a token on every address (loopback included) unless `--no-auth` (loopback
// only, with a warning), refuses pipelines that run commands without `--allow-commands`, and exits
// 0 on SIGINT with its runs' checkpoints intact.

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>
#include <sys/wait.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <atomic>
#include <filesystem>
#include <thread>

#include <gtest/gtest.h>
#include <httplib.h>

#include "support/hardening_support.h"
#include "support/server_test_support.h"

namespace attractor::testing {
using hardening::ProcessResult;
using hardening::ScratchDir;
using hardening::spawn_program;
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The port from the `listening on http://HOST:PORT/` line of `log`, waiting for it.
int wait_for_port(const std::string& log) {
  int port = 0;
  eventually([&] {
    std::smatch m;
    const std::string text = read_file(log);
    if (!std::regex_search(text, m, std::regex(R"(listening on http://(?:\[[^\]]+\]|[^:/]+):(\d+)/)"))) return false;
    port = std::stoi(m[1]);
    return true;
  });
  return port;
}

/// The generated token of the `access token TOKEN` line of `log`, waiting for it: the server
/// prints it after the `listening on` line, so a loaded machine can show one without the other.
std::string token_in(const std::string& log) {
  std::string token;
  eventually([&] {
    std::smatch m;
    const std::string text = read_file(log);
    if (!std::regex_search(text, m, std::regex(R"(access token ([0-9a-f]{64}))"))) return false;
    token = m[1].str();
    return true;
  });
  return token;
}

int wait_exit(pid_t pid) {
  int status = 0;
  for (int i = 0; i < 500; ++i) {
    if (::waitpid(pid, &status, WNOHANG) == pid)
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  return -1;
}

TEST(ServeCommandTest, ListensOnLoopbackWithATokenLogsRequestsAndStopsOnSigint) {
  ScratchDir dir;
  const std::string log = dir.sub("serve.log");
  pid_t pid = spawn_program(ATTRACTOR_BINARY_PATH, {"serve", "--listen", "127.0.0.1:0", "--logs-root", dir.sub("runs")},
                            {}, log);
  const int port = wait_for_port(log);
  ASSERT_GT(port, 0) << read_file(log);
  const std::string token = token_in(log);
  ASSERT_EQ(token.size(), 64u) << read_file(log);
  httplib::Client client("127.0.0.1", port);
  EXPECT_EQ(client.Get("/health")->status, 401) << "loopback needs the token too";
  auto res = client.Get("/health", {{"Authorization", "Bearer " + token}});
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_TRUE(eventually([&] { return read_file(log).find("GET /health 200") != std::string::npos; }))
      << read_file(log);
  std::smatch m;
  const std::string text = read_file(log);
  ASSERT_TRUE(
      std::regex_search(text, m, std::regex(R"(log in once at (http://127\.0\.0\.1:\d+)(/login\?code=[0-9a-f]{32}))")))
      << text;
  auto login = client.Get(m[2].str());
  ASSERT_EQ(login->status, 303);
  const std::string cookie = login->get_header_value("Set-Cookie");
  EXPECT_EQ(client.Get("/pipelines", {{"Cookie", cookie.substr(0, cookie.find(';'))}})->status, 200);
  ::kill(pid, SIGINT);
  EXPECT_EQ(wait_exit(pid), 0) << read_file(log);
}

TEST(ServeCommandTest, EveryLoopbackListenerRequiresTheTokenAndRefusesCommands) {
  for (const std::string& listen : {"127.0.0.2:0", "[::1]:0"}) {
    if (listen.front() == '[' && !has_ipv6_loopback()) continue;
    ScratchDir dir;
    const std::string log = dir.sub("serve.log");
    pid_t pid = spawn_program(ATTRACTOR_BINARY_PATH, {"serve", "--listen", listen, "--logs-root", dir.sub("runs")}, {},
                              log);
    const int port = wait_for_port(log);
    ASSERT_GT(port, 0) << read_file(log);
    const std::string address = listen.front() == '[' ? "::1" : "127.0.0.2";
    httplib::Client client(address, port);
    const std::string dot = nlohmann::json{{"dot",
                                            "digraph T { start [shape=Mdiamond] exit [shape=Msquare] "
                                            "t [shape=parallelogram, tool_command=\"id\"] start -> t -> exit }"}}
                                .dump();
    auto anonymous = client.Post("/pipelines", dot, "application/json");
    ASSERT_TRUE(anonymous) << listen;
    EXPECT_EQ(anonymous->status, 401) << listen;
    auto refused = client.Post("/pipelines", {{"Authorization", "Bearer " + token_in(log)}}, dot, "application/json");
    ASSERT_TRUE(refused) << listen;
    EXPECT_EQ(refused->status, 403) << listen << ": " << refused->body;
    EXPECT_NE(refused->body.find("--allow-commands"), std::string::npos) << refused->body;
    ::kill(pid, SIGTERM);
    EXPECT_EQ(wait_exit(pid), 0);
  }
}

TEST(ServeCommandTest, NoAuthWarnsOnLoopbackAndIsRefusedElsewhere) {
  ScratchDir dir;
  const std::string log = dir.sub("serve.log");
  pid_t pid = spawn_program(ATTRACTOR_BINARY_PATH,
                            {"serve", "--listen", "127.0.0.1:0", "--logs-root", dir.sub("runs"), "--no-auth"}, {}, log);
  const int port = wait_for_port(log);
  ASSERT_GT(port, 0) << read_file(log);
  EXPECT_NE(read_file(log).find("WARNING: --no-auth: no authentication; every user and every program on this machine"),
            std::string::npos)
      << read_file(log);
  EXPECT_EQ(httplib::Client("127.0.0.1", port).Get("/health")->status, 200);
  ::kill(pid, SIGTERM);
  EXPECT_EQ(wait_exit(pid), 0);
  ProcessResult wide = hardening::run_attractor({"serve", "--listen", "0.0.0.0:0", "--no-auth"});
  EXPECT_EQ(wide.exit_code, 2);
  EXPECT_EQ(wide.err,
            "attractor serve: --no-auth is allowed only on a loopback address (127.0.0.0/8, ::1, localhost), not on "
            "0.0.0.0; beyond loopback a token is required\n");
}

TEST(ServeCommandTest, SigintWithAnOpenEventStreamStopsAtOnceAndInterruptsTheRun) {
  ScratchDir dir;
  std::filesystem::create_directories(dir.sub("graphs"));
  std::ofstream(dir.sub("graphs/gate.dot")) << kGateDot;
  const std::string log = dir.sub("serve.log");
  pid_t pid = spawn_program(
      ATTRACTOR_BINARY_PATH,
      {"serve", "--listen", "127.0.0.1:0", "--logs-root", dir.sub("runs"), "--graphs-dir", dir.sub("graphs")}, {}, log);
  const int port = wait_for_port(log);
  ASSERT_GT(port, 0) << read_file(log);
  httplib::Client client("127.0.0.1", port);
  const std::string token = token_in(log);
  client.set_default_headers({{"Authorization", "Bearer " + token}});
  auto started = client.Post("/pipelines", R"({"graph": "gate.dot"})", "application/json");
  ASSERT_TRUE(started);
  ASSERT_EQ(started->status, 201) << started->body;
  const std::string id = nlohmann::json::parse(started->body)["id"];
  ASSERT_TRUE(eventually([&] {
    auto q = client.Get("/pipelines/" + id + "/questions");
    return q && q->body.find("\"q1\"") != std::string::npos;
  }));
  std::string streamed;
  std::atomic<bool> receiving{false};
  std::thread stream([&] {
    httplib::Client sse("127.0.0.1", port);
    sse.set_default_headers({{"Authorization", "Bearer " + token}});
    sse.Get("/pipelines/" + id + "/events", [&](const char* data, std::size_t size) {
      streamed.append(data, size);
      receiving = true;
      return true;
    });
  });
  ASSERT_TRUE(eventually([&] { return receiving.load(); })) << "the stream is open before the signal";
  const auto asked = std::chrono::steady_clock::now();
  ::kill(pid, SIGINT);
  EXPECT_EQ(wait_exit(pid), 0) << read_file(log);
  EXPECT_LT(std::chrono::steady_clock::now() - asked, std::chrono::seconds(5))
      << "an open stream does not hold the stop up to the next keep-alive (15 s)";
  stream.join();
  EXPECT_NE(streamed.find("event: end"), std::string::npos) << "the stream was ended, not cut";
  const std::string events = read_file(dir.sub("runs/" + id + "/events.jsonl"));
  EXPECT_NE(events.find("\"reason\":\"server shutdown\""), std::string::npos) << events;
}

TEST(ServeCommandTest, BeyondLoopbackATokenIsGeneratedAndRequired) {
  ScratchDir dir;
  const std::string log = dir.sub("serve.log");
  pid_t pid = spawn_program(ATTRACTOR_BINARY_PATH, {"serve", "--listen", "0.0.0.0:0", "--logs-root", dir.sub("runs")},
                            {}, log);
  const int port = wait_for_port(log);
  ASSERT_GT(port, 0) << read_file(log);
  std::smatch m;
  const std::string text = read_file(log);
  ASSERT_TRUE(std::regex_search(text, m, std::regex(R"(access token ([0-9a-f]{64}))"))) << text;
  const std::string token = m[1];
  ASSERT_TRUE(std::regex_search(text, m, std::regex(R"(/login\?code=([0-9a-f]{32}))"))) << text;
  httplib::Client client("127.0.0.1", port);
  EXPECT_EQ(client.Get("/health")->status, 401);
  EXPECT_EQ(client.Get("/health", {{"Authorization", "Bearer " + token}})->status, 200);
  ::kill(pid, SIGTERM);
  EXPECT_EQ(wait_exit(pid), 0);
}

TEST(ServeCommandTest, BadOptionsExitWithUsage) {
  ProcessResult r = hardening::run_attractor({"serve", "--listen", "localhost"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "attractor serve: --listen 'localhost' is not ADDR:PORT\n");
  ScratchDir dir;
  std::ofstream(dir.sub("token")) << "short\n";
  ProcessResult t = hardening::run_attractor({"serve", "--token-file", dir.sub("token")});
  EXPECT_EQ(t.exit_code, 2);
  EXPECT_EQ(t.err,
            "attractor serve: --token-file " + dir.sub("token") + ": the token must be at least 16 characters\n");
  ProcessResult w = hardening::run_attractor({"serve", "--workdir-root", dir.sub("token")});
  EXPECT_EQ(w.exit_code, 2);
  EXPECT_EQ(w.err, "attractor serve: --workdir-root '" + dir.sub("token") + "' is not a directory\n");
}

TEST(ServeCommandTest, RunsWorkInTheWorkdirRootOrTheDirectoryTheRequestNamesInIt) {
  ScratchDir dir;
  const std::filesystem::path root = std::filesystem::canonical(dir.path());
  std::filesystem::create_directories(root / "project");
  const std::string log = dir.sub("serve.log");
  pid_t pid = spawn_program(ATTRACTOR_BINARY_PATH,
                            {"serve", "--listen", "127.0.0.1:0", "--logs-root", dir.sub("runs"), "--workdir-root",
                             root.string(), "--allow-commands", "--sandbox", "none"},
                            {"ATTRACTOR_CLI_COMMAND_PWDAGENT=pwd"}, log);
  const int port = wait_for_port(log);
  ASSERT_GT(port, 0) << read_file(log);
  httplib::Client client("127.0.0.1", port);
  const httplib::Headers auth = {{"Authorization", "Bearer " + token_in(log)}};
  const std::string dot =
      "digraph W { start [shape=Mdiamond] exit [shape=Msquare] "
      "t [shape=parallelogram, tool_command=\"pwd > \\\"$ATTRACTOR_RUN_DIR/pwd.txt\\\"\"] "
      "ask [prompt=\"where are you?\", llm_provider=\"cli:pwdagent\"] start -> t -> ask -> exit }";
  auto where = [&](const nlohmann::json& extra) {
    nlohmann::json body = {{"dot", dot}};
    if (extra.is_object()) body.update(extra);
    auto res = client.Post("/pipelines", auth, body.dump(), "application/json");
    if (!res || res->status != 201) return std::string("refused: ") + (res ? res->body : "no answer");
    const std::string id = nlohmann::json::parse(res->body)["id"];
    eventually([&] {
      auto s = client.Get("/pipelines/" + id, auth);
      return s && nlohmann::json::parse(s->body)["status"] == "completed";
    });
    return read_file(dir.sub("runs/" + id + "/pwd.txt")) + read_file(dir.sub("runs/" + id + "/ask/response.md"));
  };
  // The tool stage, then the cli agent.
  EXPECT_EQ(where({}), root.string() + "\n" + root.string()) << "not the server's current directory";
  EXPECT_EQ(where({{"workdir", "project"}}), (root / "project").string() + "\n" + (root / "project").string());
  auto outside = client.Post("/pipelines", auth, nlohmann::json{{"dot", dot}, {"workdir", "/"}}.dump(),
                             "application/json");
  ASSERT_TRUE(outside);
  EXPECT_EQ(outside->status, 403);
  EXPECT_NE(outside->body.find("--workdir-root"), std::string::npos) << outside->body;
  ::kill(pid, SIGTERM);
  EXPECT_EQ(wait_exit(pid), 0) << read_file(log);
}

}  // namespace
}  // namespace attractor::testing
