#pragma once
/// \file
/// `keyword_rerank` (docs/retrieval.md): reorders semantic candidates by exact-token evidence
/// from the query. It only reorders and trims: it never introduces an id and does no ACL work (the
/// texts it scores were fetched in the search's own scope).

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "retrieval/backend.h"

namespace attractor {

/// Distinct lowercased tokens of `text` in order of first appearance: maximal runs of ASCII letters,
/// digits, `_` and non-ASCII bytes, at least 2 bytes long. With `drop_stop_words`, common English
/// words of questions (the, is, where, how, ...) are left out.
std::vector<std::string> exact_tokens(std::string_view text, bool drop_stop_words = false);

/// Reorders `candidates` (in their semantic rank order) by evidence = the number of distinct query
/// tokens (`exact_tokens(query, true)`) that occur as whole tokens, case-insensitively, in the
/// candidate's text (`texts[id]`, absent = none) or its id. Sort: evidence descending, then
/// semantic order. Returns at most `top_k` hits with `score` = evidence and `rank` = 1..n.
/// Duplicate candidate ids keep their first occurrence.
std::vector<retrieval::SearchHit> keyword_rerank(std::string_view query,
                                                 const std::vector<retrieval::SearchHit>& candidates,
                                                 const std::map<std::string, std::string>& texts, int top_k);

}  // namespace attractor
