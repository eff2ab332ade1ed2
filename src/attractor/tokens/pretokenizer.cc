#define PCRE2_CODE_UNIT_WIDTH 8
#include "attractor/tokens/pretokenizer.h"

#include <pcre2.h>

#include <stdexcept>

#include <fmt/format.h>

namespace attractor {

const char* const kJsWhiteSpaceClass =
    "\\t\\n\\x{0B}\\f\\r\\x{20}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}"
    "\\x{FEFF}";

namespace {

std::string contraction() { return "'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE])"; }

std::string pcre2_error(int code) {
  PCRE2_UCHAR buffer[256];
  pcre2_get_error_message(code, buffer, sizeof buffer);
  return reinterpret_cast<const char*>(buffer);
}

/// Per-thread match state, shared by every pattern (the match data holds one pair).
struct ThreadMatchState {
  pcre2_match_data* data = nullptr;
  pcre2_match_context* context = nullptr;
  pcre2_jit_stack* stack = nullptr;

  ThreadMatchState() {
    data = pcre2_match_data_create(1, nullptr);
    context = pcre2_match_context_create(nullptr);
    stack = pcre2_jit_stack_create(32 * 1024, 8 * 1024 * 1024, nullptr);
    if (!data || !context || !stack) throw std::bad_alloc();
    pcre2_jit_stack_assign(context, nullptr, stack);
  }
  ~ThreadMatchState() {
    pcre2_jit_stack_free(stack);
    pcre2_match_context_free(context);
    pcre2_match_data_free(data);
  }
  ThreadMatchState(const ThreadMatchState&) = delete;
  ThreadMatchState& operator=(const ThreadMatchState&) = delete;
};

ThreadMatchState& thread_match_state() {
  thread_local ThreadMatchState state;
  return state;
}

}  // namespace

std::string o200k_split_pattern() {
  const std::string ws = kJsWhiteSpaceClass;
  const std::string lead = "[^\\r\\n\\p{L}\\p{N}]?";
  const std::string upper = "[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]";
  const std::string lower = "[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]";
  const std::string suffix = "(?:" + contraction() + ")?";
  return lead + upper + "*" + lower + "+" + suffix +        // word ending in lower case
         "|" + lead + upper + "+" + lower + "*" + suffix +  // upper-case word
         "|\\p{N}{1,3}" +                                   // up to three digits
         "| ?[^" + ws + "\\p{L}\\p{N}]+[\\r\\n/]*" +        // punctuation run
         "|[" + ws + "]*[\\r\\n]+" +                        // white space ending in newlines
         "|[" + ws + "]+(?![^" + ws + "])" +                // trailing white space
         "|[" + ws + "]+";
}

std::string cl100k_split_pattern() {
  const std::string ws = kJsWhiteSpaceClass;
  return contraction() +                             // 's 't 're 've 'm 'll 'd
         "|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+" +          // word with an optional lead character
         "|\\p{N}{1,3}" +                            // up to three digits
         "| ?[^" + ws + "\\p{L}\\p{N}]+[\\r\\n]*" +  // punctuation run
         "|[" + ws + "]+\\z" +                       // white space at the very end
         "|[" + ws + "]*[\\r\\n]" +                  // white space up to a newline
         "|[" + ws + "]+(?![^" + ws + "])" +         // white space not before a word
         "|[" + ws + "]";
}

Pretokenizer::Pretokenizer(const std::string& pattern) {
  int error = 0;
  PCRE2_SIZE error_offset = 0;
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), PCRE2_UTF | PCRE2_UCP,
                                   &error, &error_offset, nullptr);
  if (!code) {
    throw std::invalid_argument(
        fmt::format("split pattern does not compile at offset {}: {}", error_offset, pcre2_error(error)));
  }
  jit_ = pcre2_jit_compile(code, PCRE2_JIT_COMPLETE) == 0;
  code_ = code;
}

Pretokenizer::~Pretokenizer() { pcre2_code_free(static_cast<pcre2_code*>(code_)); }

bool Pretokenizer::next_match(std::string_view text, std::size_t offset, std::size_t& begin, std::size_t& end) const {
  ThreadMatchState& state = thread_match_state();
  auto* code = static_cast<const pcre2_code*>(code_);
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  int rc = jit_ ? pcre2_jit_match(code, subject, text.size(), offset, PCRE2_NO_UTF_CHECK, state.data, state.context)
                : pcre2_match(code, subject, text.size(), offset, PCRE2_NO_UTF_CHECK, state.data, state.context);
  if (rc == PCRE2_ERROR_NOMATCH) return false;
  if (rc < 0) throw std::runtime_error("pre-tokenizer match failed: " + pcre2_error(rc));
  const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(state.data);
  begin = ovector[0];
  end = ovector[1];
  if (end <= begin) throw std::runtime_error("pre-tokenizer produced an empty match");
  return true;
}

}  // namespace attractor
