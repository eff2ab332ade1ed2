#pragma once
/// \file
/// Rendering DOT text to an image with Graphviz's `dot` program, behind a small interface so tests
/// can substitute a fake.

#include <cstddef>
#include <string>

namespace attractor {

/// Result of one rendering: the image's bytes, or an error message for the user.
struct RenderResult {
  bool ok = false;
  bool tool_missing = false;  ///< `dot` was not found on PATH
  std::string error;
  std::string image;  ///< the rendered file's bytes when ok
};

/// Renders DOT text into an image of the given format (svg, png, pdf, ...) held in memory, so a
/// caller decides where (and whether) it is written: nothing is on disk until it is whole.
class GraphvizRenderer {
 public:
  virtual ~GraphvizRenderer() = default;
  virtual RenderResult render(const std::string& dot_text, const std::string& format) = 0;
};

/// The largest image DotProcessRenderer keeps: beyond it the render fails and `dot` is stopped.
inline constexpr std::size_t kMaxRenderedImageBytes = std::size_t{1} << 30;

/// Runs `dot -T<format>` as a supervised subprocess (its own process group, ended with attractor:
/// docs/run-directory.md section 8), feeding the DOT text on stdin and reading the image from stdout.
class DotProcessRenderer : public GraphvizRenderer {
 public:
  explicit DotProcessRenderer(std::string program = "dot", std::size_t max_image_bytes = kMaxRenderedImageBytes)
      : program_(std::move(program)), max_image_bytes_(max_image_bytes) {}
  RenderResult render(const std::string& dot_text, const std::string& format) override;

 private:
  std::string program_;
  std::size_t max_image_bytes_;
};

}  // namespace attractor
