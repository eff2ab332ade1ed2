#pragma once
/// \file
/// Embedding providers. The provider name, model and dimension are recorded per named index; a
/// semantic query must use the same provider (checked by the local backend).

#include <memory>
#include <string>
#include <vector>

#include "retrieval/embedder_spec.h"

namespace attractor::retrieval {

/// Identity of an embedding provider, as recorded in the index.
struct EmbedderInfo {
  std::string provider;  ///< "lexical" | "openai"
  std::string model;
  int dimension = 0;  ///< 0 = not known until the first call (OpenAI-compatible without `dimensions`)
};

/// Turns texts into L2-normalized vectors of `info().dimension` floats, one per text, in order.
class IEmbedder {
 public:
  virtual ~IEmbedder() = default;
  virtual EmbedderInfo info() const = 0;
  /// Throws RetrievalError(kUnavailable) when the provider fails.
  virtual std::vector<std::vector<float>> embed(const std::vector<std::string>& texts) = 0;
};

/// Creates the provider named by `spec.provider`; throws RetrievalError(kInvalidArgument).
std::unique_ptr<IEmbedder> make_embedder(const EmbedderSpec& spec);

}  // namespace attractor::retrieval
