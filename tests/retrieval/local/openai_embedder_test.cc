#include "retrieval/local/openai_embedder.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "retrieval/local/local_indexer.h"
#include "retrieval/local/lexical_embedder.h"
#include "retrieval/local/local_backend.h"
#include "support/temp_dir.h"

namespace attractor::retrieval {
namespace {

using nlohmann::json;

/// An in-process OpenAI-compatible embeddings endpoint on 127.0.0.1. Vectors come from the lexical
/// embedder (256 dimensions) so results are deterministic; items are returned in reverse order to
/// check that the client re-orders them by `index`.
class FakeEmbeddingsServer {
 public:
  FakeEmbeddingsServer() {
    server_.Post("/v1/embeddings", [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mu_);
      requests_.push_back(json::parse(req.body));
      auth_.push_back(req.get_header_value("Authorization"));
      if (fail_next_ > 0) {
        --fail_next_;
        res.status = fail_status_;
        res.set_content(R"({"error":{"message":"slow down"}})", "application/json");
        return;
      }
      const auto& body = requests_.back();
      json data = json::array();
      LexicalEmbedder lexical(256);
      auto inputs = body["input"].get<std::vector<std::string>>();
      for (size_t i = inputs.size(); i-- > 0;) {
        auto v = lexical.embed_one(inputs[i]);
        for (auto& x : v) x *= 3.0f;  // not normalized: the client must normalize
        data.push_back({{"object", "embedding"}, {"index", i}, {"embedding", v}});
      }
      res.set_content(json{{"object", "list"}, {"data", data}, {"model", body["model"]}}.dump(), "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    for (int i = 0; i < 2000 && !server_.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~FakeEmbeddingsServer() {
    server_.stop();
    thread_.join();
  }

  EmbedderSpec spec(int batch_size = 64) const {
    EmbedderSpec s;
    s.provider = "openai";
    s.model = "fake-embed-1";
    s.base_url = "http://127.0.0.1:" + std::to_string(port_);
    s.api_key = "sk-test";
    s.batch_size = batch_size;
    s.max_retries = 2;
    s.retry_base_delay_ms = 0;
    s.timeout_seconds = 10;
    return s;
  }
  void fail_next(int count, int status) {
    std::lock_guard<std::mutex> lock(mu_);
    fail_next_ = count;
    fail_status_ = status;
  }
  std::vector<json> requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }
  std::vector<std::string> auth() {
    std::lock_guard<std::mutex> lock(mu_);
    return auth_;
  }

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mu_;
  std::vector<json> requests_;
  std::vector<std::string> auth_;
  int fail_next_ = 0;
  int fail_status_ = 429;
};

TEST(OpenAiEmbedderTest, BatchesOrdersAndNormalizes) {
  FakeEmbeddingsServer server;
  OpenAiEmbedder embedder(server.spec(2));
  std::vector<std::string> texts = {"GetMeetingById", "rooms", "audit log", "cancel meeting", "salary"};
  auto vectors = embedder.embed(texts);
  ASSERT_EQ(vectors.size(), 5u);
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[0]["input"], json({"GetMeetingById", "rooms"}));
  EXPECT_EQ(requests[2]["input"], json({"salary"}));
  EXPECT_EQ(requests[0]["model"], "fake-embed-1");
  EXPECT_FALSE(requests[0].contains("dimensions"));
  EXPECT_EQ(server.auth()[0], "Bearer sk-test");
  LexicalEmbedder lexical(256);
  for (size_t i = 0; i < texts.size(); ++i) {
    auto expected = lexical.embed_one(texts[i]);
    ASSERT_EQ(vectors[i].size(), 256u);
    for (size_t d = 0; d < 256; ++d) EXPECT_NEAR(vectors[i][d], expected[d], 1e-6) << i;
  }
  EXPECT_EQ(embedder.info().dimension, 256);
  EXPECT_EQ(embedder.info().provider, "openai");
}

TEST(OpenAiEmbedderTest, RetriesRateLimitsAndServerErrors) {
  FakeEmbeddingsServer server;
  server.fail_next(2, 429);
  OpenAiEmbedder embedder(server.spec());
  EXPECT_EQ(embedder.embed({"x"}).size(), 1u);
  EXPECT_EQ(server.requests().size(), 3u);

  server.fail_next(3, 503);
  try {
    embedder.embed({"y"});
    FAIL();
  } catch (const RetrievalError& e) {
    EXPECT_EQ(e.kind(), RetrievalError::Kind::kUnavailable);
    EXPECT_NE(std::string(e.what()).find("after 3 attempts: HTTP 503"), std::string::npos) << e.what();
  }
  EXPECT_EQ(server.requests().size(), 6u);
}

TEST(OpenAiEmbedderTest, ClientErrorsAreNotRetried) {
  FakeEmbeddingsServer server;
  server.fail_next(1, 400);
  OpenAiEmbedder embedder(server.spec());
  EXPECT_THROW(embedder.embed({"x"}), RetrievalError);
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST(OpenAiEmbedderTest, SendsDimensionsAndAcceptsV1BaseUrl) {
  FakeEmbeddingsServer server;
  auto spec = server.spec();
  spec.base_url += "/v1/";
  spec.dimension = 256;
  OpenAiEmbedder embedder(spec);
  embedder.embed({"x"});
  EXPECT_EQ(server.requests().at(0)["dimensions"], 256);
}

TEST(OpenAiEmbedderTest, ConnectionFailureIsUnavailable) {
  EmbedderSpec spec;
  spec.provider = "openai";
  spec.model = "m";
  spec.base_url = "http://127.0.0.1:1";
  spec.max_retries = 1;
  spec.retry_base_delay_ms = 0;
  spec.timeout_seconds = 2;
  OpenAiEmbedder embedder(spec);
  try {
    embedder.embed({"x"});
    FAIL();
  } catch (const RetrievalError& e) {
    EXPECT_EQ(e.kind(), RetrievalError::Kind::kUnavailable);
  }
}

TEST(OpenAiEmbedderTest, IndexAndSemanticSearchThroughTheProvider) {
  FakeEmbeddingsServer server;
  testing::TempDir index;
  IndexOptions o;
  o.src_dir = std::string(ATTRACTOR_SOURCE_DIR) + "/tests/data/csharp_sql_repo";
  o.index_dir = index.str();
  o.repository = "acme";
  o.branch = "main";
  o.embedder = server.spec(32);
  auto summary = run_local_indexer(o);
  EXPECT_EQ(summary.vectors_embedded, 79);
  EXPECT_EQ(server.requests().size(), 3u);  // 79 nodes in batches of 32

  LocalBackendOptions opts;
  opts.embedder = server.spec();
  LocalBackend backend(index.str(), opts);
  SearchRequest r{SearchType::kSemantic, "CancelMeeting", 3, "acme", "main", json::object(),
                  std::nullopt,          std::nullopt,    60};
  auto hits = backend.search(r).hits;
  // The fake vectors are the lexical embedder's, so the ranking equals the offline one.
  ASSERT_EQ(hits.size(), 3u);
  EXPECT_EQ(hits[0].id, "cs:Acme.Meetings.Data.IMeetingRepository.Cancel(int,string)");
  EXPECT_EQ(hits[2].id, "sql:dbo.CancelMeeting");

  LocalBackend lexical(index.str(), std::make_unique<LexicalEmbedder>(16));
  EXPECT_THROW(lexical.search(r), RetrievalError);
  // Re-indexing with another provider into the same named index is refused.
  o.embedder = EmbedderSpec{};
  o.src_dir = std::string(ATTRACTOR_SOURCE_DIR) + "/tests/data/csharp_sql_repo/db";
  EXPECT_THROW(run_local_indexer(o), RetrievalError);
}

}  // namespace
}  // namespace attractor::retrieval
