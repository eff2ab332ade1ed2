#include "retrieval/local/query_analysis.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <vector>

#include "retrieval/local/code_tokens.h"
#include "retrieval/local/node_role.h"

namespace attractor::retrieval {

namespace {

// Function words of English and the words questions are made of; none is a useful search term.
constexpr std::array kStopWords = {
    "a",        "about",  "after",  "again",   "all",     "also",  "am",    "an",   "and",   "any",   "are",  "as",
    "at",       "be",     "been",   "being",   "both",    "but",   "by",    "can",  "could", "did",   "do",   "does",
    "doing",    "done",   "during", "each",    "either",  "every", "for",   "from", "had",   "has",   "have", "having",
    "he",       "her",    "here",   "his",     "how",     "i",     "if",    "in",   "into",  "is",    "it",   "its",
    "itself",   "just",   "me",     "might",   "must",    "my",    "of",    "on",   "onto",  "or",    "our",  "own",
    "she",      "should", "so",     "some",    "such",    "than",  "that",  "the",  "their", "them",  "then", "there",
    "these",    "they",   "this",   "those",   "to",      "too",   "us",    "very", "was",   "we",    "were", "what",
    "whatever", "when",   "where",  "whereas", "whether", "which", "while", "who",  "whom",  "whose", "why",  "will",
    "with",     "would",  "you",    "your",
};

struct KindWord {
  const char* word;
  std::vector<std::string> kinds;
};

// Words (and the two-word "stored procedure") that name kinds of node (docs/retrieval.md 4.1.1).
const std::vector<KindWord>& kind_words() {
  static const std::vector<KindWord> words = {
      {"procedure", {"procedure"}},
      {"procedures", {"procedure"}},
      {"proc", {"procedure"}},
      {"procs", {"procedure"}},
      {"sproc", {"procedure"}},
      {"sprocs", {"procedure"}},
      {"view", {"view"}},
      {"views", {"view"}},
      {"table", {"table"}},
      {"tables", {"table"}},
      {"trigger", {"trigger"}},
      {"triggers", {"trigger"}},
      {"function", {"function", "method"}},
      {"functions", {"function", "method"}},
      {"class", {"class"}},
      {"classes", {"class"}},
      {"interface", {"interface"}},
      {"interfaces", {"interface"}},
      {"method", {"method"}},
      {"methods", {"method"}},
      {"enum", {"enum"}},
      {"enums", {"enum"}},
      {"enumeration", {"enum"}},
      {"struct", {"struct"}},
      {"structs", {"struct"}},
      {"constructor", {"constructor"}},
      {"constructors", {"constructor"}},
      {"property", {"property"}},
      {"properties", {"property"}},
  };
  return words;
}

// Nouns that name a role; a query using one as a word ranks that role first.
const std::map<std::string, std::string>& role_nouns() {
  static const std::map<std::string, std::string> nouns = {
      {"test", kRoleTest},           {"tests", kRoleTest},
      {"migration", kRoleMigration}, {"migrations", kRoleMigration},
      {"generated", kRoleGenerated},
  };
  return nouns;
}

bool all_lower(std::string_view run) {
  return !run.empty() && std::all_of(run.begin(), run.end(), [](char c) { return c >= 'a' && c <= 'z'; });
}

/// The run lowercased when it is a plain word (see the header), else "".
std::string plain_word(std::string_view run, bool first) {
  if (all_lower(run)) return std::string(run);
  if (first && run.size() > 1 && run[0] >= 'A' && run[0] <= 'Z' && all_lower(run.substr(1))) {
    std::string word(run);
    word[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(word[0])));
    return word;
  }
  return {};
}

const KindWord* kind_word(const std::string& word);

// Words after which a kind or role word heads what the query asks for ("which table", "the tests").
constexpr std::array kPhraseHeads = {"a",    "all",    "an",   "any", "each",  "every", "find",  "list", "show",
                                     "some", "stored", "that", "the", "these", "this",  "those", "what", "which"};

/// True when the word at `i` starts the query or follows a word of kPhraseHeads: "which view ..."
/// asks for views, "... into the queue table" only describes.
bool heads_the_question(const std::vector<std::string_view>& runs, size_t i) {
  if (i == 0) return true;
  const std::string before = plain_word(runs[i - 1], i - 1 == 0);
  if ((before == "and" || before == "or") && i >= 2) return kind_word(plain_word(runs[i - 2], i - 2 == 0)) != nullptr;
  return std::find(kPhraseHeads.begin(), kPhraseHeads.end(), before) != kPhraseHeads.end();
}

const KindWord* kind_word(const std::string& word) {
  for (const auto& k : kind_words()) {
    if (word == k.word) return &k;
  }
  return nullptr;
}

}  // namespace

bool is_stop_word(std::string_view word) {
  return std::find(kStopWords.begin(), kStopWords.end(), word) != kStopWords.end();
}

QueryAnalysis analyze_query(std::string_view query) {
  QueryAnalysis out;
  const std::vector<std::string_view> runs = identifier_runs(query);
  std::vector<std::string_view> kept;
  for (size_t i = 0; i < runs.size(); ++i) {
    const std::string word = plain_word(runs[i], i == 0);
    out.words.push_back({word, false});
    if (word.empty()) {
      out.names_identifier = true;
      out.words.back().kept = true;
      kept.push_back(runs[i]);
      continue;
    }
    if (is_stop_word(word)) continue;
    const std::string next = i + 1 < runs.size() ? plain_word(runs[i + 1], false) : std::string();
    if (word == "stored" && kind_word(next) != nullptr) continue;                         // "stored procedure"
    if ((word == "table" || word == "defined") && (next == "type" || next == "types")) {  // a user-defined table type
      out.kinds.insert("type");
      out.words.push_back({next, false});
      ++i;
      continue;
    }
    const bool head = heads_the_question(runs, i);
    if (const KindWord* k = kind_word(word); k != nullptr && head) {
      out.kinds.insert(k->kinds.begin(), k->kinds.end());
      continue;
    }
    if (auto r = role_nouns().find(word); r != role_nouns().end() && head) {
      out.roles.insert(r->second);
      continue;
    }
    out.words.back().kept = true;
    kept.push_back(runs[i]);
  }
  for (auto run : kept) {
    if (!out.search_text.empty()) out.search_text.push_back(' ');
    out.search_text.append(run);
  }
  if (out.search_text.empty()) out.search_text = std::string(query);
  return out;
}

}  // namespace attractor::retrieval
