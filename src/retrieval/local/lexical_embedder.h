#pragma once
/// \file
/// The built-in offline embedder. It needs no model: each text is hashed into a fixed number of
/// buckets (signed feature hashing, FNV-1a) from its identifier sub-tokens (weight 1), whole
/// identifiers (weight 1) and character trigrams of every sub-token (weight 0.5), with sublinear
/// term frequency, then L2-normalized. It is deterministic and honest about what it is: a lexical
/// similarity (shared names and spelling), not a semantic model. Use the OpenAI-compatible provider
/// for meaning-level similarity.

#include "retrieval/local/embedder.h"

namespace attractor::retrieval {

class LexicalEmbedder : public IEmbedder {
 public:
  explicit LexicalEmbedder(int dimension = 256);
  EmbedderInfo info() const override;
  std::vector<std::vector<float>> embed(const std::vector<std::string>& texts) override;
  /// One text's vector.
  std::vector<float> embed_one(const std::string& text) const;

 private:
  int dimension_;
};

}  // namespace attractor::retrieval
