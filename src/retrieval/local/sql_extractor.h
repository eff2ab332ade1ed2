#pragma once
/// \file
/// SQL files and SQL strings as the index sees them: nodes for the objects a T-SQL script defines
/// (tsql_script.h recognizes them) and the references a query string makes.
///
/// Node ids are `sql:schema.name` as declared (`sql:name` for a schema); the schema defaults to
/// `dbo`. Each node's `facts.refs` lists `[{role, target}]`; an `ALTER TABLE` of a table the same
/// file creates adds its references to that table, and one of a table defined elsewhere becomes a
/// node with `facts.partial = true` that the graph linker folds into the table's definition.

#include <string>
#include <string_view>
#include <vector>

#include "retrieval/local/extracted.h"
#include "retrieval/local/tsql_script.h"

namespace attractor::retrieval {

/// References in a SQL text (a .sql file or a query string embedded in C#), deduplicated by
/// (role, target), in order of first appearance.
std::vector<SqlReference> sql_references(std::string_view sql);

/// True when a string literal looks like SQL (has SELECT/INSERT/UPDATE/DELETE/MERGE/EXEC as a word).
bool looks_like_sql(std::string_view text);

/// Objects of a .sql file with their references in `facts.refs` ([{role, target}]).
ExtractedFile extract_sql(std::string_view source);

}  // namespace attractor::retrieval
