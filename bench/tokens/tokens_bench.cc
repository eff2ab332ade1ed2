// Token counting throughput on a deterministic mixed corpus, one encoding per process so the
// peak memory is that encoding's. Prints one `key=value` line per measurement; run.sh compares
// them with bench_js.js.
//
//   tokens_bench [--encoding o200k_base] [--bytes 10485760] [--runs 3] [--write-corpus PATH]

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "attractor/base/sha256.h"
#include "attractor/tokens/token_counter.h"
#include "corpus.h"

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

long peak_rss_kb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

std::string join_ids(const std::vector<attractor::TokenId>& ids) {
  std::string out;
  out.reserve(ids.size() * 7);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i) out.push_back(' ');
    out += std::to_string(ids[i]);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string encoding = "o200k_base";
  std::size_t bytes = 10u << 20;
  int runs = 3;
  std::string corpus_path;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "tokens_bench: %s needs a value\n", argv[i]);
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--encoding") {
      encoding = value();
    } else if (arg == "--bytes") {
      bytes = std::stoul(value());
    } else if (arg == "--runs") {
      runs = std::max(1, std::stoi(value()));
    } else if (arg == "--write-corpus") {
      corpus_path = value();
    } else {
      std::fprintf(stderr, "usage: tokens_bench [--encoding E] [--bytes N] [--runs N] [--write-corpus PATH]\n");
      return 2;
    }
  }

  const std::string corpus = attractor::bench::generate_token_corpus(bytes);
  if (!corpus_path.empty()) {
    std::ofstream out(corpus_path, std::ios::binary);
    out.write(corpus.data(), static_cast<std::streamsize>(corpus.size()));
    if (!out) {
      std::fprintf(stderr, "tokens_bench: cannot write %s\n", corpus_path.c_str());
      return 3;
    }
  }

  auto start = std::chrono::steady_clock::now();
  std::shared_ptr<const attractor::TokenCounter> counter;
  try {
    counter = attractor::token_counter_for(encoding);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tokens_bench: %s\n", e.what());
    return 3;
  }
  const double load_s = seconds_since(start);

  std::vector<attractor::TokenId> ids = counter->encode(corpus);  // warm-up
  double encode_s = 1e100, count_s = 1e100;
  for (int r = 0; r < runs; ++r) {
    start = std::chrono::steady_clock::now();
    ids = counter->encode(corpus);
    encode_s = std::min(encode_s, seconds_since(start));
  }
  std::size_t counted = 0;
  for (int r = 0; r < runs; ++r) {
    start = std::chrono::steady_clock::now();
    counted = counter->count(corpus);
    count_s = std::min(count_s, seconds_since(start));
  }
  // count_many over 64 KB snippets cut at line ends, all hardware threads. Cutting changes the
  // pieces at the cuts, so its total is checked against `count` of the same snippets.
  std::vector<std::string_view> snippets;
  for (std::size_t pos = 0; pos < corpus.size();) {
    std::size_t end = std::min(corpus.size(), pos + (64u << 10));
    const std::size_t newline = corpus.find('\n', end);
    end = newline == std::string::npos ? corpus.size() : newline + 1;
    snippets.push_back(std::string_view(corpus).substr(pos, end - pos));
    pos = end;
  }
  std::size_t snippets_serial = 0;
  for (auto snippet : snippets) snippets_serial += counter->count(snippet);
  double many_s = 1e100;
  std::size_t many_total = 0;
  for (int r = 0; r < runs; ++r) {
    start = std::chrono::steady_clock::now();
    const auto counts = counter->count_many(snippets);
    many_s = std::min(many_s, seconds_since(start));
    many_total = 0;
    for (std::size_t c : counts) many_total += c;
  }

  const double mb = corpus.size() / 1048576.0;
  std::printf(
      "impl=cpp encoding=%s bytes=%zu tokens=%zu load_s=%.3f encode_s=%.3f encode_tokens_per_s=%.0f "
      "encode_mb_per_s=%.2f count_s=%.3f count_tokens_per_s=%.0f\n",
      encoding.c_str(), corpus.size(), ids.size(), load_s, encode_s, ids.size() / encode_s, mb / encode_s, count_s,
      counted / count_s);
  std::printf("impl=cpp-count_many encoding=%s snippets=%zu threads=%u tokens=%zu seconds=%.3f tokens_per_s=%.0f\n",
              encoding.c_str(), snippets.size(), std::max(1u, std::thread::hardware_concurrency()), many_total, many_s,
              many_total / many_s);
  std::printf("impl=cpp encoding=%s peak_rss_kb=%ld ids_sha256=%s\n", encoding.c_str(), peak_rss_kb(),
              attractor::sha256_hex(join_ids(ids)).c_str());
  if (counted != ids.size() || many_total != snippets_serial) {
    std::fprintf(stderr, "tokens_bench: count (%zu) differs from encode (%zu) or count_many (%zu) from count (%zu)\n",
                 counted, ids.size(), many_total, snippets_serial);
    return 1;
  }
  return 0;
}
