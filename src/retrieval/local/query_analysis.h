#pragma once
/// \file
/// What a plain-English query asks for (docs/retrieval.md section 4.1.1), before bm25 or the
/// embedder sees it: the words that name a kind of node become a kind preference, the words that
/// name a role a role preference, and English stop words and question words are dropped.
///
/// Only plain words are read that way: a run of lowercase ASCII letters, or a capitalised one at
/// the start of the query ("Which ..."). An identifier spelled like a stop word (`Where`, `By`,
/// `GetById`) keeps every part: the user typed a name, not a sentence.

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace attractor::retrieval {

/// One identifier run of a query, as the synonym expansion reads it.
struct QueryWord {
  /// The run lowercased when it is a plain word, "" when it is an identifier the user typed.
  std::string plain;
  /// True when search_text kept the run (not a stop, kind or role word).
  bool kept = false;
};

struct QueryAnalysis {
  /// The query's words without stop words and kind or role words, in order, space-separated;
  /// the whole query when nothing else would be left.
  std::string search_text;
  /// Node kinds the query names ("stored procedure" -> procedure; "function" -> function, method).
  std::set<std::string> kinds;
  /// Roles the query names as a noun ("which test ...", "migrations that ..."): ranked first.
  std::set<std::string> roles;
  /// True when a word of the query is not a plain word (an identifier such as `Cipher_Move`): the
  /// query names its symbol, so a kind it names only describes it.
  bool names_identifier = false;
  /// Every identifier run of the query, in order (stop words too, so that collocations such as
  /// "log in" stay adjacent).
  std::vector<QueryWord> words;
};

/// The analysis of `query`; pure and deterministic.
QueryAnalysis analyze_query(std::string_view query);

/// True when `word` (lowercase) is one of the dropped English stop or question words.
bool is_stop_word(std::string_view word);

}  // namespace attractor::retrieval
