#include "retrieval/local/local_indexer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "retrieval/edge_types.h"
#include "retrieval/local/index_store.h"
#include "retrieval/local/local_backend.h"
#include "support/temp_dir.h"

namespace attractor::retrieval {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::TempDir;

const std::string kRepo = std::string(ATTRACTOR_SOURCE_DIR) + "/tests/data/csharp_sql_repo";

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

IndexOptions options(const std::string& src, const std::string& index) {
  IndexOptions o;
  o.src_dir = src;
  o.index_dir = index;
  o.repository = "acme";
  o.branch = "main";
  o.acl_file = kRepo + "/acl.json";
  return o;
}

std::set<std::tuple<std::string, std::string, std::string>> all_edges(const std::string& index_dir) {
  IndexStore store(index_dir, false);
  auto s = store.db().prepare("SELECT from_id, to_id, edge_type FROM edges");
  std::set<std::tuple<std::string, std::string, std::string>> out;
  while (s.step()) out.insert({s.text(0), s.text(1), s.text(2)});
  return out;
}

class IndexerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    summary_ = new IndexSummary(run_local_indexer(options(kRepo, dir_->str())));
  }
  static void TearDownTestSuite() {
    delete summary_;
    delete dir_;
  }

  std::vector<std::string> search(SearchType type, const std::string& q, json filters = json::object(), int k = 10) {
    LocalBackend backend(dir_->str());
    SearchRequest r;
    r.search_type = type;
    r.query = q;
    r.top_k = k;
    r.repository = "acme";
    r.branch = "main";
    r.retrieval_filters = filters;
    std::vector<std::string> ids;
    for (const auto& h : backend.search(r).hits) ids.push_back(h.id);
    return ids;
  }

  static TempDir* dir_;
  static IndexSummary* summary_;
};

TempDir* IndexerTest::dir_ = nullptr;
IndexSummary* IndexerTest::summary_ = nullptr;

TEST_F(IndexerTest, IndexesEveryFileButIgnoredOnes) {
  EXPECT_EQ(summary_->files_seen, 30);
  EXPECT_EQ(summary_->files_indexed, 30);
  EXPECT_EQ(summary_->nodes_by_kind.at("table"), 5);
  EXPECT_EQ(summary_->nodes_by_kind.at("view"), 1);
  EXPECT_EQ(summary_->nodes_by_kind.at("procedure"), 4);
  EXPECT_EQ(summary_->nodes_by_kind.at("function"), 1);
  EXPECT_EQ(summary_->nodes_by_kind.at("trigger"), 1);
  EXPECT_EQ(summary_->nodes_by_kind.at("record"), 1);
  EXPECT_EQ(summary_->nodes_by_kind.at("enum"), 1);
  EXPECT_EQ(summary_->nodes_by_kind.at("interface"), 4);
  EXPECT_EQ(summary_->nodes_by_kind.at("constructor"), 5);
  EXPECT_TRUE(search(SearchType::kBm25, "ShouldNotBeIndexed GeneratedSchema").empty());
  EXPECT_EQ(summary_->vectors_embedded, 79);
  EXPECT_NE(format_summary(*summary_).find("edges: "), std::string::npos);
}

TEST_F(IndexerTest, NodeTextIsTheExactSourceSpan) {
  LocalBackend backend(dir_->str());
  const std::string view = "sql:dbo.UpcomingMeetings";
  const std::string method = "cs:Acme.Meetings.Data.MeetingRepository.GetMeetingById(int)";
  auto texts = backend.fetch_texts({view, method}, "acme", "main", json::object(), std::nullopt);
  std::string view_file = slurp(kRepo + "/db/views/UpcomingMeetings.sql");
  EXPECT_EQ(texts.at(view), view_file.substr(0, view_file.size() - 1));
  EXPECT_EQ(texts.at(method).substr(0, 37), "public Meeting GetMeetingById(int id)");
  EXPECT_EQ(texts.at(method).back(), '}');
  auto info = backend.describe({method, view}, "acme", "main", json::object(), std::nullopt);
  ASSERT_EQ(info.size(), 2u);
  EXPECT_EQ(info[0].path, "src/Acme.Meetings/Data/MeetingRepository.cs");
  EXPECT_EQ(info[0].start_line, 18);
  EXPECT_EQ(info[0].end_line, 23);
  EXPECT_EQ(info[0].kind, "method");
  EXPECT_EQ(info[1].start_line, 1);
  EXPECT_EQ(info[1].end_line, 5);
  auto proc = backend.fetch_texts({"sql:dbo.CancelMeeting"}, "acme", "main", json::object(), std::nullopt);
  std::string proc_file = slurp(kRepo + "/db/procedures/CancelMeeting.sql");
  EXPECT_EQ(proc.at("sql:dbo.CancelMeeting"), proc_file.substr(0, proc_file.find("\nGO")));
}

TEST_F(IndexerTest, ExpectedEdgesOfEveryType) {
  auto edges = all_edges(dir_->str());
  auto expected = json::parse(slurp(kRepo + "/expected_edges.json"));
  std::set<std::string> types_seen;
  for (const auto& e : expected) {
    std::tuple<std::string, std::string, std::string> t{e["from_id"], e["to_id"], e["edge_type"]};
    EXPECT_TRUE(edges.count(t)) << e.dump();
    types_seen.insert(e["edge_type"].get<std::string>());
  }
  for (const char* type :
       {edge_type::kContains, edge_type::kInherits, edge_type::kImplements, edge_type::kCalls, edge_type::kUsesType,
        edge_type::kReads, edge_type::kWrites, edge_type::kReferences, edge_type::kExecutes, edge_type::kMapsTo}) {
    EXPECT_TRUE(types_seen.count(type)) << type;
  }
  // Calls resolve by receiver type: the service calls the interface, not the Dapper class.
  EXPECT_FALSE(edges.count({"cs:Acme.Meetings.Services.MeetingService.GetMeetingById(int)",
                            "cs:Acme.Meetings.Data.MeetingRepository.GetMeetingById(int)", "calls"}));
}

TEST_F(IndexerTest, ParseErrorsAreReportedAndTheRestIsIndexed) {
  ASSERT_EQ(summary_->issues.size(), 1u);
  EXPECT_EQ(summary_->issues[0].path, "src/Acme.Meetings/Services/Broken.cs");
  EXPECT_EQ(summary_->issues[0].line, 5);
  EXPECT_EQ(search(SearchType::kBm25, "BrokenReport Title", json::object(), 3).size(), 3u);
}

TEST_F(IndexerTest, AclFileTagsHideNodesFromSearchExpandAndFetch) {
  json pub = {{"acl_tags_any", {"public"}}};
  for (auto type : {SearchType::kBm25, SearchType::kSemantic, SearchType::kHybrid}) {
    auto ids = search(type, "salaries of an employee", pub, 20);
    for (const auto& id : ids) {
      EXPECT_EQ(id.find("Payroll"), std::string::npos) << id;
      EXPECT_EQ(id.find("Salaries"), std::string::npos) << id;
    }
  }
  auto hr = search(SearchType::kBm25, "salaries", {{"tenant", "acme-hr"}});
  EXPECT_EQ(std::set<std::string>(hr.begin(), hr.end()),
            (std::set<std::string>{"cs:Acme.Payroll.SalaryRecord", "cs:Acme.Payroll.SalaryRecord.Amount",
                                   "cs:Acme.Payroll.SalaryRecord.EmployeeId", "cs:Acme.Payroll.SalaryService",
                                   "cs:Acme.Payroll.SalaryService.SalariesOf(int)",
                                   "cs:Acme.Payroll.SalaryService.SalaryService(IConnectionFactory)",
                                   "sql:payroll.Salaries"}));
  LocalBackend backend(dir_->str());
  EXPECT_TRUE(backend.fetch_texts({"sql:payroll.Salaries"}, "acme", "main", pub, std::nullopt).empty());
  ExpandRequest e{
      {"cs:Acme.Meetings.Data.IConnectionFactory"}, {"~uses_type"}, 1, 50, "acme", "main", pub, std::nullopt};
  auto x = backend.expand(e);
  std::set<std::string> reached;
  for (const auto& n : x.nodes) reached.insert(n.id);
  EXPECT_TRUE(reached.count("cs:Acme.Meetings.Data.MeetingRepository"));
  EXPECT_FALSE(reached.count("cs:Acme.Payroll.SalaryService"));
  e.retrieval_filters = json::object();
  reached.clear();
  for (const auto& n : backend.expand(e).nodes) reached.insert(n.id);
  EXPECT_TRUE(reached.count("cs:Acme.Payroll.SalaryService"));

  auto pii = search(SearchType::kBm25, "meetings rooms audit", {{"classification_labels_all", {"internal", "pii"}}});
  EXPECT_EQ(std::set<std::string>(pii.begin(), pii.end()),
            (std::set<std::string>{"sql:dbo.Meetings", "sql:dbo.Rooms", "sql:dbo.AuditLog"}));
}

TEST_F(IndexerTest, SameIndexSameResults) {
  TempDir other;
  run_local_indexer(options(kRepo, other.str()));
  EXPECT_EQ(all_edges(dir_->str()), all_edges(other.str()));
  auto queries = json::parse(slurp(kRepo + "/queries.json"));
  for (const auto& q : queries) {
    for (auto type : {SearchType::kBm25, SearchType::kSemantic, SearchType::kHybrid}) {
      auto a = search(type, q["query"]);
      LocalBackend backend(other.str());
      SearchRequest r{type, q["query"], 10, "acme", "main", json::object(), std::nullopt, std::nullopt, 60};
      std::vector<std::string> b;
      for (const auto& h : backend.search(r).hits) b.push_back(h.id);
      EXPECT_EQ(a, b) << q["query"];
    }
  }
}

TEST(IndexerGlobalUsingsTest, AFileOfOnlyGlobalUsingsImportsForTheWholeTreeUntilItIsRemoved) {
  TempDir src, index;
  auto write = [&](const std::string& rel, const std::string& text) { std::ofstream(src.path() / rel) << text; };
  write("GlobalUsings.cs", "global using Vault.Infrastructure;\nglobal using System.Linq;\n");
  write("Base.cs", "namespace Vault.Infrastructure { public class Repository { } }\n");
  write("Other.cs", "namespace Vault.Legacy { public class Repository { } }\n");
  write("Cipher.cs", "namespace Vault.Ciphers { public class CipherRepository : Repository { } }\n");
  IndexOptions o = options(src.str(), index.str());
  o.acl_file.clear();
  const std::tuple<std::string, std::string, std::string> inherits{"cs:Vault.Ciphers.CipherRepository",
                                                                   "cs:Vault.Infrastructure.Repository", "inherits"};
  run_local_indexer(o);
  EXPECT_TRUE(all_edges(index.str()).count(inherits));
  fs::remove(src.path() / "GlobalUsings.cs");
  run_local_indexer(o);
  EXPECT_FALSE(all_edges(index.str()).count(inherits)) << "two Repository types and nothing imports either";
}

TEST(IndexerGlobalUsingsTest, AGlobalUsingImportsOnlyInTheProjectThatDeclaresIt) {
  TempDir src, index;
  auto write = [&](const std::string& rel, const std::string& text) {
    fs::create_directories((src.path() / rel).parent_path());
    std::ofstream(src.path() / rel) << text;
  };
  write("a/A.csproj", "<Project Sdk=\"Microsoft.NET.Sdk\" />\n");
  write("a/GlobalUsings.cs", "global using Vault.Infrastructure;\n");
  write("a/Cipher.cs", "namespace Vault.Ciphers { public class CipherRepository : Repository { } }\n");
  write("b/B.csproj", "<Project Sdk=\"Microsoft.NET.Sdk\" />\n");
  write("b/GlobalUsings.cs", "global using Vault.Legacy;\n");
  write("b/Send.cs", "namespace Vault.Sends { public class SendRepository : Repository { } }\n");
  write("lib/Base.cs", "namespace Vault.Infrastructure { public class Repository { } }\n");
  write("lib/Other.cs", "namespace Vault.Legacy { public class Repository { } }\n");
  IndexOptions o = options(src.str(), index.str());
  o.acl_file.clear();
  const std::tuple<std::string, std::string, std::string> cipher{"cs:Vault.Ciphers.CipherRepository",
                                                                 "cs:Vault.Infrastructure.Repository", "inherits"};
  const std::tuple<std::string, std::string, std::string> send{"cs:Vault.Sends.SendRepository",
                                                               "cs:Vault.Legacy.Repository", "inherits"};
  run_local_indexer(o);
  auto edges = all_edges(index.str());
  EXPECT_TRUE(edges.count(cipher));
  EXPECT_TRUE(edges.count(send));

  // One project for the whole tree: both global usings now apply everywhere, so the name is
  // ambiguous. No .cs file changed; the project change alone re-reads them.
  fs::remove(src.path() / "a/A.csproj");
  fs::remove(src.path() / "b/B.csproj");
  write("All.csproj", "<Project Sdk=\"Microsoft.NET.Sdk\" />\n");
  auto again = run_local_indexer(o);
  EXPECT_EQ(again.files_indexed, 6);
  edges = all_edges(index.str());
  EXPECT_FALSE(edges.count(cipher));
  EXPECT_FALSE(edges.count(send));
}

TEST(IndexerIncrementalTest, SkipsUnchangedFilesAndRemovesDeletedOnes) {
  TempDir src, index;
  fs::copy(kRepo, src.path(), fs::copy_options::recursive);
  auto first = run_local_indexer(options(src.str(), index.str()));
  EXPECT_EQ(first.files_indexed, 30);

  const fs::path vectors = IndexStore::vector_path(index.str(), "default");
  const auto old_time = fs::file_time_type::clock::now() - std::chrono::hours(24);
  fs::last_write_time(vectors, old_time);
  auto again = run_local_indexer(options(src.str(), index.str()));
  EXPECT_EQ(fs::last_write_time(vectors), old_time);  // nothing changed: no relink, no vector write
  EXPECT_EQ(again.files_indexed, 0);
  EXPECT_EQ(again.files_unchanged, 30);
  // Broken.cs was not re-read, but its parse issue is still there and still counted.
  ASSERT_EQ(again.issues.size(), 1u);
  EXPECT_EQ(again.issues_unchanged, 1);
  EXPECT_EQ(again.issues[0].path, "src/Acme.Meetings/Services/Broken.cs");
  EXPECT_EQ(again.issues[0].line, first.issues[0].line);
  EXPECT_EQ(again.issues[0].message, first.issues[0].message);
  EXPECT_NE(format_summary(again).find("\nparse issues: 1 (1 in unchanged files)\n"), std::string::npos);
  EXPECT_NE(format_summary(first).find("\nparse issues: 1\n"), std::string::npos);
  EXPECT_EQ(again.vectors_embedded, 0);
  EXPECT_EQ(all_edges(index.str()).size(), 132u);

  fs::remove(src.path() / "src/Acme.Meetings/Domain/Attendee.cs");
  {
    std::ofstream out(src.path() / "src/Acme.Meetings/Services/RoomService.cs", std::ios::app);
    out << "namespace Acme.Meetings.Services { public class RoomArchiver { public void ArchiveRooms() { } } }\n";
  }
  fs::remove(src.path() / "src/Acme.Meetings/Services/Broken.cs");
  auto third = run_local_indexer(options(src.str(), index.str()));
  EXPECT_TRUE(third.issues.empty());  // the broken file is gone, and so is its issue
  EXPECT_EQ(third.files_removed, 2);
  EXPECT_EQ(third.files_indexed, 1);
  EXPECT_EQ(third.files_unchanged, 27);
  // Attendee and Broken.cs; RoomService.cs's four nodes are unchanged by the appended class and
  // keep their rows and vectors.
  EXPECT_EQ(third.nodes_removed, 3 + 3);
  EXPECT_EQ(third.nodes_added, 2);
  EXPECT_EQ(third.vectors_embedded, 2);
  auto edges = all_edges(index.str());
  EXPECT_FALSE(edges.count({"cs:Acme.Meetings.Domain.Attendee", "sql:dbo.Attendees", "maps_to"}));
  EXPECT_TRUE(edges.count({"cs:Acme.Meetings.Services.RoomService.Rename(int,string)",
                           "cs:Acme.Meetings.Data.RoomRepository.Rename(int,string)", "calls"}));

  LocalBackend backend(index.str());
  for (auto type : {SearchType::kBm25, SearchType::kSemantic}) {
    SearchRequest r{type, "ArchiveRooms", 1, "acme", "main", json::object(), std::nullopt, std::nullopt, 60};
    auto hits = backend.search(r).hits;
    ASSERT_EQ(hits.size(), 1u);
    EXPECT_EQ(hits[0].id, "cs:Acme.Meetings.Services.RoomArchiver.ArchiveRooms()");
  }
  SearchRequest gone{SearchType::kSemantic,
                     "Attendee Email MeetingId",
                     80,
                     "acme",
                     "main",
                     json::object(),
                     std::nullopt,
                     std::nullopt,
                     60};
  for (const auto& h : backend.search(gone).hits) EXPECT_EQ(h.id.find("Domain.Attendee"), std::string::npos) << h.id;
}

TEST(IndexerIncrementalTest, ABackendThatStaysOpenSeesTheNextIndexRun) {
  TempDir src, index;
  fs::copy(kRepo, src.path(), fs::copy_options::recursive);
  run_local_indexer(options(src.str(), index.str()));
  LocalBackend backend(index.str());
  auto top = [&](SearchType type) {
    SearchRequest r{type, "ArchiveRooms", 1, "acme", "main", json::object(), std::nullopt, std::nullopt, 60};
    auto hits = backend.search(r).hits;
    return hits.empty() ? std::string() : hits[0].id;
  };
  const std::string archiver = "cs:Acme.Meetings.Services.RoomArchiver.ArchiveRooms()";
  EXPECT_NE(top(SearchType::kBm25), archiver);
  EXPECT_NE(top(SearchType::kSemantic), archiver);
  {
    std::ofstream out(src.path() / "src/Acme.Meetings/Services/RoomService.cs", std::ios::app);
    out << "namespace Acme.Meetings.Services { public class RoomArchiver { public void ArchiveRooms() { } } }\n";
  }
  run_local_indexer(options(src.str(), index.str()));
  EXPECT_EQ(top(SearchType::kBm25), archiver);
  EXPECT_EQ(top(SearchType::kSemantic), archiver);  // its vector and visible rowid were read again
}

TEST(IndexerIncrementalTest, AnEditRewritesOnlyTheNodesWhoseTextChanged) {
  TempDir src, index;
  auto write = [&](const std::string& text) { std::ofstream(src.path() / "Shop.cs") << text; };
  const std::string body =
      "namespace Shop {\n"
      "  public class Tools { public void Keep() { } }\n"
      "  public class Cart {\n"
      "    public void Add() { }\n"
      "    public void Remove() { }\n"
      "  }\n"
      "}\n";
  write(body);
  IndexOptions o = options(src.str(), index.str());
  o.acl_file.clear();
  run_local_indexer(o);
  auto rowids = [&] {
    IndexStore store(index.str(), false);
    std::map<std::string, std::pair<int64_t, int64_t>> out;  // id -> (rowid, start line)
    auto s = store.db().prepare("SELECT id, rowid, start_line FROM nodes");
    while (s.step()) out[s.text(0)] = {s.integer(1), s.integer(2)};
    return out;
  };
  auto before = rowids();
  // A comment line on top moves everything down; Remove's body changes, so Cart's text does too.
  std::string edited = "// moved\n" + body;
  edited.replace(edited.find("Remove() { }"), 12, "Remove() { Add(); }");
  write(edited);
  auto summary = run_local_indexer(o);
  auto after = rowids();
  EXPECT_EQ(summary.nodes_added, 2);  // Cart and Cart.Remove()
  EXPECT_EQ(summary.nodes_removed, 2);
  EXPECT_EQ(summary.vectors_embedded, 2);
  for (const char* kept : {"cs:Shop.Tools", "cs:Shop.Tools.Keep()", "cs:Shop.Cart.Add()"}) {
    EXPECT_EQ(after[kept].first, before[kept].first) << kept;        // the same row and vector
    EXPECT_EQ(after[kept].second, before[kept].second + 1) << kept;  // on its new line
  }
  EXPECT_NE(after["cs:Shop.Cart.Remove()"].first, before["cs:Shop.Cart.Remove()"].first);
  EXPECT_TRUE(all_edges(index.str()).count({"cs:Shop.Cart.Remove()", "cs:Shop.Cart.Add()", "calls"}));
}

TEST(IndexerSnapshotTest, BranchesAndSnapshotsLiveSideBySide) {
  TempDir index;
  auto o = options(kRepo, index.str());
  o.snapshot = "v1";
  run_local_indexer(o);
  o.branch = "release";
  o.snapshot = "";
  run_local_indexer(o);
  LocalBackend backend(index.str());
  SearchRequest r{SearchType::kBm25, "CancelMeeting", 1, "acme", "release", json::object(),
                  std::nullopt,      std::nullopt,    60};
  EXPECT_EQ(backend.search(r).hits.at(0).id, "sql:dbo.CancelMeeting");
  r.branch = "main";
  r.retrieval_filters = {{"snapshot_id", "v1"}};
  EXPECT_EQ(backend.search(r).hits.at(0).id, "sql:dbo.CancelMeeting");
  r.retrieval_filters = {{"snapshot_id", "v2"}};
  EXPECT_THROW(backend.search(r), RetrievalError);
}

}  // namespace
}  // namespace attractor::retrieval
