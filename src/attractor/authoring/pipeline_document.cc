#include "attractor/authoring/pipeline_document.h"

#include <algorithm>

namespace attractor {

PipelineDocument::PipelineDocument(std::string path, std::string text, const AuthoringCatalog& catalog)
    : path_(std::move(path)), text_(std::move(text)), catalog_(catalog), syntax_(read_syntax(text_)), lines_(text_) {}

const LoadedPipeline& PipelineDocument::loaded() const {
  if (!loaded_) loaded_ = std::make_unique<LoadedPipeline>(load_pipeline_text(path_, text_, *catalog_.handlers));
  return *loaded_;
}

TokenIndex PipelineDocument::token_at(std::size_t offset) const {
  const auto& tokens = syntax_.tokens;
  auto it = std::upper_bound(tokens.begin(), tokens.end(), offset,
                             [](std::size_t at, const SyntaxToken& t) { return at < t.begin; });
  if (it == tokens.begin()) return kNoToken;
  --it;
  if (offset <= it->end) return static_cast<TokenIndex>(it - tokens.begin());
  return kNoToken;
}

std::string apply_edits(std::string_view text, std::vector<TextEdit> edits) {
  std::sort(edits.begin(), edits.end(),
            [](const TextEdit& a, const TextEdit& b) { return a.range.begin < b.range.begin; });
  std::string out;
  std::size_t at = 0;
  for (const TextEdit& e : edits) {
    std::size_t begin = std::clamp(e.range.begin, at, text.size());
    out.append(text.substr(at, begin - at));
    out += e.text;
    at = std::clamp(e.range.end, begin, text.size());
  }
  out.append(text.substr(at));
  return out;
}

}  // namespace attractor
