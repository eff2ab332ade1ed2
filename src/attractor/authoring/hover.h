#pragma once
/// \file
/// Hover text: on an attribute name or value, the attribute's type, default and meaning from the
/// catalog; on a node id, the node as the run will see it after stylesheet and defaults (handler,
/// shape, fidelity, thread, model) (docs/authoring.md, "Language server").

#include <optional>
#include <string>

#include "attractor/authoring/pipeline_document.h"

namespace attractor {

/// Markdown and the range it describes.
struct HoverText {
  std::string markdown;
  ByteRange range;
};

/// The hover at byte `offset`, if there is anything to say.
std::optional<HoverText> hover_at(const PipelineDocument& doc, std::size_t offset);

}  // namespace attractor
