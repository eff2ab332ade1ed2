#pragma once
/// \file
/// SQL symbols and references, from tree-sitter SQL (`@derekstride/tree-sitter-sql`) plus a small
/// lexical pass for what that grammar cannot parse.
///
/// Objects: `CREATE [OR ALTER|OR REPLACE] TABLE|VIEW|PROCEDURE|PROC|FUNCTION|TRIGGER name` headers.
/// Tables and views take the exact span of their tree-sitter node; T-SQL procedures, functions and
/// triggers (which the grammar does not cover) span from CREATE to the next object header or `GO`
/// batch separator. Names default to schema `dbo`; ids are `sql:schema.name` as declared.
///
/// References (role, target): tree-sitter roles for FROM/JOIN (reads), INSERT/UPDATE/DELETE/MERGE
/// targets (writes), MERGE ... USING (reads), REFERENCES and trigger ON tables (references) and
/// function invocations (calls); inside regions the grammar rejected, and for `EXEC name`
/// (executes), the same roles come from a keyword scan over comment- and string-free tokens.

#include <string>
#include <string_view>
#include <vector>

#include "retrieval/extracted.h"

namespace attractor::retrieval {

/// A reference from SQL text to a database object; `target` is normalized (lowercase, unquoted,
/// `schema.name` or bare `name`).
struct SqlReference {
  std::string role;  ///< reads | writes | references | calls | executes
  std::string target;
  size_t offset = 0;  ///< byte offset in the text
  bool operator==(const SqlReference& o) const { return role == o.role && target == o.target; }
};

/// References in a SQL text (a .sql file or a query string embedded in C#), deduplicated by
/// (role, target), in order of first appearance.
std::vector<SqlReference> sql_references(std::string_view sql);

/// True when a string literal looks like SQL (has SELECT/INSERT/UPDATE/DELETE/MERGE/EXEC as a word).
bool looks_like_sql(std::string_view text);

/// Objects of a .sql file with their references in `facts.refs` ([{role, target}]).
ExtractedFile extract_sql(std::string_view source);

/// Normalizes an object name as written (`[dbo].[Meetings]` -> `dbo.meetings`).
std::string normalize_sql_name(std::string_view name);

}  // namespace attractor::retrieval
