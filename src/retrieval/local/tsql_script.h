#pragma once
/// \file
/// The database objects a T-SQL script defines and the objects each one reads, writes, executes,
/// calls or references: a statement recognizer over lex_tsql's tokens, so a file counts whatever a
/// generic SQL grammar thinks of it (docs/retrieval-sql.md explains the choice).
///
/// Objects: `CREATE`, `CREATE OR ALTER` and `ALTER` of TABLE, VIEW, PROCEDURE/PROC, FUNCTION,
/// TRIGGER, TYPE, SEQUENCE, SYNONYM and SCHEMA. A view, procedure, function or trigger owns the
/// rest of its batch (SQL Server requires it to be the batch's only statement); a table, type,
/// sequence, synonym or schema ends with its statement. `ALTER TABLE` yields a `partial` table
/// that carries the constraints it adds.
///
/// References, by role:
/// | role       | from                                                                       |
/// |------------|----------------------------------------------------------------------------|
/// | reads      | FROM, JOIN, MERGE ... USING                                                |
/// | writes     | INSERT [INTO], UPDATE (an alias resolves to its FROM table), DELETE [FROM], |
/// |            | MERGE [INTO], SELECT ... INTO, TRUNCATE TABLE                              |
/// | executes   | EXEC/EXECUTE [@rc =] name                                                  |
/// | calls      | `schema.function(...)`, `CROSS/OUTER APPLY f(...)`, `FROM schema.f(...)`    |
/// | references | REFERENCES (foreign keys), a trigger's ON table, a synonym's FOR target     |
/// Variables, temporary tables (`#t`, `##t`) and CTE names are never targets.

#include <string>
#include <string_view>
#include <vector>

#include "retrieval/local/syntax_tree.h"

namespace attractor::retrieval {

/// A reference from SQL text to a database object; `target` is normalized (lowercase, unquoted,
/// `schema.name` or bare `name`; server and database parts dropped).
struct SqlReference {
  std::string role;  ///< reads | writes | references | calls | executes
  std::string target;
  size_t offset = 0;  ///< byte offset in the text
  bool operator==(const SqlReference& o) const { return role == o.role && target == o.target; }
};

/// One object a script defines.
struct TsqlObject {
  std::string kind;                ///< table view procedure function trigger type sequence synonym schema
  std::string schema;              ///< as written; `dbo` when omitted (empty for kind schema)
  std::string name;                ///< as written, unquoted
  bool partial = false;            ///< ALTER TABLE: adds to a table defined elsewhere
  size_t begin = 0;                ///< byte of CREATE/ALTER
  size_t end = 0;                  ///< byte after the definition (its `;` included)
  std::vector<SqlReference> refs;  ///< deduplicated by (role, target), in order of first appearance
};

/// What a script defines, what it refers to outside any definition, and what could not be read.
struct TsqlScript {
  std::vector<TsqlObject> objects;
  std::vector<SqlReference> loose_refs;  ///< references outside every object (scripts, query strings)
  std::vector<ParseIssue> issues;
};

/// Recognizes the objects and references of a T-SQL text.
TsqlScript read_tsql_script(std::string_view source);

/// Normalizes a multi-part name as written (`[dbo].[Meetings]` -> `dbo.meetings`,
/// `Srv.Db.dbo.T` -> `dbo.t`).
std::string normalize_sql_name(std::string_view name);

}  // namespace attractor::retrieval
