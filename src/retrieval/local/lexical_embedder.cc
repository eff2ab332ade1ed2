#include "retrieval/local/lexical_embedder.h"

#include <cmath>
#include <cstdint>
#include <map>

#include "retrieval/backend.h"
#include "retrieval/local/code_tokens.h"
#include "retrieval/local/ordered_pool.h"
#include "retrieval/local/vector_index.h"

namespace attractor::retrieval {

namespace {

uint64_t fnv1a(std::string_view s, uint64_t salt) {
  uint64_t h = 1469598103934665603ULL ^ salt;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

}  // namespace

LexicalEmbedder::LexicalEmbedder(int dimension) : dimension_(dimension) {
  if (dimension < 8)
    throw RetrievalError(RetrievalError::Kind::kInvalidArgument, "lexical embedder dimension must be >= 8");
}

EmbedderInfo LexicalEmbedder::info() const { return {"lexical", "lexical-v1", dimension_}; }

std::vector<float> LexicalEmbedder::embed_one(const std::string& text) const {
  std::map<std::string, float> features;
  for (auto run : identifier_runs(text)) {
    std::string joined = joined_identifier(run);
    if (joined.empty()) continue;
    features["w:" + joined] += 1.0f;
    auto parts = split_identifier(run);
    for (const auto& p : parts) {
      if (parts.size() > 1) features["w:" + p] += 1.0f;
      std::string padded = "^" + p + "$";
      for (size_t i = 0; i + 3 <= padded.size(); ++i) features["g:" + padded.substr(i, 3)] += 1.0f;
    }
  }
  std::vector<float> v(dimension_, 0.0f);
  for (const auto& [feature, count] : features) {
    uint64_t h = fnv1a(feature, 0);
    size_t bucket = h % static_cast<uint64_t>(dimension_);
    float sign = (h >> 63) ? -1.0f : 1.0f;
    v[bucket] += sign * (1.0f + std::log(count)) * (feature[0] == 'g' ? 0.5f : 1.0f);
  }
  normalize(v);
  return v;
}

std::vector<std::vector<float>> LexicalEmbedder::embed(const std::vector<std::string>& texts) {
  std::vector<std::vector<float>> out(texts.size());
  // Each text is hashed on its own: the batch is shared among the parse threads.
  run_ordered(
      texts.size(), texts.size() >= 32 ? parse_threads() : 0, texts.size(),
      [&](size_t i) { out[i] = embed_one(texts[i]); }, [](size_t) {});
  return out;
}

}  // namespace attractor::retrieval
