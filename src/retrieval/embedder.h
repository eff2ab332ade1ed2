#pragma once
/// \file
/// Embedding providers. The provider name, model and dimension are recorded per named index; a
/// semantic query must use the same provider (checked by the local backend).

#include <memory>
#include <string>
#include <vector>

namespace attractor::retrieval {

/// Identity of an embedding provider, as recorded in the index.
struct EmbedderInfo {
  std::string provider;  ///< "lexical" | "openai"
  std::string model;
  int dimension = 0;     ///< 0 = not known until the first call (OpenAI-compatible without `dimensions`)
};

/// Turns texts into L2-normalized vectors of `info().dimension` floats, one per text, in order.
class IEmbedder {
 public:
  virtual ~IEmbedder() = default;
  virtual EmbedderInfo info() const = 0;
  /// Throws RetrievalError(kUnavailable) when the provider fails.
  virtual std::vector<std::vector<float>> embed(const std::vector<std::string>& texts) = 0;
};

/// Settings for make_embedder. Environment defaults (used by the CLI): ATTRACTOR_EMBEDDINGS_PROVIDER,
/// ATTRACTOR_EMBEDDINGS_BASE_URL, ATTRACTOR_EMBEDDINGS_MODEL, ATTRACTOR_EMBEDDINGS_API_KEY or
/// OPENAI_API_KEY.
struct EmbedderSpec {
  std::string provider = "lexical";
  std::string model;      ///< lexical: "lexical-v1"; openai: e.g. "text-embedding-3-small"
  int dimension = 0;      ///< lexical: default 256; openai: sent as `dimensions` when > 0
  std::string base_url;   ///< openai: e.g. "https://api.openai.com" or "http://127.0.0.1:8080/v1"
  std::string api_key;
  int batch_size = 64;
  int max_retries = 3;
  int retry_base_delay_ms = 500;
  int timeout_seconds = 60;

  /// Fills the spec from the environment variables listed above (provider defaults to lexical).
  static EmbedderSpec from_environment();
};

/// Creates the provider named by `spec.provider`; throws RetrievalError(kInvalidArgument).
std::unique_ptr<IEmbedder> make_embedder(const EmbedderSpec& spec);

}  // namespace attractor::retrieval
