#include "corpus.h"

#include <array>
#include <string_view>
#include <vector>

namespace attractor::bench {

namespace {

class Random {
 public:
  explicit Random(std::uint32_t seed) : x_(seed ? seed : 1) {}
  std::uint32_t next() {
    x_ ^= x_ << 13;
    x_ ^= x_ >> 17;
    x_ ^= x_ << 5;
    return x_;
  }
  std::size_t below(std::size_t n) { return next() % n; }
  /// Roughly Zipf-distributed index: small indices are much more frequent.
  std::size_t zipf(std::size_t n) {
    const double u = (next() & 0xFFFFFF) / double(0x1000000);
    return static_cast<std::size_t>(double(n) * u * u * u) % n;
  }
  bool chance(unsigned percent) { return below(100) < percent; }

 private:
  std::uint32_t x_;
};

constexpr std::array<std::string_view, 120> kWords = {"the",
                                                      "of",
                                                      "and",
                                                      "to",
                                                      "a",
                                                      "in",
                                                      "is",
                                                      "that",
                                                      "for",
                                                      "it",
                                                      "as",
                                                      "was",
                                                      "with",
                                                      "be",
                                                      "by",
                                                      "on",
                                                      "not",
                                                      "he",
                                                      "this",
                                                      "are",
                                                      "or",
                                                      "his",
                                                      "from",
                                                      "at",
                                                      "which",
                                                      "but",
                                                      "have",
                                                      "an",
                                                      "had",
                                                      "they",
                                                      "you",
                                                      "were",
                                                      "their",
                                                      "one",
                                                      "all",
                                                      "we",
                                                      "can",
                                                      "her",
                                                      "has",
                                                      "there",
                                                      "been",
                                                      "if",
                                                      "more",
                                                      "when",
                                                      "will",
                                                      "would",
                                                      "who",
                                                      "so",
                                                      "no",
                                                      "pipeline",
                                                      "node",
                                                      "edge",
                                                      "graph",
                                                      "token",
                                                      "budget",
                                                      "context",
                                                      "model",
                                                      "stage",
                                                      "retry",
                                                      "outcome",
                                                      "checkpoint",
                                                      "handler",
                                                      "prompt",
                                                      "response",
                                                      "engineer",
                                                      "review",
                                                      "deploy",
                                                      "test",
                                                      "build",
                                                      "release",
                                                      "compiler",
                                                      "function",
                                                      "variable",
                                                      "database",
                                                      "query",
                                                      "index",
                                                      "server",
                                                      "client",
                                                      "request",
                                                      "latency",
                                                      "throughput",
                                                      "memory",
                                                      "allocation",
                                                      "performance",
                                                      "correctness",
                                                      "specification",
                                                      "implementation",
                                                      "documentation",
                                                      "configuration",
                                                      "environment",
                                                      "dependency",
                                                      "repository",
                                                      "interface",
                                                      "however",
                                                      "therefore",
                                                      "although",
                                                      "because",
                                                      "between",
                                                      "through",
                                                      "without",
                                                      "within",
                                                      "another",
                                                      "important",
                                                      "different",
                                                      "following",
                                                      "available",
                                                      "necessary",
                                                      "particular",
                                                      "understanding",
                                                      "development",
                                                      "information",
                                                      "international",
                                                      "approximately",
                                                      "characteristics",
                                                      "responsibility",
                                                      "nevertheless",
                                                      "notwithstanding",
                                                      "incomprehensible"};

constexpr std::array<std::string_view, 40> kSyllables = {
    "ka",  "lo",  "mi",  "zen", "tor", "qua", "vex", "ril", "dan", "sho", "pli", "gru", "ent", "ion",
    "ast", "ber", "cy",  "dro", "fle", "gha", "jun", "kri", "lum", "mor", "nex", "oph", "pra", "quo",
    "rhy", "sti", "thr", "uxo", "vil", "wra", "xen", "yor", "zul", "ck",  "ph",  "ing"};

constexpr std::array<std::string_view, 12> kForeign = {
    "大语言模型的上下文窗口以令牌计算，而不是字符。北京是中华人民共和国的首都。",
    "今日はいい天気ですね。カタカナとひらがなと漢字が混ざっています。",
    "안녕하세요, 세계! 한국어 문장은 띄어쓰기를 사용합니다.",
    "Съешь же ещё этих мягких французских булок, да выпей чаю.",
    "Größenverhältnisse: Straße, Fußgängerübergänge und Donaudampfschifffahrt.",
    "L'été dernier, nous sommes allés à l'hôpital où l'infirmière attendait.",
    "مرحبا بالعالم! هذه جملة عربية مع أرقام ١٢٣ في المنتصف.",
    "שלום עולם! זה משפט בעברית.",
    "नमस्ते दुनिया! हिन्दी में यह एक वाक्य है।",
    "I ❤️ tokens 😀😃😄 👍 🎉 🚀 👨‍👩‍👧‍👦",
    "Η γρήγορη καφέ αλεπού πηδάει πάνω από τον τεμπέλη σκύλο.",
    "Tiếng Việt có nhiều dấu: ả, ẫ, ặ, ề, ổ, ự, ỹ."};

std::string rare_word(Random& r) {
  std::string w;
  const std::size_t n = 2 + r.below(4);
  for (std::size_t i = 0; i < n; ++i) w += kSyllables[r.below(kSyllables.size())];
  return w;
}

std::string identifier(Random& r, int style) {
  std::string id;
  const std::size_t parts = 1 + r.below(3);
  for (std::size_t i = 0; i < parts; ++i) {
    std::string part = r.chance(60) ? std::string(kWords[49 + r.below(kWords.size() - 49)]) : rare_word(r);
    if (style == 0 && i > 0) part[0] = static_cast<char>(part[0] - 'a' + 'A');  // camelCase
    if (style == 1 && i > 0) id += '_';                                         // snake_case
    if (style == 2) part[0] = static_cast<char>(part[0] - 'a' + 'A');           // PascalCase
    id += part;
  }
  return id;
}

void prose(Random& r, std::string& out) {
  const std::size_t sentences = 2 + r.below(6);
  for (std::size_t s = 0; s < sentences; ++s) {
    const std::size_t words = 5 + r.below(20);
    for (std::size_t w = 0; w < words; ++w) {
      std::string word = r.chance(8) ? rare_word(r) : std::string(kWords[r.zipf(kWords.size())]);
      if (w == 0) word[0] = static_cast<char>(word[0] - 'a' + 'A');
      if (w > 0) out += ' ';
      out += word;
      if (r.chance(3)) out += std::to_string(r.below(100000));
      if (w + 1 < words && r.chance(7)) out += ',';
    }
    out += r.chance(85) ? ". " : (r.chance(50) ? "? " : "! ");
  }
  out += "\n\n";
}

void cpp_code(Random& r, std::string& out) {
  const std::string type = identifier(r, 2), fn = identifier(r, 1), var = identifier(r, 1);
  out += "template <typename T>\nstd::vector<T> " + fn + "(const " + type + "& " + var + ", std::size_t limit) {\n";
  out += "  std::vector<T> result;\n  result.reserve(limit);\n";
  const std::size_t lines = 2 + r.below(6);
  for (std::size_t i = 0; i < lines; ++i) {
    out += "  if (" + var + "." + identifier(r, 1) + "() > " + std::to_string(r.below(4096)) + ") {\n";
    out += "    result.push_back(static_cast<T>(" + var + "[" + std::to_string(i) + "] * " +
           std::to_string(r.below(1000)) + "));  // " + std::string(kWords[r.zipf(kWords.size())]) + "\n  }\n";
  }
  out += "  return result;\n}\n\n";
}

void python_code(Random& r, std::string& out) {
  const std::string fn = identifier(r, 1), arg = identifier(r, 1);
  out += "def " + fn + "(" + arg + ", *, retries=" + std::to_string(r.below(5)) + "):\n";
  out += "    \"\"\"" + std::string(kWords[r.zipf(kWords.size())]) + " " + rare_word(r) + ".\"\"\"\n";
  const std::size_t lines = 2 + r.below(5);
  for (std::size_t i = 0; i < lines; ++i) {
    out += "    " + identifier(r, 1) + " = {k: v for k, v in " + arg + ".items() if v > " +
           std::to_string(r.below(100)) + "}\n";
  }
  out += "    return f\"{" + arg + "!r} -> {len(" + arg + ")}\"\n\n\n";
}

void csharp_code(Random& r, std::string& out) {
  const std::string cls = identifier(r, 2), method = identifier(r, 2);
  out += "public sealed class " + cls + " : I" + cls + "\n{\n";
  out += "    public async Task<IReadOnlyList<" + identifier(r, 2) + ">> " + method +
         "Async(CancellationToken ct)\n    {\n";
  out += "        var items = await _repository.Where(x => x." + identifier(r, 2) +
         " >= " + std::to_string(r.below(500)) + ").ToListAsync(ct).ConfigureAwait(false);\n";
  out += "        return items.OrderBy(x => x.Id).ToList();\n    }\n}\n\n";
}

void sql_code(Random& r, std::string& out) {
  const std::string table = identifier(r, 1), col = identifier(r, 1);
  out += "SELECT t." + col + ", COUNT(*) AS n, SUM(t.amount) AS total\nFROM " + table + " t\nJOIN " + identifier(r, 1) +
         " u ON u.id = t.user_id\nWHERE t.created_at >= '2024-0" + std::to_string(1 + r.below(9)) +
         "-01' AND t.status IN ('open', 'closed')\nGROUP BY t." + col + "\nORDER BY total DESC\nLIMIT " +
         std::to_string(10 + r.below(90)) + ";\n\n";
}

void json_data(Random& r, std::string& out) {
  out += "{\"id\": " + std::to_string(r.next()) + ", \"name\": \"" + identifier(r, 1) + "\", \"tags\": [\"" +
         std::string(kWords[r.zipf(kWords.size())]) + "\", \"" + rare_word(r) +
         "\"], \"score\": " + std::to_string(r.below(1000)) + "." + std::to_string(r.below(100)) +
         ", \"active\": " + (r.chance(50) ? "true" : "false") + "}\n";
}

}  // namespace

std::string generate_token_corpus(std::size_t bytes, std::uint32_t seed) {
  Random r(seed);
  std::string out;
  out.reserve(bytes + 4096);
  while (out.size() < bytes) {
    const std::size_t kind = r.below(100);
    if (kind < 45) {
      prose(r, out);
    } else if (kind < 58) {
      cpp_code(r, out);
    } else if (kind < 70) {
      python_code(r, out);
    } else if (kind < 80) {
      csharp_code(r, out);
    } else if (kind < 88) {
      sql_code(r, out);
    } else if (kind < 94) {
      json_data(r, out);
    } else {
      out += std::string(kForeign[r.below(kForeign.size())]) + "\n\n";
    }
  }
  return out;
}

}  // namespace attractor::bench
