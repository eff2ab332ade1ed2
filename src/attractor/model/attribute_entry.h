#pragma once
/// \file
/// How one attribute is stored, and the view through which its value is read.
///
/// A 100,000-node pipeline holds over a million attributes (issue 19), so an entry is 16 bytes and
/// holds no std::string:
/// - its name is a 16-bit number in a process-wide table of names. The table keeps at most
///   kMaxTableNames names of at most kMaxTableNameBytes bytes each, so files full of invented
///   names cannot grow it without bound; a name that finds no room is kept in the entry's block.
/// - a value parsed from a file and written without escapes is a view of the file's text (the map
///   holding the entry keeps the file alive); its location is recomputed from its offset when
///   asked for.
/// - any other value (a string with escapes, a value set in code) owns a block holding its
///   location, its name when the table has none for it, and its text.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "attractor/model/source_file.h"
#include "attractor/model/value.h"

namespace attractor {

/// One stored attribute: its name and its value. Copying an entry that owns a block copies the
/// block. Used by AttributeMap; read it through AttributeMap's iterators and ValueView.
class AttributeEntry {
 public:
  /// Names the process-wide table holds at most (later names are kept in the entries' blocks).
  static constexpr std::size_t kMaxTableNames = 0xFFFF;
  /// Longer names are never put in the table.
  static constexpr std::size_t kMaxTableNameBytes = 64;

  /// A value owning a copy of `text`, written at `location` (unknown for values set in code).
  AttributeEntry(std::string_view key, ValueKind kind, std::string_view text, SourceLocation location);
  /// A value that views `text`, a slice of `file`'s text; the entry's holder must keep `file`
  /// alive. `quoted`: the value was written as `text` in double quotes, so its token starts one
  /// byte before `text`. Falls back to an owned copy when the name needs the block.
  static AttributeEntry in_source(std::string_view key, ValueKind kind, std::string_view text, bool quoted,
                                  const SourceFile& file);

  AttributeEntry(const AttributeEntry& other);
  AttributeEntry(AttributeEntry&& other) noexcept;
  AttributeEntry& operator=(const AttributeEntry& other);
  AttributeEntry& operator=(AttributeEntry&& other) noexcept;
  ~AttributeEntry() { release(); }

  /// The attribute's name.
  std::string_view key() const;
  /// How the value was written (see ValueKind).
  ValueKind kind() const { return kind_; }
  /// The value's text (unescaped for quoted strings).
  std::string_view text() const {
    if (!owned()) return {data_, size_};
    return {data_ + sizeof(Block) + block().key_size, size_};
  }
  /// Where the value was written. `file` is the file a view's text lies in (unused for owned
  /// values).
  SourceLocation location(const SourceFile* file) const;
  /// Gives the value a copy of `text` (which may view this entry), keeping name, kind and
  /// location; `file` as for location().
  void replace_text(std::string_view text, const SourceFile* file);

 private:
  /// The head of an owned value's block; the name (when not in the table) and the text follow.
  struct Block {
    SourceLocation location;
    std::uint32_t key_size = 0;  ///< 0: the name is in the table
  };
  static constexpr std::uint16_t kKeyInBlock = 0xFFFF;
  static constexpr std::uint8_t kOwned = 1;
  static constexpr std::uint8_t kQuoted = 2;

  AttributeEntry() = default;
  bool owned() const { return (flags_ & kOwned) != 0; }
  const Block& block() const { return *reinterpret_cast<const Block*>(data_); }
  std::size_t block_bytes() const { return sizeof(Block) + block().key_size + size_; }
  /// Allocates this entry's block for `key` (stored when it has no table number) and `text`.
  void own(std::string_view key, std::string_view text, SourceLocation location);
  void release();

  const char* data_ = nullptr;  ///< a view's text, or the owned Block
  std::uint32_t size_ = 0;      ///< the text's size
  std::uint16_t key_ = kKeyInBlock;
  ValueKind kind_ = ValueKind::kString;
  std::uint8_t flags_ = 0;
};

/// An attribute value read in place, as AttributeMap's lookups and iterators give it. Valid until
/// the map it came from next changes.
class ValueView {
 public:
  /// `file`: the source file of the map holding `entry` (null when it has none).
  ValueView(const AttributeEntry& entry, const SourceFile* file) : entry_(&entry), file_(file) {}

  ValueKind kind() const { return entry_->kind(); }
  /// The text (unescaped for quoted strings).
  std::string_view text() const { return entry_->text(); }
  /// Position of the first character of the value token (the opening quote for strings); unknown
  /// for values set in code without one.
  SourceLocation location() const { return entry_->location(file_); }
  /// A copy that owns its text.
  Value to_value() const { return Value(kind(), std::string(text()), location()); }

 private:
  const AttributeEntry* entry_;
  const SourceFile* file_;
};

/// The location of an attribute value when it is present and known, else `fallback` (such as the
/// location of the node or edge that should have had it).
SourceLocation value_location(const std::optional<ValueView>& value, SourceLocation fallback);

}  // namespace attractor
