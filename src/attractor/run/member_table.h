#pragma once
/// \file
/// A JSON object kept as serialized members (`"key":value`) in key order, for documents that are
/// rewritten after every small change (the checkpoint). Members live in chunks of bounded size
/// whose joined text is cached, so re-serializing after k changes costs O(k·chunk + chunks)
/// string work plus one copy of the output, instead of a walk over every member.

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace attractor {

class MemberTable {
 public:
  /// Chunks split when they grow past this many members.
  static constexpr std::size_t kMaxChunk = 64;

  /// Sets the serialized member for `key` (`member` is the whole `"key":value` text).
  void set(const std::string& key, std::string member);
  /// Removes `key` if present.
  void erase(const std::string& key);
  void clear();
  std::size_t size() const { return size_; }
  /// Appends `{member,member,...}` in key order to `out`.
  void append_to(std::string& out);
  /// Appends the same text as views (of this table's cached text and of string literals) to
  /// `views`; they stay valid until the table changes.
  void append_views(std::vector<std::string_view>& views);
  /// The JSON object text.
  std::string str();

 private:
  struct Chunk {
    std::map<std::string, std::string> members;
    std::string joined;
    bool dirty = true;
  };
  /// The chunk whose key range holds `key` (chunks are keyed by their lowest possible key).
  std::map<std::string, Chunk>::iterator chunk_for(const std::string& key);
  void split(std::map<std::string, Chunk>::iterator chunk);
  /// Re-joins the members of a changed chunk.
  static void refresh(Chunk& chunk);

  std::map<std::string, Chunk> chunks_;
  std::size_t size_ = 0;
};

}  // namespace attractor
