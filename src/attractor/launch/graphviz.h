#pragma once
/// \file
/// Rendering DOT text to an image with Graphviz's `dot` program, behind a small interface so tests
/// can substitute a fake.

#include <string>

namespace attractor {

/// Result of one rendering: ok, or an error message for the user.
struct RenderResult {
  bool ok = false;
  bool tool_missing = false;  ///< `dot` was not found on PATH
  std::string error;
};

/// Renders DOT text into a file of the given format (svg, png, pdf, ...).
class GraphvizRenderer {
 public:
  virtual ~GraphvizRenderer() = default;
  virtual RenderResult render(const std::string& dot_text, const std::string& format,
                              const std::string& output_path) = 0;
};

/// Runs `dot -T<format> -o <output>` as a subprocess, feeding the DOT text on stdin.
class DotProcessRenderer : public GraphvizRenderer {
 public:
  explicit DotProcessRenderer(std::string program = "dot") : program_(std::move(program)) {}
  RenderResult render(const std::string& dot_text, const std::string& format, const std::string& output_path) override;

 private:
  std::string program_;
};

}  // namespace attractor
