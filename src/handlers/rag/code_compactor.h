#pragma once
/// \file
/// Code compaction for `manage_context_budget` (docs/retrieval.md): shrinks C# and T-SQL text while
/// keeping its structure readable. What stays and what goes:
///
/// C# (DOTNET and DOTNET_WITH_SQL):
/// - kept: `using` directives, namespaces, attributes, type declarations with their base lists,
///   fields, properties, events, enum members, every member signature (name, parameters,
///   return type, modifiers, constraints), expression-bodied members, and every SQL object name
///   that appears in a string literal of a removed body;
/// - removed: comments (including `///` docs), `#region` lines, blank lines, trailing spaces,
///   and every method / constructor / accessor / lambda body, which becomes
///   `{ ... }` or `{ ... sql: dbo.A, dbo.B }` on the signature's line.
///
/// T-SQL:
/// - kept: tables, views and ad-hoc statements verbatim, the header of every procedure,
///   function and trigger (name, parameters, return type, target table and events) up to its
///   body `AS`, and every object the body refers to (`FROM`, `JOIN`, `INTO`, `UPDATE`, `EXEC`,
///   `MERGE INTO`, `REFERENCES`, `TABLE`, two-part function calls);
/// - removed: comments, `GO` separators, blank lines, trailing spaces, and procedural bodies, which
///   become `AS ...` or `AS ... uses: dbo.A, dbo.B`.
///
/// Unknown text is returned unchanged. The result is deterministic.

#include <string>
#include <string_view>
#include <vector>

#include "handlers/rag/code_classifier.h"

namespace attractor {

/// Compacts `text` as the language of `kind` (SQL, or C# for both .NET kinds).
std::string compact_code(std::string_view text, CodeKind kind);

/// Compacts C# text.
std::string compact_csharp(std::string_view text);

/// Compacts T-SQL text.
std::string compact_sql(std::string_view text);

/// The SQL objects `sql` refers to, in order of first appearance, without duplicates (as written,
/// brackets kept). Variables, temporary names after `AS` and keywords are not objects.
std::vector<std::string> sql_object_names(std::string_view sql);

/// Drops blank lines and trailing whitespace of every line.
std::string drop_blank_lines(std::string_view text);

}  // namespace attractor
