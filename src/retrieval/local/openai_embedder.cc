#include "retrieval/local/openai_embedder.h"

#include <httplib.h>

#include <chrono>
#include <thread>

#include <nlohmann/json.hpp>

#include "attractor/base/json_limits.h"
#include "attractor/base/log.h"
#include "retrieval/backend.h"
#include "retrieval/local/vector_index.h"

namespace attractor::retrieval {

namespace {

/// Splits "http://host:port/prefix" into ("http://host:port", "/prefix").
std::pair<std::string, std::string> split_url(const std::string& url) {
  auto scheme = url.find("://");
  size_t start = scheme == std::string::npos ? 0 : scheme + 3;
  auto slash = url.find('/', start);
  if (slash == std::string::npos) return {url, ""};
  std::string path = url.substr(slash);
  while (!path.empty() && path.back() == '/') path.pop_back();
  return {url.substr(0, slash), path};
}

}  // namespace

OpenAiEmbedder::OpenAiEmbedder(EmbedderSpec spec) : spec_(std::move(spec)), dimension_(spec_.dimension) {
  if (spec_.base_url.empty()) spec_.base_url = "https://api.openai.com";
  if (spec_.model.empty()) {
    throw RetrievalError(RetrievalError::Kind::kInvalidArgument, "the openai embedding provider needs a model");
  }
  if (spec_.batch_size < 1) spec_.batch_size = 1;
}

EmbedderInfo OpenAiEmbedder::info() const { return {"openai", spec_.model, dimension_}; }

std::vector<std::vector<float>> OpenAiEmbedder::embed(const std::vector<std::string>& texts) {
  std::vector<std::vector<float>> out;
  out.reserve(texts.size());
  for (size_t i = 0; i < texts.size(); i += static_cast<size_t>(spec_.batch_size)) {
    std::vector<std::string> batch(
        texts.begin() + static_cast<std::ptrdiff_t>(i),
        texts.begin() + static_cast<std::ptrdiff_t>(std::min(texts.size(), i + spec_.batch_size)));
    auto vectors = embed_batch(batch);
    for (auto& v : vectors) out.push_back(std::move(v));
  }
  return out;
}

std::vector<std::vector<float>> OpenAiEmbedder::embed_batch(const std::vector<std::string>& texts) {
  auto [host, prefix] = split_url(spec_.base_url);
  std::string path = prefix.size() >= 3 && prefix.compare(prefix.size() - 3, 3, "/v1") == 0 ? prefix + "/embeddings"
                                                                                            : prefix + "/v1/embeddings";
  nlohmann::json body = {{"model", spec_.model}, {"input", texts}};
  if (spec_.dimension > 0) body["dimensions"] = spec_.dimension;
  httplib::Headers headers;
  if (!spec_.api_key.empty()) headers.emplace("Authorization", "Bearer " + spec_.api_key);

  std::string last_error;
  for (int attempt = 0; attempt <= spec_.max_retries; ++attempt) {
    if (attempt > 0) {
      const int delay_ms = spec_.retry_base_delay_ms > 0 ? spec_.retry_base_delay_ms << (attempt - 1) : 0;
      log().info("embeddings endpoint {}{}: {}; retry {} of {} in {}ms", host, path, last_error, attempt,
                 spec_.max_retries, delay_ms);
      if (delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    }
    httplib::Client client(host);
    client.set_connection_timeout(spec_.timeout_seconds, 0);
    client.set_read_timeout(spec_.timeout_seconds, 0);
    client.set_write_timeout(spec_.timeout_seconds, 0);
    auto res = client.Post(path, headers, body.dump(), "application/json");
    if (!res) {
      last_error = "connection failed (" + httplib::to_string(res.error()) + ")";
      continue;
    }
    if (res->status == 429 || res->status >= 500) {
      last_error = "HTTP " + std::to_string(res->status);
      continue;
    }
    if (res->status != 200) {
      throw RetrievalError(RetrievalError::Kind::kUnavailable, "embeddings endpoint " + host + path +
                                                                   " answered HTTP " + std::to_string(res->status) +
                                                                   ": " + res->body.substr(0, 300));
    }
    nlohmann::json reply;
    try {
      reply = parse_json_limited(res->body, "the embeddings reply");
    } catch (const std::exception&) {
      throw RetrievalError(RetrievalError::Kind::kUnavailable, "embeddings endpoint returned invalid JSON");
    }
    if (!reply.contains("data") || !reply["data"].is_array() || reply["data"].size() != texts.size()) {
      throw RetrievalError(RetrievalError::Kind::kUnavailable, "embeddings response has the wrong number of vectors");
    }
    std::vector<std::vector<float>> out(texts.size());
    for (size_t i = 0; i < reply["data"].size(); ++i) {
      const auto& item = reply["data"][i];
      size_t index = item.contains("index") ? item["index"].get<size_t>() : i;
      if (index >= out.size() || !item.contains("embedding") || !item["embedding"].is_array()) {
        throw RetrievalError(RetrievalError::Kind::kUnavailable, "malformed embeddings response item");
      }
      out[index] = item["embedding"].get<std::vector<float>>();
      if (dimension_ == 0) dimension_ = static_cast<int>(out[index].size());
      if (static_cast<int>(out[index].size()) != dimension_) {
        throw RetrievalError(RetrievalError::Kind::kUnavailable, "embedding has dimension " +
                                                                     std::to_string(out[index].size()) + ", expected " +
                                                                     std::to_string(dimension_));
      }
      normalize(out[index]);
    }
    return out;
  }
  throw RetrievalError(RetrievalError::Kind::kUnavailable, "embeddings endpoint " + host + path + " failed after " +
                                                               std::to_string(spec_.max_retries + 1) +
                                                               " attempts: " + last_error);
}

}  // namespace attractor::retrieval
