#pragma once
/// \file
/// OpenAI-compatible embeddings provider: POST `{base_url}/v1/embeddings` (or `{base_url}/embeddings`
/// when the base URL already ends in /v1) with `{"model", "input": [...], "dimensions"?}`, in batches
/// of `batch_size`, retrying HTTP 429/5xx and connection failures up to `max_retries` times with
/// exponential backoff. Vectors are re-ordered by the response's `index` and L2-normalized.

#include "retrieval/local/embedder.h"

namespace attractor::retrieval {

class OpenAiEmbedder : public IEmbedder {
 public:
  explicit OpenAiEmbedder(EmbedderSpec spec);
  EmbedderInfo info() const override;
  std::vector<std::vector<float>> embed(const std::vector<std::string>& texts) override;

 private:
  std::vector<std::vector<float>> embed_batch(const std::vector<std::string>& texts);
  EmbedderSpec spec_;
  int dimension_ = 0;
};

}  // namespace attractor::retrieval
