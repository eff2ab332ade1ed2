#pragma once
/// \file
/// Edge types of the unified C# + SQL dependency graph (the names an edge_allowlist uses).
///
/// | type         | from -> to                                                                     |
/// |--------------|--------------------------------------------------------------------------------|
/// | contains     | type -> its members and nested types                                           |
/// | inherits     | class/struct/record -> base class; interface -> base interface                  |
/// | implements   | class/struct/record -> implemented interface                                   |
/// | calls        | member -> called method or constructor (by name and arity, receiver type when known) |
/// | uses_type    | member or type -> a type it names (parameters, locals, fields, generics, new)  |
/// | reads        | SQL procedure/function/trigger or C# member (SQL string) -> table/view it selects from |
/// | writes       | SQL object or C# member -> INSERT/UPDATE/DELETE/MERGE target                   |
/// | references   | view -> table/view it selects from; table -> FK target; trigger -> its table;   |
/// |              | procedure/function -> procedure/function it executes or invokes                 |
/// | executes     | C# member -> stored procedure named with CommandType.StoredProcedure or EXEC    |
/// | maps_to      | C# entity type (EF `ToTable`, `[Table]`) -> table                               |

#include <string_view>

namespace attractor::retrieval::edge_type {

inline constexpr const char* kContains = "contains";
inline constexpr const char* kInherits = "inherits";
inline constexpr const char* kImplements = "implements";
inline constexpr const char* kCalls = "calls";
inline constexpr const char* kUsesType = "uses_type";
inline constexpr const char* kReads = "reads";
inline constexpr const char* kWrites = "writes";
inline constexpr const char* kReferences = "references";
inline constexpr const char* kExecutes = "executes";
inline constexpr const char* kMapsTo = "maps_to";

/// Every edge type, in the order above (what edge allowlists are checked against).
inline constexpr const char* kAll[] = {kContains, kInherits, kImplements, kCalls,    kUsesType,
                                       kReads,    kWrites,   kReferences, kExecutes, kMapsTo};

/// True when `entry` is an edge type of kAll, optionally prefixed with `~` (followed backwards),
/// the form edge allowlists are written in.
constexpr bool is_allowlist_entry(std::string_view entry) {
  if (!entry.empty() && entry.front() == '~') entry.remove_prefix(1);
  for (const char* type : kAll) {
    if (entry == type) return true;
  }
  return false;
}

}  // namespace attractor::retrieval::edge_type
