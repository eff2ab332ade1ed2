// Command-line mistakes get a refusal that says what to pass (issue 36 point 12): a number out
// of range names the allowed range in words, and a misspelt option gets a "did you mean".

#include <string>

#include <gtest/gtest.h>

#include "support/cli_test_support.h"

namespace attractor::testing {
namespace {

TEST(FlagErrorsTest, ANegativeBudgetSaysWhatIsAllowed) {
  CommandResult r = run_attractor({"run", "graphs/simple.dot", "--simulate", "--max-total-tokens", "-5"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "attractor run: --max-total-tokens: -5 is out of range; pass 0 or more\n(see `attractor run --help`)\n");
}

TEST(FlagErrorsTest, ANonNumberSaysSo) {
  CommandResult r = run_attractor({"run", "graphs/simple.dot", "--simulate", "--max-cost", "lots"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--max-cost"), std::string::npos) << r.err;
  EXPECT_EQ(
      r.err.find("179769313486231570814527423731704356798070567525844996598917476803157260780028538760589558632766"),
      std::string::npos)
      << r.err;
}

TEST(FlagErrorsTest, AMisspeltOptionGetsADidYouMean) {
  CommandResult r = run_attractor({"run", "graphs/simple.dot", "--simulate", "--lgos-root", "x"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown option --lgos-root; did you mean --logs-root?\n"), std::string::npos) << r.err;
  CommandResult v = run_attractor({"validate", "graphs/simple.dot", "--strcit"});
  EXPECT_EQ(v.exit_code, 2);
  EXPECT_NE(v.err.find("unknown option --strcit; did you mean --strict?\n"), std::string::npos) << v.err;
}

TEST(FlagErrorsTest, AnOptionFarFromEveryNameGetsNoGuess) {
  CommandResult r = run_attractor({"validate", "graphs/simple.dot", "--zzzzzzzz"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.find("did you mean"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace attractor::testing
