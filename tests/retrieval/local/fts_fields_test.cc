#include "retrieval/local/fts_fields.h"

#include <gtest/gtest.h>

#include "retrieval/local/code_tokens.h"
#include "support/temp_dir.h"

namespace attractor::retrieval {
namespace {

using testing::TempDir;

const Scope kScope{"default", "acme", "main", "s1"};

TEST(FtsFieldsTest, ACSharpSignatureEndsWhereTheBodyStarts) {
  EXPECT_EQ(signature_of("[Route(\"{id}\")]\npublic Task<User> Get(Guid id, string s = \"{\") { return x; }", "csharp",
                         "method"),
            "[Route(\"{id}\")]\npublic Task<User> Get(Guid id, string s = \"{\") ");
  EXPECT_EQ(signature_of("public int Count => _items.Count;", "csharp", "property"), "public int Count ");
  EXPECT_EQ(signature_of("Task DeleteAsync(T obj);", "csharp", "method"), "Task DeleteAsync(T obj)");
  EXPECT_EQ(signature_of("public class CipherRepository : Repository<Cipher, Guid>, ICipherRepository\n{\n}", "csharp",
                         "class"),
            "public class CipherRepository : Repository<Cipher, Guid>, ICipherRepository\n");
}

TEST(FtsFieldsTest, ASqlSignatureIsTheHeaderOfARoutineAndAllOfATable) {
  EXPECT_EQ(signature_of("CREATE PROCEDURE [dbo].[Cipher_DeleteById] @Id UNIQUEIDENTIFIER, [@As] INT\nAS\nBEGIN END",
                         "sql", "procedure"),
            "CREATE PROCEDURE [dbo].[Cipher_DeleteById] @Id UNIQUEIDENTIFIER, [@As] INT\n");
  EXPECT_EQ(signature_of("CREATE VIEW dbo.Active AS SELECT 1", "sql", "view"), "CREATE VIEW dbo.Active ");
  EXPECT_EQ(signature_of("CREATE TABLE dbo.T (Id INT, Alias AS (Id + 1))", "sql", "table"),
            "CREATE TABLE dbo.T (Id INT, Alias AS (Id + 1))");
}

TEST(FtsFieldsTest, ALongSignatureIsCutAtACharacter) {
  std::string text = "void F(" + std::string(392, 'x') + "\xC3\xA9 y) { }";  // the é is bytes 399 and 400
  auto sig = signature_of(text, "csharp", "method");
  EXPECT_EQ(sig, text.substr(0, 399));
}

TEST(FtsFieldsTest, TheColumnsHoldTheNameSignatureDocAndText) {
  StoredNode n;
  n.kind = "method";
  n.name = "Shop.Repository<T,TId>.GetById";
  n.language = "csharp";
  n.text = "public T GetById(TId id) { return Lookup(id); }";
  n.facts = {{"doc", "Reads one row by its key."}};
  auto f = fts_fields(n);
  EXPECT_EQ(f.name, index_terms("method Shop.Repository.GetById"));
  EXPECT_EQ(f.signature, index_terms("public T GetById(TId id) "));
  EXPECT_EQ(f.doc, index_terms("Reads one row by its key."));
  EXPECT_EQ(f.body, index_terms("Reads one row by its key.\n" + n.text));
}

StoredNode method(const std::string& id, const std::string& text, const std::string& doc = "") {
  StoredNode n;
  n.id = id;
  n.path = "src/" + id + ".cs";
  n.language = "csharp";
  n.kind = "method";
  n.name = "Shop." + id;
  n.text = text;
  if (!doc.empty()) n.facts = {{"doc", doc}};
  return n;
}

TEST(FtsFieldsTest, AWordInTheSignatureOutranksItInTheDocAndTheDocOutranksTheBody) {
  TempDir dir;
  IndexStore store(dir.str(), true);
  store.insert_node(kScope, method("InBody", "void InBody() { var invoice = 1; }"));
  store.insert_node(kScope, method("InSignature", "void InSignature(Invoice x) { }"));
  store.insert_node(kScope, method("InDoc", "void InDoc() { }", "Sends the invoice."));
  // Nodes without the word, so that it is rare enough for bm25's idf to count.
  for (int i = 0; i < 10; ++i) {
    store.insert_node(kScope, method("Other" + std::to_string(i), "void Other() { var order = 1; }", "Sends it."));
  }
  auto hits = store.bm25_among(store.visible_rowids(kScope, NodeFilter::parse(nlohmann::json::object())),
                               fts_match_expression("invoice", MatchOperator::kOr), 10);
  ASSERT_EQ(hits.size(), 3u);
  EXPECT_EQ(hits[0].first, "InSignature");
  EXPECT_EQ(hits[1].first, "InDoc");
  EXPECT_EQ(hits[2].first, "InBody");
}

TEST(FtsFieldsTest, AnIndexWithTheOldTwoColumnTableIsSearchedAndUpgradedOnWrite) {
  TempDir dir;
  {
    IndexStore store(dir.str(), true);
    store.insert_node(kScope, method("Old", "void Old(Invoice x) { }"));
    store.db().exec(
        "DROP TABLE nodes_fts; CREATE VIRTUAL TABLE nodes_fts USING fts5(name, body, "
        "tokenize = 'porter unicode61 remove_diacritics 2');"
        "INSERT INTO nodes_fts(rowid, name, body) SELECT rowid, 'method old', 'void old invoice x' FROM nodes");
  }
  auto expr = fts_match_expression("invoice", MatchOperator::kOr);
  auto filter = NodeFilter::parse(nlohmann::json::object());
  {
    IndexStore reader(dir.str(), false);
    ASSERT_EQ(reader.bm25_among(reader.visible_rowids(kScope, filter), expr, 10).size(), 1u);
  }
  IndexStore writer(dir.str(), true);
  auto columns = writer.db().prepare("SELECT COUNT(*) FROM pragma_table_info('nodes_fts')");
  ASSERT_TRUE(columns.step());
  EXPECT_EQ(columns.integer(0), 4);
  auto hits = writer.bm25_among(writer.visible_rowids(kScope, filter), expr, 10);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].first, "Old");
}

}  // namespace
}  // namespace attractor::retrieval
