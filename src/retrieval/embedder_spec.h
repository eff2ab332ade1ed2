#pragma once
/// \file
/// Which embedding provider an index uses (retrieval/local/embedder.h holds the providers): a plain
/// value the CLI fills from flags and the environment and hands to the indexer.

#include <string>

namespace attractor::retrieval {

/// Settings for make_embedder. Environment defaults (used by the CLI): ATTRACTOR_EMBEDDINGS_PROVIDER,
/// ATTRACTOR_EMBEDDINGS_BASE_URL, ATTRACTOR_EMBEDDINGS_MODEL, ATTRACTOR_EMBEDDINGS_API_KEY or
/// OPENAI_API_KEY.
struct EmbedderSpec {
  std::string provider = "lexical";
  std::string model;     ///< lexical: "lexical-v1"; openai: e.g. "text-embedding-3-small"
  int dimension = 0;     ///< lexical: default 256; openai: sent as `dimensions` when > 0
  std::string base_url;  ///< openai: e.g. "https://api.openai.com" or "http://127.0.0.1:8080/v1"
  std::string api_key;
  int batch_size = 64;
  int max_retries = 3;
  int retry_base_delay_ms = 500;
  int timeout_seconds = 60;

  /// Fills the spec from the environment variables listed above (provider defaults to lexical).
  static EmbedderSpec from_environment();
};

}  // namespace attractor::retrieval
