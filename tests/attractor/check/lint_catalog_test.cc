// Lint against a catalog without the handler that defines an attribute lint gives a role to
// (`on_ok` of the retrieval steps, `on_allow` of loop_guard, ...): the attribute has a role but no
// record, and lint must neither type-check it nor crash. Found by tests/fuzz/fuzz_authoring.cc,
// which lints with an empty catalog.

#include <gtest/gtest.h>

#include "attractor/check/pipeline_loader.h"

namespace attractor {
namespace {

TEST(LintCatalogTest, RouteAttributesOfHandlersOutsideTheCatalogAreNotTypeChecked) {
  const HandlerCatalog empty;
  LoadedPipeline loaded = load_pipeline_text(
      "t.dot",
      "digraph v {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n"
      "  guard [type=\"loop_guard\", on_ok=\"nowhere\", on_over=\"exit\", on_allow=exit]\n"
      "  start -> guard -> exit\n}\n",
      empty);
  ASSERT_TRUE(loaded.graph.has_value());
  for (const Diagnostic& d : loaded.diagnostics) EXPECT_NE(d.rule, "attribute_type") << d.message;
}

}  // namespace
}  // namespace attractor
