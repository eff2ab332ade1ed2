#include "retrieval/local/sqlite_db.h"

#include <sqlite3.h>

#include "retrieval/backend.h"

namespace attractor::retrieval {

namespace {

[[noreturn]] void fail(sqlite3* db, const std::string& what) {
  throw RetrievalError(RetrievalError::Kind::kUnavailable, what + ": " + (db ? sqlite3_errmsg(db) : "out of memory"));
}

}  // namespace

SqliteStatement::SqliteStatement(sqlite3* db, std::string_view sql) : db_(db) {
  if (sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr) != SQLITE_OK) {
    fail(db, "sqlite prepare failed for `" + std::string(sql.substr(0, 80)) + "`");
  }
}

SqliteStatement::~SqliteStatement() { sqlite3_finalize(stmt_); }

SqliteStatement& SqliteStatement::bind(int index, std::string_view value) {
  sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
  return *this;
}

SqliteStatement& SqliteStatement::bind_blob(int index, const void* data, size_t size) {
  sqlite3_bind_blob64(stmt_, index, data, size, SQLITE_TRANSIENT);
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, int64_t value) {
  sqlite3_bind_int64(stmt_, index, value);
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, double value) {
  sqlite3_bind_double(stmt_, index, value);
  return *this;
}

int SqliteStatement::bind_all(int first, const std::vector<std::string>& values) {
  for (const auto& v : values) bind(first++, std::string_view(v));
  return first;
}

bool SqliteStatement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  fail(db_, "sqlite step failed");
}

void SqliteStatement::run() {
  while (step()) {
  }
}

void SqliteStatement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

std::string SqliteStatement::text(int column) const {
  auto p = sqlite3_column_text(stmt_, column);
  int n = sqlite3_column_bytes(stmt_, column);
  return p ? std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(n)) : std::string();
}

std::string SqliteStatement::blob(int column) const {
  const void* p = sqlite3_column_blob(stmt_, column);
  int n = sqlite3_column_bytes(stmt_, column);
  return p ? std::string(static_cast<const char*>(p), static_cast<size_t>(n)) : std::string();
}

int64_t SqliteStatement::integer(int column) const { return sqlite3_column_int64(stmt_, column); }
double SqliteStatement::real(int column) const { return sqlite3_column_double(stmt_, column); }
bool SqliteStatement::is_null(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }

SqliteDb::SqliteDb(const std::string& path, bool writable) {
  int flags = writable ? (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) : SQLITE_OPEN_READONLY;
  if (sqlite3_open_v2(path.c_str(), &db_, flags | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
    std::string msg = "cannot open index database " + path + ": " + (db_ ? sqlite3_errmsg(db_) : "out of memory");
    sqlite3_close(db_);
    db_ = nullptr;
    throw RetrievalError(RetrievalError::Kind::kUnavailable, msg);
  }
  sqlite3_busy_timeout(db_, 5000);
}

SqliteDb::~SqliteDb() { sqlite3_close(db_); }

void SqliteDb::exec(std::string_view sql) {
  char* err = nullptr;
  std::string s(sql);
  if (sqlite3_exec(db_, s.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    throw RetrievalError(RetrievalError::Kind::kUnavailable, "sqlite: " + msg);
  }
}

int64_t SqliteDb::last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }

}  // namespace attractor::retrieval
