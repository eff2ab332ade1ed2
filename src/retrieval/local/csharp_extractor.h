#pragma once
/// \file
/// C# symbols from tree-sitter C# (`tree-sitter-c-sharp@0.23.5`, C# 12; preprocessor lines masked
/// first, see csharp_preprocessor.h).
///
/// Nodes: namespace-level and nested types (class, struct, interface, record, enum) and members
/// (method, constructor, property). Ids: `cs:Namespace.Type` (generic parameters kept, e.g.
/// `Repository<T>`), `cs:Namespace.Type.Method(int,string)` with parameter types as written,
/// constructors as `cs:Namespace.Type.Type(...)`, properties as `cs:Namespace.Type.Name`.
///
/// Facts for the linker. Types: `ns`, `simple`, `arity` (type parameters), `outer` (enclosing type
/// id), `usings` / `aliases` / `static_usings` / `global_usings` (the `using` directives in force),
/// `bases` (simple names), `base_names` ([{qual, arity}] as written),
/// `base_args` (generic arguments of the bases), `fields` (name -> type), `table` / `schema` from a
/// `[Table]` attribute. Members: `type` (containing type id), `simple`, `arity`, `required`, `calls`
/// ([{name, arity, recv}]), `news` ([{type, arity}]), `locals` (name -> type, parameters included),
/// `idents` (identifiers, for uses_type), `sql` ([{role, target}] from SQL in string literals),
/// `procs` (string literals naming a procedure when the member mentions `StoredProcedure`),
/// `to_table` ([{entity, table, schema}] from EF `ToTable`).

#include <string_view>

#include "retrieval/local/extracted.h"

namespace attractor::retrieval {

/// Types and members of a C# file.
ExtractedFile extract_csharp(std::string_view source);

/// How many type arguments a type name as written has: `Foo<A, Dictionary<B, C>>` -> 2, `Foo` -> 0.
int generic_arity(std::string_view written);

}  // namespace attractor::retrieval
