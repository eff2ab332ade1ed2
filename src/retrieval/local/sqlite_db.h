#pragma once
/// \file
/// A minimal RAII layer over the SQLite C API used by the local index.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace attractor::retrieval {

/// One prepared statement; bind with 1-based positions, step until it returns false.
class SqliteStatement {
 public:
  SqliteStatement(sqlite3* db, std::string_view sql);
  ~SqliteStatement();
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  SqliteStatement& bind(int index, std::string_view value);
  SqliteStatement& bind(int index, int64_t value);
  SqliteStatement& bind(int index, double value);
  /// Binds `size` bytes at `data` as a BLOB (copied).
  SqliteStatement& bind_blob(int index, const void* data, size_t size);
  /// Binds `values` starting at position `first`; returns the next free position.
  int bind_all(int first, const std::vector<std::string>& values);
  /// Advances; true while a row is available.
  bool step();
  /// Runs to completion (for statements without rows).
  void run();
  void reset();

  std::string text(int column) const;
  /// The bytes of a BLOB (or TEXT) column.
  std::string blob(int column) const;
  int64_t integer(int column) const;
  double real(int column) const;
  bool is_null(int column) const;

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

/// An open database connection.
class SqliteDb {
 public:
  /// Opens (creating when `writable`) the database at `path`; throws RetrievalError(kUnavailable).
  SqliteDb(const std::string& path, bool writable);
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  /// Executes one or more statements without results.
  void exec(std::string_view sql);
  SqliteStatement prepare(std::string_view sql) { return SqliteStatement(db_, sql); }
  int64_t last_insert_rowid() const;
  sqlite3* handle() const { return db_; }

 private:
  sqlite3* db_ = nullptr;
};

}  // namespace attractor::retrieval
