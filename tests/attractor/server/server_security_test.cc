// The security rules of docs/server.md section 2, each proved with real requests: tokens on every
// listener and the login, the exact Host and Origin checks (DNS rebinding), pipelines that run
// commands, size limits, and ids that cannot leave the logs root.

#include <filesystem>
#include <fstream>
#include <tuple>

#include <gtest/gtest.h>

#include "attractor/run/run_directory.h"
#include "support/server_test_support.h"

namespace attractor::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kToken = kTestToken;

/// A pipeline whose one stage runs a shell command that leaves a file behind.
std::string tool_dot(const std::string& marker) {
  return "digraph T { start [shape=Mdiamond] exit [shape=Msquare]\n"
         "  touch [shape=parallelogram, tool_command=\"touch " +
         marker +
         "\"]\n"
         "  start -> touch -> exit }";
}

TEST(ServerSecurityTest, WithATokenEveryRequestNeedsIt) {
  TestServer server(1, kToken);
  auto anonymous = server.anonymous()->Get("/pipelines");
  EXPECT_EQ(anonymous->status, 401);
  EXPECT_EQ(json::parse(anonymous->body)["error"],
            "authentication required: Authorization: Bearer TOKEN, or log in at /login");
  EXPECT_EQ(server.get("/pipelines", {{"Authorization", "Bearer wrong"}})->status, 401);
  EXPECT_EQ(server.get("/pipelines", {{"Authorization", "Bearer " + kToken}})->status, 200);
  auto page = server.anonymous()->Get("/");
  EXPECT_EQ(page->status, 303) << "a browser without a session is sent to the login form";
  EXPECT_EQ(page->get_header_value("Location"), "/login");
  EXPECT_EQ(server.anonymous()->Get("/app.js")->status, 401);
  EXPECT_EQ(server.anonymous()->Get("/login")->status, 200) << "the login form is reachable";
}

TEST(ServerSecurityTest, ATokenIsGeneratedWhenNoneIsGivenOnEveryLoopbackListener) {
  std::vector<std::string> addresses = {"127.0.0.1", "127.0.0.2"};
  if (has_ipv6_loopback()) addresses.push_back("::1");
  for (const std::string& address : addresses) {
    HttpOptions http;
    http.host = address;
    TestServer server(1, "", {}, http);
    ASSERT_GT(server.port(), 0) << address;
    EXPECT_EQ(server.token().size(), 64u) << address;
    auto anonymous = server.anonymous();
    const std::string marker = (fs::path(server.logs_root()) / "ran").string();
    for (const char* path : {"/health", "/pipelines", "/graphs", "/app.js", "/pipelines/x/events"}) {
      auto res = anonymous->Get(path);
      ASSERT_TRUE(res) << address << path;
      EXPECT_EQ(res->status, 401) << address << path;
    }
    auto posted = anonymous->Post("/pipelines", json{{"dot", tool_dot(marker)}}.dump(), "application/json");
    ASSERT_TRUE(posted) << address;
    EXPECT_EQ(posted->status, 401) << address;
    EXPECT_EQ(server.get("/health")->status, 200) << address << ": with the token";
    EXPECT_FALSE(fs::exists(marker));
  }
}

TEST(ServerSecurityTest, NoAuthIsAllowedOnLoopbackOnly) {
  HttpOptions open;
  open.no_auth = true;
  TestServer server(1, "", {}, open);
  EXPECT_EQ(server.anonymous()->Get("/pipelines")->status, 200);
  RunRegistry runs(ServerConfig{});
  HttpOptions wide;
  wide.host = "0.0.0.0";
  wide.no_auth = true;
  EXPECT_THROW(HttpServer(runs, wide), std::invalid_argument);
}

TEST(ServerSecurityTest, TheLoginCodeWorksOnceAndSetsAStrictHttpOnlyCookie) {
  TestServer server(1, kToken);
  const std::string code = server.http().access().new_login_code();
  auto login = server.anonymous()->Get("/login?code=" + code);
  ASSERT_EQ(login->status, 303);
  EXPECT_EQ(login->get_header_value("Location"), "/");
  const std::string cookie = login->get_header_value("Set-Cookie");
  EXPECT_NE(cookie.find("HttpOnly"), std::string::npos) << cookie;
  EXPECT_NE(cookie.find("SameSite=Strict"), std::string::npos) << cookie;
  const std::string session = cookie.substr(0, cookie.find(';'));
  EXPECT_EQ(server.get("/pipelines", {{"Cookie", session}})->status, 200);
  EXPECT_EQ(server.get("/pipelines", {{"Cookie", "attractor_session=forged"}})->status, 401);
  EXPECT_EQ(server.anonymous()->Get("/login?code=" + code)->status, 401) << "a code works once";

  auto form = server.anonymous()->Post("/login", "token=" + kToken, "application/x-www-form-urlencoded");
  EXPECT_EQ(form->status, 303);
  auto wrong = server.anonymous()->Post("/login", "token=nope", "application/x-www-form-urlencoded");
  EXPECT_EQ(wrong->status, 401);
}

TEST(ServerSecurityTest, CrossSiteStateChangesAreRefused) {
  TestServer server;
  const json body = {{"graph", "gate.dot"}, {"auto_approve", true}};
  auto other = server.post("/pipelines", body, {{"Origin", "http://evil.example"}});
  EXPECT_EQ(other->status, 403);
  EXPECT_EQ(json::parse(other->body)["error"], "request from another origin (http://evil.example) refused");
  EXPECT_EQ(server.post("/pipelines", body, {{"Sec-Fetch-Site", "cross-site"}})->status, 403);
  EXPECT_TRUE(fs::is_empty(server.logs_root()));
  EXPECT_EQ(server.post("/pipelines", body, {{"Origin", "http://" + server.host()}})->status, 201)
      << "the page's own origin may";
  EXPECT_EQ(server.get("/health", {{"Origin", "http://evil.example"}})->status, 200) << "reads are not state changes";
}

TEST(ServerSecurityTest, DnsRebindingHostsAreRefusedEvenWithTheToken) {
  TestServer server;
  const std::string port = std::to_string(server.port());
  for (const std::string& host : std::vector<std::string>{
           "attacker.example:80", "127.evil.example:" + port, "127.0.0.1.evil.example:" + port, "[::1]evil",
           "[::1]evil:" + port, "localhost.evil.example:" + port, "127.0.0.1:" + port + ".evil.example", "127.0.0.1",
           "localhost", "127.0.0.1:1", "127.0.0.2:" + port, "[::1]:" + port, "0.0.0.0:" + port, "127.1:" + port,
           std::string("")}) {
    auto res = server.get("/pipelines", {{"Host", host}, {"Authorization", "Bearer " + server.token()}});
    ASSERT_TRUE(res) << host;
    EXPECT_EQ(res->status, 421) << "Host: " << host;
  }
  for (const std::string& host :
       std::vector<std::string>{"127.0.0.1:" + port, "localhost:" + port, "LOCALHOST:" + port}) {
    EXPECT_EQ(server.get("/pipelines", {{"Host", host}})->status, 200) << "Host: " << host;
  }
  auto refused = server.get("/pipelines", {{"Host", "127.evil.example:" + port}});
  EXPECT_EQ(json::parse(refused->body)["error"],
            "Host '127.evil.example:" + port + "' is not a name of this server (127.0.0.1:" + port +
                ", localhost:" + port + "); start it with --allow-host NAME to answer to another");
}

TEST(ServerSecurityTest, OnlyTheServersOwnOriginsMayChangeState) {
  TestServer server;
  const std::string port = std::to_string(server.port());
  const json body = {{"graph", "gate.dot"}, {"auto_approve", true}};
  for (const std::string& origin : std::vector<std::string>{
           "http://127.0.0.1.evil.example:" + port, "http://127.evil.example:" + port, "null",
           "https://127.0.0.1:" + port, "http://127.0.0.1:1", "http://127.0.0.1", "http://localhost:" + port + ".evil",
           "http://[::1]:" + port, "file://", "http://127.0.0.1:" + port + "/"}) {
    auto res = server.post("/pipelines", body, {{"Origin", origin}});
    ASSERT_TRUE(res) << origin;
    EXPECT_EQ(res->status, 403) << "Origin: " << origin;
  }
  EXPECT_TRUE(fs::is_empty(server.logs_root()));
  for (const std::string& origin : std::vector<std::string>{"http://127.0.0.1:" + port, "http://localhost:" + port}) {
    EXPECT_EQ(server.post("/pipelines", body, {{"Origin", origin}})->status, 201) << "Origin: " << origin;
  }
}

TEST(ServerSecurityTest, AllowHostAddsExactNames) {
  HttpOptions http;
  http.allow_hosts = {"attractor.internal"};
  TestServer server(1, kToken, {}, http);
  const std::string port = std::to_string(server.port());
  EXPECT_EQ(
      server.get("/health", {{"Host", "attractor.internal:" + port}, {"Authorization", "Bearer " + kToken}})->status,
      200);
  EXPECT_EQ(
      server.get("/health", {{"Host", "x.attractor.internal:" + port}, {"Authorization", "Bearer " + kToken}})->status,
      421);
}

TEST(AllowedHostsTest, AreTheListenAddressAndItsNamesWithThePort) {
  EXPECT_EQ(allowed_hosts("127.0.0.1", 8080, {}), (std::vector<std::string>{"127.0.0.1:8080", "localhost:8080"}));
  EXPECT_EQ(allowed_hosts("127.0.0.2", 8080, {}), (std::vector<std::string>{"127.0.0.2:8080"}));
  EXPECT_EQ(allowed_hosts("::1", 9000, {}), (std::vector<std::string>{"[::1]:9000", "localhost:9000"}));
  EXPECT_EQ(allowed_hosts("192.168.1.5", 80, {"Box.LAN"}),
            (std::vector<std::string>{"192.168.1.5", "192.168.1.5:80", "box.lan", "box.lan:80"}));
  const auto wildcard = allowed_hosts("0.0.0.0", 8080, {});
  EXPECT_NE(std::find(wildcard.begin(), wildcard.end(), "127.0.0.1:8080"), wildcard.end());
  EXPECT_EQ(std::find(wildcard.begin(), wildcard.end(), "0.0.0.0:8080"), wildcard.end());
  EXPECT_TRUE(is_loopback_address("127.0.0.2"));
  EXPECT_TRUE(is_loopback_address("::1"));
  EXPECT_FALSE(is_loopback_address("127.evil.example"));
  EXPECT_FALSE(is_loopback_address("::ffff:10.0.0.1"));
}

TEST(ServerSecurityTest, PipelinesThatRunCommandsAreRefusedWithoutAllowCommands) {
  TestServer server;
  const std::string marker = (fs::path(server.logs_root()).parent_path() / "ran").string();
  auto refused = server.post("/pipelines", {{"dot", tool_dot(marker)}});
  ASSERT_EQ(refused->status, 403) << refused->body;
  const json body = json::parse(refused->body);
  EXPECT_EQ(body["error"],
            "this server does not run pipelines that run commands: node 'touch' (tool_command); start attractor "
            "serve with --allow-commands to allow them");
  EXPECT_EQ(body["commands"], json::parse(R"([{"node": "touch", "runs": "tool_command"}])"));
  const std::string hooked = "digraph H { tool_hooks.pre=\"touch " + marker +
                             "\"\n start [shape=Mdiamond] exit [shape=Msquare]\n"
                             " work [shape=box, prompt=\"p\"] start -> work -> exit }";
  for (const json& request : std::vector<json>{json{{"dot", hooked}, {"backend", "agent:openai"}},
                                               json{{"dot", hooked}, {"backend", "cli:claude"}}}) {
    auto res = server.post("/pipelines", request);
    EXPECT_EQ(res->status, 403) << request.dump() << " " << res->body;
  }
  server.add_graph("tool.dot", tool_dot(marker));
  EXPECT_EQ(server.post("/pipelines", {{"graph", "tool.dot"}})->status, 403) << "from --graphs-dir too";
  EXPECT_EQ(server.post("/pipelines", {{"dot", hooked}, {"simulate", true}})->status, 201)
      << "hooks of simulated stages run nothing";
  EXPECT_FALSE(fs::exists(marker));
}

TEST(ServerSecurityTest, AllowCommandsLetsThemRunInTheirWorkspace) {
  TempDir work;
  ServerConfig config;
  config.allow_commands = true;
  config.workdir_root = work.path();
  TestServer server(1, kToken, config);
  const std::string marker = work.sub("ran");
  const std::string id = server.start({{"dot", tool_dot(marker)}});
  ASSERT_TRUE(server.wait_status(id, "completed"));
  EXPECT_TRUE(fs::exists(marker));
}

// docs/server.md 2.3.1: the default floor `workspace` holds whatever the pipeline or the request
// asks for; the command sees its workspace, not the files beside it.
TEST(ServerSecurityTest, ASubmittedPipelineCannotReadOutsideItsWorkspaceWhateverItAsks) {
  TempDir dir;
  const fs::path root = fs::canonical(dir.path());
  fs::create_directories(root / "work");
  std::ofstream(root / "secret.txt") << "TOP-SECRET\n";
  ServerConfig config;
  config.allow_commands = true;
  config.workdir_root = (root / "work").string();
  TestServer server(1, kToken, config);
  const std::string dot =
      "digraph Peek { start [shape=Mdiamond] exit [shape=Msquare]\n"
      "  peek [shape=parallelogram, sandbox=none, tool_command=\"cat " +
      (root / "secret.txt").string() + " > copied.txt; echo done > mine.txt\"]\n  start -> peek -> exit }";
  const std::string id = server.start({{"dot", dot}, {"sandbox", "none"}});
  ASSERT_TRUE(server.wait_status(id, "completed"));
  EXPECT_EQ(read_text_file((root / "work" / "mine.txt").string()), "done\n");
  EXPECT_EQ(read_text_file((root / "work" / "copied.txt").string()), "");
  json status = json::parse(read_text_file((fs::path(server.logs_root()) / id / "peek" / "status.json").string()));
  EXPECT_EQ(status["sandbox"]["level"], "workspace");
  EXPECT_EQ(json::parse(read_text_file(
                (fs::path(server.logs_root()) / id / "manifest.json").string()))["options"]["sandbox_floor"],
            "workspace");
  auto bad = server.post("/pipelines", {{"dot", dot}, {"sandbox", "loose"}});
  EXPECT_EQ(bad->status, 400);
  EXPECT_EQ(json::parse(bad->body)["error"],
            "sandbox must be \"none\", \"workspace\" or \"strict\" (the server's --sandbox floor raises it)");
}

TEST(ServerSecurityTest, BodiesAndDotSourcesHaveSizeLimits) {
  TestServer server;
  std::string huge(3 << 20, ' ');
  auto res = server.client()->Post("/pipelines", huge, "application/json");
  EXPECT_EQ(res->status, 413);
  std::string dot = "digraph G { start [shape=Mdiamond] exit [shape=Msquare] start -> exit /*" +
                    std::string(1100000, 'x') + "*/ }";
  auto big_dot = server.post("/pipelines", {{"dot", dot}});
  EXPECT_EQ(big_dot->status, 413);
  EXPECT_EQ(json::parse(big_dot->body)["error"], "the DOT source is larger than 1048576 bytes");
}

TEST(ServerSecurityTest, IdsInPathsCannotLeaveTheLogsRoot) {
  TestServer server;
  const std::string id = server.start({{"graph", "gate.dot"}, {"auto_approve", true}});
  ASSERT_TRUE(server.wait_status(id, "completed"));
  fs::create_symlink("/etc", fs::path(server.logs_root()) / id / "linked");
  fs::create_symlink(fs::path(server.logs_root()) / id, fs::path(server.logs_root()) / "alias");
  for (const std::string& path : std::vector<std::string>{
           "/pipelines/..%2F..%2Fetc/passwd", "/pipelines/..%2F..%2Fetc%2Fpasswd/checkpoint", "/pipelines/../etc",
           "/pipelines/%2E%2E/checkpoint", "/pipelines/.hidden", "/pipelines/alias/checkpoint",
           "/pipelines/" + id + "/stages/..%2F..%2F..%2Fetc", "/pipelines/" + id + "/stages/linked",
           "/pipelines/" + id + "/stages/..", "/pipelines/nope/events", "/pipelines/nope/graph"}) {
    auto res = server.get(path);
    ASSERT_TRUE(res) << path;
    EXPECT_EQ(res->status, 404) << path << ": " << res->body;
  }
  EXPECT_EQ(server.get("/pipelines/" + id + "/stages/work")->status, 200);
}

TEST(ServerSecurityTest, StageFilesAreServedFromTheirFolderOnlyAndNeverThroughLinks) {
  TestServer server;
  const std::string id = server.start({{"graph", "gate.dot"}, {"auto_approve", true}});
  ASSERT_TRUE(server.wait_status(id, "completed"));
  const fs::path stage = fs::path(server.logs_root()) / id / "work";
  fs::create_symlink("/etc/passwd", stage / "passwd.txt");
  std::ofstream(stage / "<img src=x onerror=alert(1)>.txt") << "hello";
  json view = json::parse(server.get("/pipelines/" + id + "/stages/work")->body);
  EXPECT_FALSE(view["files"].contains("passwd.txt"));
  EXPECT_EQ(view["files"]["<img src=x onerror=alert(1)>.txt"], "hello") << "names are data; the page escapes them";
}

TEST(ServerSecurityTest, ThePageIsServedWithAStrictContentSecurityPolicy) {
  TestServer server;
  auto page = server.get("/");
  ASSERT_EQ(page->status, 200);
  EXPECT_NE(page->body.find("<script"), std::string::npos);
  EXPECT_EQ(page->get_header_value("Content-Security-Policy").rfind("default-src 'self'", 0), 0u);
  EXPECT_EQ(page->get_header_value("X-Content-Type-Options"), "nosniff");
  EXPECT_EQ(server.get("/app.js")->get_header_value("Content-Type"), "text/javascript; charset=utf-8");
}

TEST(ServerSecurityTest, AWorkdirMustBeADirectoryInsideTheWorkdirRoot) {
  TempDir outside;
  const fs::path root = fs::path(outside.sub("root"));
  fs::create_directories(root / "project");
  std::ofstream(root / "notes.txt") << "x";
  fs::create_symlink(outside.path(), root / "escape");
  ServerConfig config;
  config.workdir_root = root.string();
  TestServer server(1, kToken, config);
  const std::string rule = "a request's workdir must be a directory inside the workdir root " +
                           fs::canonical(root).string() + " (attractor serve --workdir-root)";
  const std::vector<std::tuple<json, int, std::string>> refused = {
      {"../", 403, "workdir '../' is outside: " + rule},
      {"project/../../x", 403, "workdir 'project/../../x' is outside: " + rule},
      {outside.path(), 403, "workdir '" + outside.path() + "' is outside: " + rule},
      {"escape", 403, "workdir 'escape' leads outside through a symbolic link: " + rule},
      {"missing", 400, "workdir 'missing' does not exist; " + rule},
      {"notes.txt", 400, "workdir 'notes.txt' is not a directory; " + rule},
      {7, 400, "workdir must be a non-empty string"},
      {"", 400, "workdir must be a non-empty string"}};
  for (const auto& [workdir, status, message] : refused) {
    auto res = server.post("/pipelines", {{"graph", "gate.dot"}, {"workdir", workdir}});
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, status) << workdir;
    EXPECT_EQ(json::parse(res->body)["error"], message) << workdir;
  }
  EXPECT_TRUE(fs::is_empty(server.logs_root())) << "nothing is created for a refused run";
  for (const std::string& accepted : {std::string("project"), (root / "project").string(), std::string(".")}) {
    EXPECT_EQ(server.post("/pipelines", {{"graph", "gate.dot"}, {"workdir", accepted}})->status, 201) << accepted;
  }
}

TEST(ServerSecurityTest, ToolsRunInTheRequestedWorkdirAlsoAfterAResume) {
  TempDir dir;
  const fs::path root = fs::canonical(dir.path());
  fs::create_directories(root / "project" / "sub");
  fs::create_directories(root / "sub");
  ServerConfig config;
  config.workdir_root = root.string();
  config.allow_commands = true;
  TestServer server(1, kToken, config);
  server.add_graph("where.dot", R"(digraph Where {
    start [shape=Mdiamond]
    here [shape=parallelogram, tool_command="pwd > \"$ATTRACTOR_NODE_DIR/pwd.txt\""]
    nested [shape=parallelogram, tool_cwd="sub", tool_command="pwd > \"$ATTRACTOR_NODE_DIR/pwd.txt\""]
    approve [shape=hexagon, label="Go on?"]
    later [shape=parallelogram, tool_command="pwd > \"$ATTRACTOR_NODE_DIR/pwd.txt\""]
    exit [shape=Msquare]
    start -> here -> nested -> approve
    approve -> later [label="[Y] Yes"]
    later -> exit
  })");
  auto read = [&](const std::string& id, const std::string& node) {
    std::ifstream in(fs::path(server.logs_root()) / id / node / "pwd.txt");
    std::string line;
    std::getline(in, line);
    return line;
  };
  const std::string id = server.start({{"graph", "where.dot"}, {"workdir", "project"}});
  ASSERT_TRUE(server.wait_question(id).is_object());
  EXPECT_EQ(read(id, "here"), (root / "project").string());
  EXPECT_EQ(read(id, "nested"), (root / "project" / "sub").string()) << "a relative tool_cwd is inside the workdir";
  EXPECT_EQ(server.post("/pipelines/" + id + "/cancel", json::object())->status, 200);
  ASSERT_TRUE(server.wait_status(id, "cancelled"));
  EXPECT_EQ(server.post("/pipelines/" + id + "/resume", json::object())->status, 202);
  json q = server.wait_question(id);
  ASSERT_TRUE(q.is_object());
  EXPECT_EQ(server.post("/pipelines/" + id + "/questions/" + q["id"].get<std::string>() + "/answer", {{"answer", "Y"}})
                ->status,
            200);
  ASSERT_TRUE(server.wait_status(id, "completed"));
  EXPECT_EQ(read(id, "later"), (root / "project").string()) << "the resumed run works where it started";

  const std::string plain = server.start({{"graph", "where.dot"}});
  ASSERT_TRUE(server.wait_question(plain).is_object());
  EXPECT_EQ(read(plain, "here"), root.string()) << "without a workdir a run works in the root";
}

}  // namespace
}  // namespace attractor::testing

namespace attractor::testing {
namespace {

// The editor's endpoints (docs/server.md, "The pipeline editor") sit behind the same checks as
// every other route: the token, the Origin rule for state changes, and the graphs directory.
TEST(ServerSecurityTest, TheEditorEndpointsNeedTheTokenAndTheirOwnOriginToSave) {
  TestServer server(1, kTestToken);
  server.add_graph("mine.dot", "digraph M {}\n");
  const json save = {{"path", "mine.dot"}, {"dot", "digraph Changed {}\n"}};
  EXPECT_EQ(server.anonymous()->Get("/editor/graph?path=mine.dot")->status, 401);
  EXPECT_EQ(server.anonymous()->Post("/editor/graph", save.dump(), "application/json")->status, 401);
  EXPECT_EQ(server.anonymous()->Get("/editor.js")->status, 401);
  EXPECT_EQ(server.anonymous()->Get("/vendor/codemirror-view.js")->status, 401);
  EXPECT_EQ(server.post("/editor/graph", save, {{"Origin", "http://evil.example"}})->status, 403);
  auto opened = server.get("/editor/graph?path=mine.dot");
  ASSERT_EQ(opened->status, 200);
  EXPECT_EQ(json::parse(opened->body)["dot"], "digraph M {}\n") << "a refused save wrote nothing";
  EXPECT_EQ(server.post("/editor/graph", {{"path", "../escape.dot"}, {"dot", "x"}})->status, 400);
  EXPECT_EQ(server.post("/editor/graph", save)->status, 200);
  EXPECT_EQ(json::parse(server.get("/editor/graph?path=mine.dot")->body)["dot"], "digraph Changed {}\n");
  auto module = server.get("/vendor/codemirror-view.js");
  ASSERT_EQ(module->status, 200);
  EXPECT_EQ(module->get_header_value("Content-Type"), "text/javascript; charset=utf-8");
  EXPECT_EQ(module->body.find("from \"@codemirror/"), std::string::npos) << "imports are rewritten to flat names";
  EXPECT_EQ(server.get("/vendor/..%2Fapp.js")->status, 404);
  auto preview = server.post("/editor/preview", {{"dot", "digraph P { a -> b }"}});
  ASSERT_EQ(preview->status, 200);
  EXPECT_EQ(preview->get_header_value("Content-Type"), "image/svg+xml");
}

}  // namespace
}  // namespace attractor::testing
