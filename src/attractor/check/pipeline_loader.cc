#include "attractor/check/pipeline_loader.h"

#include "parser/condition.h"
#include "parser/dot_parser.h"

namespace attractor {
namespace {

LoadedPipeline finish(ParseResult parsed, const HandlerCatalog& handlers,
                      const std::vector<TransformPtr>& extra_transforms, const std::vector<LintRulePtr>& extra_rules,
                      const LintOptions& options = {}) {
  LoadedPipeline out;
  out.source = parsed.source;
  out.diagnostics = std::move(parsed.diagnostics);
  if (!parsed.graph) return out;
  Graph graph = std::move(*parsed.graph);
  apply_transforms(graph, out.diagnostics, extra_transforms);
  parse_edge_conditions(graph);
  auto lint = validate(graph, handlers, options, extra_rules);
  out.diagnostics.insert(out.diagnostics.end(), lint.begin(), lint.end());
  out.graph = std::move(graph);
  return out;
}

}  // namespace

LoadedPipeline load_pipeline(const std::string& path, const HandlerCatalog& handlers,
                             const std::vector<TransformPtr>& extra_transforms,
                             const std::vector<LintRulePtr>& extra_rules) {
  return finish(parse_dot_file(path), handlers, extra_transforms, extra_rules);
}

LoadedPipeline load_pipeline(const std::string& path, const HandlerCatalog& handlers, const LintOptions& options) {
  return finish(parse_dot_file(path), handlers, {}, {}, options);
}

LoadedPipeline load_pipeline_text(const std::string& path, std::string text, const HandlerCatalog& handlers,
                                  const std::vector<TransformPtr>& extra_transforms,
                                  const std::vector<LintRulePtr>& extra_rules) {
  auto source = std::make_shared<const SourceFile>(path, std::move(text));
  return finish(parse_dot(source), handlers, extra_transforms, extra_rules);
}

LoadedPipeline load_pipeline_text(const std::string& path, std::string text, const HandlerCatalog& handlers,
                                  const LintOptions& options) {
  auto source = std::make_shared<const SourceFile>(path, std::move(text));
  return finish(parse_dot(source), handlers, {}, {}, options);
}

}  // namespace attractor
