// The HTTP module loader: where it looks, the errors when the module is missing, broken or from
// another build, and a round trip through the real module: its server answers its own POST, a
// stream arrives whole, and a TransportError thrown inside it is caught here by type.

#include "http/http_module.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "support/temp_dir.h"

namespace attractor {
namespace {

namespace fs = std::filesystem;
using retrieval::testing::TempDir;

/// The error `load(candidates)` throws (fails the test when it does not throw).
std::string load_error(const std::vector<fs::path>& candidates) {
  try {
    HttpModule::load(candidates);
  } catch (const ModuleLoadError& e) {
    return e.what();
  }
  ADD_FAILURE() << "load did not throw";
  return "";
}

TEST(HttpModuleTest, LooksBesideTheExecutableThenInLibAttractor) {
  EXPECT_EQ(http_module_candidates("/opt/attractor/bin/attractor"),
            (std::vector<fs::path>{"/opt/attractor/bin/libattractor_http.so",
                                   "/opt/attractor/lib/attractor/libattractor_http.so"}));
}

TEST(HttpModuleTest, MissingModuleNamesEveryPathSearchedAndTheFix) {
  TempDir dir;
  const std::vector<fs::path> candidates = http_module_candidates(dir.path() / "bin" / "attractor");
  EXPECT_EQ(load_error(candidates),
            "the HTTP module libattractor_http.so is missing (searched " + candidates[0].string() + ", " +
                candidates[1].string() +
                "); build the attractor_http_module target next to the attractor binary (make binary), or install "
                "attractor with `make install` / `cmake --install`, which puts it in PREFIX/lib/attractor/");
}

TEST(HttpModuleTest, AFileThatIsNotASharedObjectIsRefusedWithTheLoaderMessage) {
  TempDir dir;
  const fs::path bogus = dir.path() / "libattractor_http.so";
  std::ofstream(bogus) << "not an ELF file\n";
  const std::string message = load_error({bogus, ATTRACTOR_HTTP_MODULE});
  EXPECT_EQ(message.rfind("cannot load the HTTP module " + bogus.string() + ": ", 0), 0u) << message;
}

TEST(HttpModuleTest, AModuleWithAnotherAbiVersionIsRefusedBeforeAnyCall) {
  const std::string message = load_error({ATTRACTOR_WRONG_ABI_HTTP_MODULE});
  EXPECT_EQ(
      message.rfind(std::string(ATTRACTOR_WRONG_ABI_HTTP_MODULE) +
                        " is an HTTP module for another attractor build (ABI version 999, this attractor needs " +
                        std::to_string(kHttpModuleAbiVersion) + "); rebuild or reinstall it with this attractor: ",
                    0),
      0u)
      << message;
}

TEST(HttpModuleTest, TheRetrievalModuleIsNotAnHttpModule) {
  const std::string message = load_error({ATTRACTOR_RETRIEVAL_MODULE});
  EXPECT_NE(message.find("is not an attractor HTTP module (no attractor_http_module entry point)"), std::string::npos)
      << message;
}

TEST(HttpModuleTest, TheFirstExistingCandidateIsLoaded) {
  HttpModule module = HttpModule::load({"/nonexistent/libattractor_http.so", ATTRACTOR_HTTP_MODULE});
  EXPECT_EQ(module.path(), fs::path(ATTRACTOR_HTTP_MODULE));
  EXPECT_NE(load_error({ATTRACTOR_WRONG_ABI_HTTP_MODULE, ATTRACTOR_HTTP_MODULE}).find("ABI version 999"),
            std::string::npos);
}

/// A server of the module's on a free loopback port, serving on its own thread.
class ModuleServer {
 public:
  explicit ModuleServer(const HttpModule& module) : server_(module.make_server({2, 1 << 20, 0})) {}
  ~ModuleServer() {
    for (int i = 0; i < 5000 && !server_->is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    server_->stop();
    thread_.join();
  }
  HttpServerBackend& operator*() { return *server_; }
  /// Binds and starts serving; returns the base URL.
  std::string start() {
    const int port = server_->bind("127.0.0.1", 0);
    EXPECT_GT(port, 0);
    thread_ = std::thread([this] { server_->listen_after_bind(); });
    return "http://127.0.0.1:" + std::to_string(port);
  }

 private:
  std::unique_ptr<HttpServerBackend> server_;
  std::thread thread_;
};

TEST(HttpModuleTest, TheModulesServerAnswersTheModulesPost) {
  HttpModule module = HttpModule::load({ATTRACTOR_HTTP_MODULE});
  ModuleServer server(module);
  (*server).post(R"(/echo/([a-z]+))", [](const ServerRequest& req, ServerResponse& res) {
    res.set_header("X-Seen", req.match(1) + " " + req.header("x-api-key"));
    res.set_content(req.body(), "application/json");
    res.set_status(201);
  });
  (*server).post("/stream", [](const ServerRequest&, ServerResponse& res) {
    auto parts = std::make_shared<int>(0);
    res.set_stream(
        "text/event-stream",
        [parts](StreamSink& sink) {
          if (++*parts == 3) {
            sink.done();
            return true;
          }
          return sink.write("part " + std::to_string(*parts) + "\n");
        },
        nullptr);
  });
  const std::string url = server.start();
  HttpRequest request;
  request.url = url + "/echo/abc";
  request.headers = {{"X-Api-Key", "k"}};
  request.body = R"({"a": 1})";
  HttpResponse response = module.post(request, 5000);
  EXPECT_EQ(response.status, 201);
  EXPECT_EQ(response.body, R"({"a": 1})");
  EXPECT_EQ(response.header("x-seen"), "abc k");
  request.url = url + "/stream";
  EXPECT_EQ(module.post(request, 5000).body, "part 1\npart 2\n");
}

TEST(HttpModuleTest, ATransportErrorThrownInsideTheModuleIsCaughtByType) {
  HttpModule module = HttpModule::load({ATTRACTOR_HTTP_MODULE});
  HttpRequest request;
  request.url = "http://127.0.0.1:1/v1/chat/completions";  // nothing listens on port 1
  try {
    module.post(request, 2000);
    FAIL() << "no exception";
  } catch (const TransportError& e) {
    EXPECT_EQ(e.kind(), TransportError::Kind::kConnection) << e.what();
    EXPECT_NE(std::string(e.what()).find("request to http://127.0.0.1:1/v1/chat/completions failed"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace attractor
