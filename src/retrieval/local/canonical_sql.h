#pragma once
/// \file
/// One object, one answer: when several files define the same SQL object (the SSDT file, a
/// `CreateStructure.sql`, each migration that re-creates or alters it), one node answers for the
/// name and the others are recorded as its other locations.
///
/// The canonical node is the first by (1) a full definition before a partial one (`ALTER TABLE`),
/// (2) a path outside migration folders (a path segment containing `migrat`, `dbscripts` or
/// `upgrade`, case-insensitive) before one inside, (3) a file that defines only this object (the
/// declarative, one-object-per-file layout of SSDT projects) before a multi-object script,
/// (4) path, then id.

#include <map>
#include <string>
#include <vector>

#include "retrieval/local/index_store.h"

namespace attractor::retrieval {

/// The canonical node of every SQL name and the duplicates it stands for.
struct CanonicalSql {
  std::map<std::string, std::string> by_name;                   ///< lowercase schema.name -> canonical id
  std::map<std::string, std::string> duplicate_of;              ///< non-canonical id -> canonical id
  std::map<std::string, std::vector<std::string>> other_paths;  ///< canonical id -> other definitions' paths
};

/// Chooses the canonical node of every SQL name among `nodes` (deterministic for a given set).
CanonicalSql choose_canonical_sql(const std::vector<StoredNode>& nodes);

}  // namespace attractor::retrieval
