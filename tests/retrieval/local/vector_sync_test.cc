#include "retrieval/local/vector_sync.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "retrieval/local/lexical_embedder.h"
#include "support/temp_dir.h"

namespace attractor::retrieval {
namespace {

using testing::TempDir;

const Scope kScope{"default", "acme", "main", "s1"};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A store with `n` method nodes named Method0..Method{n-1}, one file per node, and its vectors.
class VectorSyncTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = std::make_unique<IndexStore>(dir_.str(), true);
    store_->begin();
    for (int i = 0; i < 100; ++i) add(i);
    sync({}, {});
    store_->commit();
    base_ = slurp(IndexStore::vector_path(dir_.str(), "default"));
  }

  int64_t add(int i) {
    StoredNode n;
    n.id = "cs:Acme.Method" + std::to_string(i) + "()";
    n.path = "src/File" + std::to_string(i) + ".cs";
    n.language = "csharp";
    n.kind = "method";
    n.name = "Acme.Method" + std::to_string(i);
    n.text = "void Method" + std::to_string(i) + "() { word" + std::to_string(i) + "(); }";
    int64_t rowid = store_->insert_node(kScope, n);
    added_.push_back(rowid);
    return rowid;
  }

  std::vector<int64_t> remove(int i) { return store_->delete_file(kScope, "src/File" + std::to_string(i) + ".cs"); }

  VectorSyncStats sync(const std::vector<int64_t>& added, const std::vector<int64_t>& removed) {
    return sync_vectors(*store_, "default", embedder_, "flat", added, removed, {}, &base_written_);
  }

  int64_t delta_rows() {
    auto s = store_->db().prepare("SELECT COUNT(*) FROM vector_delta");
    return s.step() ? s.integer(0) : -1;
  }

  std::vector<int64_t> sorted_ids(const VectorIndex& index) {
    auto ids = index.ids();
    std::sort(ids.begin(), ids.end());
    return ids;
  }

  int64_t nearest(const VectorIndex& index, const std::string& text) {
    auto found = index.search(embedder_.embed_one(text), 1, nullptr);
    return found.empty() ? -1 : found[0].first;
  }

  TempDir dir_;
  LexicalEmbedder embedder_{256};
  std::unique_ptr<IndexStore> store_;
  std::vector<int64_t> added_;
  std::string base_;
  bool base_written_ = false;
};

TEST_F(VectorSyncTest, AFirstSyncWritesTheBaseWithEveryNode) {
  EXPECT_TRUE(base_written_);
  EXPECT_EQ(delta_rows(), 0);
  auto index = load_vectors(*store_, "default");
  EXPECT_EQ(sorted_ids(index), store_->index_rowids("default"));
}

TEST_F(VectorSyncTest, ASmallChangeGoesToTheDeltaAndLeavesTheBaseFileAlone) {
  base_written_ = false;
  store_->begin();
  auto gone = remove(3);
  int64_t fresh = add(200);
  auto stats = sync({fresh}, gone);
  store_->commit();
  EXPECT_FALSE(base_written_);
  EXPECT_EQ(stats.embedded, 1);
  EXPECT_EQ(stats.total, 100);
  EXPECT_EQ(delta_rows(), 1);
  EXPECT_EQ(slurp(IndexStore::vector_path(dir_.str(), "default")), base_);
  auto index = load_vectors(*store_, "default");
  EXPECT_EQ(sorted_ids(index), store_->index_rowids("default"));  // the stale vector of Method3 dropped
  EXPECT_EQ(nearest(index, "void Method200() { word200(); }"), fresh);
}

TEST_F(VectorSyncTest, AChangeOfMoreThanATenthRewritesTheBaseAndEmptiesTheDelta) {
  store_->begin();
  std::vector<int64_t> gone, fresh;
  for (int i = 0; i < 6; ++i) {
    auto r = remove(i);
    gone.insert(gone.end(), r.begin(), r.end());
    fresh.push_back(add(300 + i));
  }
  sync(fresh, gone);  // 6 in the delta + 6 stale > 100 / 10
  store_->commit();
  EXPECT_TRUE(base_written_);
  EXPECT_EQ(delta_rows(), 0);
  auto index = VectorIndex::load(IndexStore::vector_path(dir_.str(), "default"));
  EXPECT_EQ(sorted_ids(index), store_->index_rowids("default"));
}

TEST_F(VectorSyncTest, ARolledBackSyncLeavesTheVectorsOfTheCommittedNodes) {
  base_written_ = false;
  store_->begin();
  int64_t fresh = add(400);
  sync({fresh}, {});
  store_->rollback();
  EXPECT_FALSE(base_written_);
  EXPECT_EQ(delta_rows(), 0);
  auto index = load_vectors(*store_, "default");
  EXPECT_EQ(sorted_ids(index), store_->index_rowids("default"));
  EXPECT_EQ(index.size(), 100);
}

TEST_F(VectorSyncTest, AnotherEmbedderIsRefusedEvenWhenNothingChanged) {
  LexicalEmbedder other(128);
  EXPECT_THROW(check_embedder_matches(*store_, "default", other), RetrievalError);
  EXPECT_NO_THROW(check_embedder_matches(*store_, "default", embedder_));
}

}  // namespace
}  // namespace attractor::retrieval
