#include "retrieval/local/canonical_sql.h"

#include "attractor/base/ascii.h"

#include <algorithm>
#include <cctype>
#include <tuple>

namespace attractor::retrieval {

namespace {

bool in_migrations(const std::string& path) {
  std::string p = ascii_lower(path);
  auto slash = p.rfind('/');
  std::string dirs = slash == std::string::npos ? std::string() : p.substr(0, slash);
  for (const char* word : {"migrat", "dbscripts", "upgrade"}) {
    if (dirs.find(word) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

CanonicalSql choose_canonical_sql(const std::vector<StoredNode>& nodes) {
  std::map<std::string, int> objects_in_file;
  std::map<std::string, std::vector<const StoredNode*>> by_name;
  for (const auto& n : nodes) {
    if (n.language != "sql") continue;
    ++objects_in_file[n.path];
    by_name[ascii_lower(n.name)].push_back(&n);
  }
  auto rank = [&](const StoredNode* n) {
    return std::make_tuple(n->facts.value("partial", false), in_migrations(n->path), objects_in_file[n->path] > 1,
                           n->path, n->id);
  };
  CanonicalSql out;
  for (auto& [name, defs] : by_name) {
    std::sort(defs.begin(), defs.end(), [&](const auto* a, const auto* b) { return rank(a) < rank(b); });
    const StoredNode* first = defs.front();
    out.by_name[name] = first->id;
    for (size_t i = 1; i < defs.size(); ++i) {
      out.duplicate_of[defs[i]->id] = first->id;
      out.other_paths[first->id].push_back(defs[i]->path);
    }
  }
  return out;
}

}  // namespace attractor::retrieval
