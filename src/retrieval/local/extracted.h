#pragma once
/// \file
/// What a language extractor produces for one source file.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "retrieval/local/syntax_tree.h"

namespace attractor::retrieval {

/// One symbol found in a file. `facts` carries what the graph linker needs (see graph_linker.h).
struct ExtractedNode {
  std::string id;
  std::string
      kind;  ///< class struct interface record enum method constructor property | table view procedure function trigger
  std::string name;  ///< qualified name without the language prefix
  int start_line = 0;
  int end_line = 0;
  std::string text;  ///< the exact source span
  nlohmann::json facts = nlohmann::json::object();
};

/// All symbols of a file, in source order, plus syntax errors (the rest of the file is still used).
struct ExtractedFile {
  std::vector<ExtractedNode> nodes;
  std::vector<ParseIssue> issues;
  std::vector<std::string> global_usings;  ///< namespaces of the file's `global using` directives (C#)
};

}  // namespace attractor::retrieval
