#pragma once
/// \file
/// PARSE -> TRANSFORM -> VALIDATE (spec §3.1, §9.1): the one way every command turns a `.dot`
/// file into a graph that is safe to run or render.

#include <optional>
#include <string>
#include <vector>

#include "attractor/model/diagnostic.h"
#include "attractor/model/graph.h"
#include "attractor/check/lint.h"
#include "attractor/model/source_file.h"
#include "attractor/check/transforms.h"

namespace attractor {

/// A parsed, transformed and validated pipeline. `graph` is empty when parsing failed; when lint
/// found errors the graph is present but `ok()` is false.
struct LoadedPipeline {
  std::optional<Graph> graph;
  std::vector<Diagnostic> diagnostics;  ///< parse diagnostics, then transform and lint diagnostics
  SourceFilePtr source;

  bool ok() const { return graph.has_value() && !has_errors(diagnostics); }
};

/// Reads `path`, parses, applies transforms (built-in + registered + `extra_transforms`) and runs
/// lint (built-in + registered + `extra_rules`) against the handler types of `handlers`.
LoadedPipeline load_pipeline(const std::string& path, const HandlerCatalog& handlers,
                             const std::vector<TransformPtr>& extra_transforms = {},
                             const std::vector<LintRulePtr>& extra_rules = {});

/// The same with lint options (strict mode, the context keys set before the run).
LoadedPipeline load_pipeline(const std::string& path, const HandlerCatalog& handlers, const LintOptions& options);

/// Same, from text already in memory (`path` is used only in diagnostics).
LoadedPipeline load_pipeline_text(const std::string& path, std::string text, const HandlerCatalog& handlers,
                                  const std::vector<TransformPtr>& extra_transforms = {},
                                  const std::vector<LintRulePtr>& extra_rules = {});
/// The same with lint options.
LoadedPipeline load_pipeline_text(const std::string& path, std::string text, const HandlerCatalog& handlers,
                                  const LintOptions& options);

}  // namespace attractor
