// `attractor graph` on an index of tests/data/csharp_sql_repo: callers, callees, deps and path
// through the real binary and its retrieval module, names resolved, ACL filters enforced, and the
// documented exit codes for what a user gets wrong.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/cli_test_support.h"

namespace attractor {
namespace {

using testing::run_attractor;

class GraphCommandTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    index_ = new std::string(testing::make_temp_dir() + "/index");
    const std::string repo = std::string(ATTRACTOR_SOURCE_DIR) + "/tests/data/csharp_sql_repo";
    auto r = run_attractor({"index", repo, "--index", *index_, "--repository", "acme", "--branch", "main", "--acl",
                            repo + "/acl.json", "-q"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static void TearDownTestSuite() { delete index_; }

  static testing::CommandResult graph(std::vector<std::string> args) {
    args.insert(args.begin(), "graph");
    for (const char* a : {"--index", "", "--repository", "acme", "--branch", "main"}) args.emplace_back(a);
    args[args.size() - 5] = *index_;
    return run_attractor(args);
  }

  static std::string* index_;
};

std::string* GraphCommandTest::index_ = nullptr;

TEST_F(GraphCommandTest, CallersOfAProcedureByNameAreTheMembersThatExecuteIt) {
  auto r = graph({"callers", "CancelMeeting"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "callers of sql:dbo.CancelMeeting  db/procedures/CancelMeeting.sql:1-9\n"
            "  ~executes    cs:Acme.Meetings.Data.MeetingRepository.Cancel(int,string)  "
            "src/Acme.Meetings/Data/MeetingRepository.cs:41-45\n");
}

TEST_F(GraphCommandTest, CallersTwoLevelsUpAsJsonSayHowEachWasReached) {
  auto r = graph({"callers", "cs:Acme.Meetings.Data.RoomRepository.Rename(int,string)", "--depth", "2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  std::vector<std::string> got;
  for (const auto& n : j["nodes"])
    got.push_back(std::to_string(n["depth"].get<int>()) + " " + n["edge"].get<std::string>() + " " +
                  n["id"].get<std::string>());
  EXPECT_EQ(got, (std::vector<std::string>{"1 ~calls cs:Acme.Meetings.Services.RoomService.Rename(int,string)"}));
  EXPECT_EQ(j["edge_types"], (nlohmann::json{"~calls", "~executes"}));
}

TEST_F(GraphCommandTest, CalleesFollowCallsAndExecutes) {
  auto r = graph({"callees", "cs:Acme.Meetings.Data.RoomRepository.UsageOf(int)", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  std::vector<std::string> got;
  for (const auto& n : j["nodes"]) got.push_back(n["edge"].get<std::string>() + " " + n["id"].get<std::string>());
  EXPECT_EQ(got, (std::vector<std::string>{"calls cs:Acme.Meetings.Data.IConnectionFactory.Open()",
                                           "executes sql:dbo.GetRoomUsage"}));
}

TEST_F(GraphCommandTest, PathGoesFromAServiceToTheProcedureItRunsThroughTheRepository) {
  auto r = graph({"path", "cs:Acme.Meetings.Services.RoomService.AvailableRooms(int)", "Rooms", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j["found"].get<bool>()) << r.out;
  std::vector<std::string> got;
  for (const auto& n : j["path"]) got.push_back(n.value("edge", "") + " " + n["id"].get<std::string>());
  EXPECT_EQ(
      got, (std::vector<std::string>{" cs:Acme.Meetings.Services.RoomService.AvailableRooms(int)",
                                     "calls cs:Acme.Meetings.Data.RoomRepository.ListRooms()", "reads sql:dbo.Rooms"}));
}

TEST_F(GraphCommandTest, FiltersHideNodesTheCallerMayNotSee) {
  auto open = graph({"callers", "cs:Acme.Meetings.Data.IConnectionFactory.Open()", "--json"});
  ASSERT_EQ(open.exit_code, 0) << open.err;
  EXPECT_NE(open.out.find("Acme.Payroll.SalaryService"), std::string::npos);
  auto hidden = graph({"callers", "cs:Acme.Meetings.Data.IConnectionFactory.Open()", "--json", "--filters",
                       R"({"acl_tags_any": ["public"]})"});
  ASSERT_EQ(hidden.exit_code, 0) << hidden.err;
  EXPECT_EQ(hidden.out.find("Acme.Payroll"), std::string::npos) << hidden.out;
  EXPECT_NE(hidden.out.find("MeetingRepository.Cancel"), std::string::npos) << hidden.out;
}

TEST_F(GraphCommandTest, MistakesGetTheDocumentedExitCodesAndMessages) {
  auto unknown = graph({"callers", "NoSuchSymbol"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.err,
            "attractor graph: NoSuchSymbol: no node of that id or name in acme/main (find it with `attractor "
            "search`)\n");
  auto bad_type = graph({"callers", "CancelMeeting", "--edge-types", "calls,bogus"});
  EXPECT_EQ(bad_type.exit_code, 2);
  EXPECT_NE(bad_type.err.find("unknown edge type 'bogus'"), std::string::npos) << bad_type.err;
  auto one_end = graph({"path", "CancelMeeting"});
  EXPECT_EQ(one_end.exit_code, 2);
  EXPECT_EQ(one_end.err, "attractor graph: path takes 2 symbols, got 1\n");
  auto no_index = run_attractor({"graph", "callers", "X", "--index", testing::make_temp_dir() + "/missing",
                                 "--repository", "acme", "--branch", "main"});
  EXPECT_EQ(no_index.exit_code, 3);
}

}  // namespace
}  // namespace attractor
