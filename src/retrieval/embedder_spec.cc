#include "retrieval/embedder_spec.h"

#include <cstdlib>

namespace attractor::retrieval {

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

}  // namespace

EmbedderSpec EmbedderSpec::from_environment() {
  EmbedderSpec spec;
  if (auto p = env("ATTRACTOR_EMBEDDINGS_PROVIDER"); !p.empty()) spec.provider = p;
  spec.base_url = env("ATTRACTOR_EMBEDDINGS_BASE_URL");
  spec.model = env("ATTRACTOR_EMBEDDINGS_MODEL");
  spec.api_key = env("ATTRACTOR_EMBEDDINGS_API_KEY");
  if (spec.api_key.empty()) spec.api_key = env("OPENAI_API_KEY");
  if (auto d = env("ATTRACTOR_EMBEDDINGS_DIMENSIONS"); !d.empty()) spec.dimension = std::atoi(d.c_str());
  return spec;
}

}  // namespace attractor::retrieval
