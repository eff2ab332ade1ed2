#pragma once
/// \file
/// The one code classifier of the project (docs/retrieval.md): labels a text as
/// SQL, DOTNET (C#), DOTNET_WITH_SQL (C# whose string literals hold SQL) or unknown, and maps the
/// label to the compaction language `sql` / `dotnet` / `unknown`.
///
/// The decision is a deterministic score over the code tokens (comments never count):
/// - .NET evidence (C# scan, outside strings): `namespace X` +3, `using X;` +2, a type keyword
///   followed by a name (`class`, `interface`, `struct`, `record`, `enum`) +2, a `{ ... }` pair +2,
///   each access modifier +1, each of `void readonly static override virtual abstract async await
///   var new this foreach throw` +1, `=>` +1, a member signature `Type Name(...);` +2.
/// - SQL evidence (case-insensitive): `CREATE`/`ALTER` of a table, view, procedure, function,
///   trigger, index, schema, type or sequence +3, `SELECT ... FROM`, `INSERT INTO`,
///   `DELETE FROM`, `UPDATE x SET`, `MERGE INTO`, `DECLARE @x`, a `GO` line +2 each, `EXEC name`,
///   `WHERE`, `JOIN` +1 each.
/// The .NET score used is the lower of the text scanned as C# and as SQL (so C# inside SQL `--`
/// comments does not count). DOTNET when the .NET score is >= 2 and not below the SQL score of the C# code outside
/// strings (DOTNET_WITH_SQL when the string literals together score >= 2 as SQL, or one of them is a bare
/// `schema.object` name); otherwise SQL when the text scores >= 2 as SQL; otherwise unknown.

#include <string_view>

namespace attractor {

/// The classifier's label.
enum class CodeKind { kSql, kDotnet, kDotnetWithSql, kUnknown };

/// Classifies `text`.
CodeKind classify_code(std::string_view text);

/// "SQL", "DOTNET", "DOTNET_WITH_SQL" or "unknown".
std::string_view code_kind_name(CodeKind kind);

/// The compaction language: "sql" for SQL, "dotnet" for DOTNET and DOTNET_WITH_SQL, else "unknown".
std::string_view code_language(CodeKind kind);

/// The .NET score of `text` (see above); exposed for tests.
int dotnet_score(std::string_view text);

/// The SQL score of `text` scanned as SQL (see above); exposed for tests and the compactor.
int sql_score(std::string_view text);

/// True when `text` is a bare two- or three-part SQL object name such as `dbo.CancelMeeting`.
bool is_sql_object_name(std::string_view text);

}  // namespace attractor
