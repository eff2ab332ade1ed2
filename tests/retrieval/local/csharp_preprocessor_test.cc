#include "retrieval/local/csharp_preprocessor.h"

#include <gtest/gtest.h>

#include "retrieval/local/csharp_extractor.h"

namespace attractor::retrieval {
namespace {

TEST(CsharpPreprocessorTest, DirectivesAndLaterBranchesBecomeSpacesOfTheSameLength) {
  std::string src = "a\n#if X\nb\n  #elif Y\nc\n#else\nd\n#endif\n#region R\ne\r\n";
  std::string masked = mask_csharp_preprocessor(src);
  EXPECT_EQ(masked, "a\n     \nb\n         \n \n     \n \n      \n         \ne\r\n");
  EXPECT_EQ(masked.size(), src.size());
}

TEST(CsharpPreprocessorTest, NestedConditionsInsideASkippedBranchStaySkipped) {
  std::string masked = mask_csharp_preprocessor("#if A\nx\n#else\n#if B\ny\n#endif\nz\n#endif\nw");
  EXPECT_EQ(masked, "     \nx\n     \n     \n \n      \n \n      \nw");
}

TEST(CsharpPreprocessorTest, ConditionalBaseTypesAndCallChainsParse) {
  const char* source = R"(namespace N;
public sealed partial class GetBasketRequest : IMessage<GetBasketRequest>
#if !COMPAT
    , IBufferMessage
#endif
{
    public void Build()
    {
        builder
            .UseA()
#if !WINDOWS
            .UseMaps()
#endif
            .UseB();
    }
}
)";
  ExtractedFile f = extract_csharp(source);
  EXPECT_TRUE(f.issues.empty()) << f.issues[0].message;
  ASSERT_EQ(f.nodes.size(), 2u);
  EXPECT_EQ(f.nodes[0].id, "cs:N.GetBasketRequest");
  EXPECT_NE(f.nodes[0].text.find("#if !COMPAT"), std::string::npos);  // spans index the original text
  EXPECT_EQ(f.nodes[1].id, "cs:N.GetBasketRequest.Build()");
}

TEST(CsharpPreprocessorTest, CSharp12ConstructsParse) {
  ExtractedFile f = extract_csharp(R"(namespace N;
public record Order(int Id, string Customer);
public class Changed(int count) : ValueChangedMessage<int>(count);
public class Service(ILogger<Service> logger)
{
    private readonly int[] _ids = [1, 2, .. Others];
    public List<int> Empty() => [];
    public string Sql = """
        SELECT * FROM [Sales].[Orders]
        """;
}
)");
  EXPECT_TRUE(f.issues.empty()) << f.issues[0].message;
  std::vector<std::string> ids;
  for (const auto& n : f.nodes) ids.push_back(n.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"cs:N.Order", "cs:N.Changed", "cs:N.Service", "cs:N.Service.Empty()"}));
}

}  // namespace
}  // namespace attractor::retrieval
