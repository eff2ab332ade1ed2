// The security rules of docs/server.md section 2, each proved with real requests: tokens and the
// login, the cross-site and Host checks, size limits, and ids that cannot leave the logs root.

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "support/server_test_support.h"

namespace attractor::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kToken = "0123456789abcdef0123456789abcdef";

TEST(ServerSecurityTest, WithATokenEveryRequestNeedsIt) {
  TestServer server(1, kToken);
  auto anonymous = server.get("/pipelines");
  EXPECT_EQ(anonymous->status, 401);
  EXPECT_EQ(json::parse(anonymous->body)["error"],
            "authentication required: Authorization: Bearer TOKEN, or log in at /login");
  EXPECT_EQ(server.get("/pipelines", {{"Authorization", "Bearer wrong"}})->status, 401);
  EXPECT_EQ(server.get("/pipelines", {{"Authorization", "Bearer " + kToken}})->status, 200);
  EXPECT_EQ(server.get("/")->status, 401) << "the page too";
  EXPECT_EQ(server.get("/login")->status, 200) << "the login form is reachable";
}

TEST(ServerSecurityTest, TheLoginCodeWorksOnceAndSetsAStrictHttpOnlyCookie) {
  TestServer server(1, kToken);
  const std::string code = server.http().access().new_login_code();
  auto login = server.get("/login?code=" + code);
  ASSERT_EQ(login->status, 303);
  EXPECT_EQ(login->get_header_value("Location"), "/");
  const std::string cookie = login->get_header_value("Set-Cookie");
  EXPECT_NE(cookie.find("HttpOnly"), std::string::npos) << cookie;
  EXPECT_NE(cookie.find("SameSite=Strict"), std::string::npos) << cookie;
  const std::string session = cookie.substr(0, cookie.find(';'));
  EXPECT_EQ(server.get("/pipelines", {{"Cookie", session}})->status, 200);
  EXPECT_EQ(server.get("/pipelines", {{"Cookie", "attractor_session=forged"}})->status, 401);
  EXPECT_EQ(server.get("/login?code=" + code)->status, 401) << "a code works once";

  auto form = server.client()->Post("/login", "token=" + kToken, "application/x-www-form-urlencoded");
  EXPECT_EQ(form->status, 303);
  auto wrong = server.client()->Post("/login", "token=nope", "application/x-www-form-urlencoded");
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

TEST(ServerSecurityTest, ALoopbackServerAnswersOnlyToLoopbackHostNames) {
  TestServer server;
  auto rebound = server.get("/pipelines", {{"Host", "attacker.example:80"}});
  EXPECT_EQ(rebound->status, 421);
  EXPECT_EQ(server.get("/pipelines", {{"Host", "localhost"}})->status, 200);
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
  for (const std::string& path : std::vector<std::string>{"/pipelines/..%2F..%2Fetc/passwd", "/pipelines/..%2F..%2Fetc%2Fpasswd/checkpoint", "/pipelines/../etc",
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

}  // namespace
}  // namespace attractor::testing
