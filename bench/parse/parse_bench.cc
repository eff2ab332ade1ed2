// Parse + transform + validate throughput on generated pipelines of 1k, 10k and 100k nodes, next to
// Graphviz's own parser (`gc`, which parses the file and counts nodes and edges) on the same files,
// in the same run. Reports in-process numbers and whole-process wall time and peak memory of
// `attractor validate FILE` (parse + transforms + lint) and `gc FILE`, and their ratios.
//
// usage: parse_bench [--sizes 1000,10000,100000] [--repeat N] [--dir DIR] [--binary ATTRACTOR] [--memory 1]
//   --binary  the attractor executable to time (default: the one built with this bench), e.g. a
//             build of an older commit, to compare before and after on the same files
//   --memory  instead of timing, print the heap bytes in use (mallinfo2) after each step of
//             `attractor validate` in this process: where the memory of a large pipeline goes

#include <sys/resource.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <malloc.h>
#include <spawn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "attractor/check/lint.h"
#include "attractor/check/pipeline_loader.h"
#include "attractor/check/transforms.h"
#include "handlers/registry.h"
#include "parser/dot_parser.h"
#include "graph_generator.h"

extern char** environ;

namespace {

using Clock = std::chrono::steady_clock;

struct ProcessRun {
  double seconds = 0;
  long peak_kb = 0;
  int exit_code = -1;
};

/// Runs a command under GNU time (`/usr/bin/time -f %M`), so the peak RSS is the command's own:
/// a child spawned straight from this large process would inherit its high-water mark.
ProcessRun run_process(std::vector<std::string> command) {
  static int counter = 0;
  std::string rss_file = "/tmp/attractor-bench-rss-" + std::to_string(getpid()) + "-" + std::to_string(++counter);
  std::vector<std::string> args = {"/usr/bin/time", "-f", "%M", "-o", rss_file};
  args.insert(args.end(), command.begin(), command.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid;
  ProcessRun run;
  auto start = Clock::now();
  int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return run;
  int status = 0;
  waitpid(pid, &status, 0);
  run.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(rss_file);
  std::string last, line;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  run.peak_kb = std::atol(last.c_str());
  std::filesystem::remove(rss_file);
  return run;
}

ProcessRun best_of(int repeat, const std::vector<std::string>& args) {
  ProcessRun best;
  best.seconds = 1e30;
  for (int i = 0; i < repeat; ++i) {
    ProcessRun r = run_process(args);
    if (r.seconds < best.seconds) best = r;
  }
  return best;
}

std::vector<std::size_t> parse_sizes(const std::string& text) {
  std::vector<std::size_t> out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    out.push_back(std::stoul(text.substr(start, comma - start)));
    start = comma + 1;
  }
  return out;
}

/// Bytes the allocator has handed out and not taken back: heap chunks plus mmapped blocks.
std::size_t bytes_in_use() {
  struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
}

/// --memory: what each step of `attractor validate` adds to the bytes in use, for one file.
void print_memory_steps(std::size_t nodes, const std::string& path, const std::string& text) {
  auto mb = [](std::size_t from, std::size_t to) {
    return (static_cast<double>(to) - static_cast<double>(from)) / 1e6;
  };
  std::size_t start = bytes_in_use();
  auto source = std::make_shared<const attractor::SourceFile>(path, text);
  std::size_t read = bytes_in_use();
  auto parsed = attractor::parse_dot(source);
  std::size_t parse = bytes_in_use();
  std::vector<attractor::Diagnostic> diagnostics;
  attractor::apply_transforms(*parsed.graph, diagnostics);
  std::size_t transform = bytes_in_use();
  auto lint = attractor::validate(*parsed.graph, attractor::builtin_handler_catalog());
  std::size_t checked = bytes_in_use();
  std::size_t attributes = parsed.graph->data().attrs.size();
  for (attractor::Vertex v : parsed.graph->nodes()) attributes += parsed.graph->node(v).attrs.size();
  for (const attractor::Edge& e : parsed.graph->edges()) attributes += parsed.graph->edge(e).attrs.size();
  std::printf("%-8zu %10zu | %9.1f %9.1f %9.1f %9.1f | %9.1f\n", nodes, attributes, mb(start, read), mb(read, parse),
              mb(parse, transform), mb(transform, checked), mb(start, checked));
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::size_t> sizes = {1000, 10000, 100000};
  int repeat = 5;
  std::string dir = "/tmp/attractor-bench-parse";
  std::string binary = ATTRACTOR_BINARY;
  bool memory = false;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--sizes") sizes = parse_sizes(argv[i + 1]);
    else if (flag == "--repeat") repeat = std::max(1, std::atoi(argv[i + 1]));
    else if (flag == "--dir") dir = argv[i + 1];
    else if (flag == "--binary") binary = argv[i + 1];
    else if (flag == "--memory") memory = std::atoi(argv[i + 1]) != 0;
  }
  std::filesystem::create_directories(dir);
  if (memory) {
    std::printf("heap MB in use added by each step (mallinfo2)\n%-8s %10s | %9s %9s %9s %9s | %9s\n", "nodes",
                "attributes", "text", "parse", "xform", "lint", "total");
    for (std::size_t n : sizes) {
      std::string text = attractor::bench::generate_pipeline(n);
      print_memory_steps(n, dir + "/pipeline_" + std::to_string(n) + ".dot", text);
    }
    return 0;
  }

  std::printf("binary: %s\n", binary.c_str());
  std::printf("%-8s %9s %8s | %8s %8s %8s %10s %7s %9s | %12s %8s | %8s %8s | %7s %7s\n", "nodes", "bytes", "edges",
              "parse ms", "xform ms", "lint ms", "in-proc ms", "MB/s", "nodes/s", "attractor ms", "peak MB", "gc ms",
              "peak MB", "time x", "mem x");
  for (std::size_t n : sizes) {
    std::string text = attractor::bench::generate_pipeline(n);
    std::string path = dir + "/pipeline_" + std::to_string(n) + ".dot";
    std::ofstream(path, std::ios::binary) << text;

    double best = 1e30, best_parse = 1e30, best_xform = 1e30, best_lint = 1e30;
    std::size_t edges = 0;
    for (int i = 0; i < repeat; ++i) {
      auto t0 = Clock::now();
      auto parsed = attractor::parse_dot(std::make_shared<const attractor::SourceFile>(path, text));
      auto t1 = Clock::now();
      std::vector<attractor::Diagnostic> diagnostics;
      attractor::apply_transforms(*parsed.graph, diagnostics);
      auto t2 = Clock::now();
      auto lint = attractor::validate(*parsed.graph, attractor::builtin_handler_catalog());
      auto t3 = Clock::now();
      best_parse = std::min(best_parse, std::chrono::duration<double>(t1 - t0).count());
      best_xform = std::min(best_xform, std::chrono::duration<double>(t2 - t1).count());
      best_lint = std::min(best_lint, std::chrono::duration<double>(t3 - t2).count());
    }
    for (int i = 0; i < repeat; ++i) {
      auto start = Clock::now();
      attractor::LoadedPipeline loaded = attractor::load_pipeline_text(path, text,
                                                                       attractor::builtin_handler_catalog());
      double s = std::chrono::duration<double>(Clock::now() - start).count();
      if (!loaded.ok()) {
        std::fprintf(stderr, "generated pipeline %s does not validate\n", path.c_str());
        return 1;
      }
      edges = loaded.graph->edge_count();
      best = std::min(best, s);
    }
    ProcessRun ours = best_of(repeat, {binary, "validate", path});
    ProcessRun gc = best_of(repeat, {"gc", path});
    if (ours.exit_code != 0) std::fprintf(stderr, "attractor validate exited %d\n", ours.exit_code);
    if (gc.exit_code != 0) std::fprintf(stderr, "gc exited %d (is graphviz installed?)\n", gc.exit_code);
    double mb = static_cast<double>(text.size()) / 1e6;
    // Ratios are attractor / gc: below 1 attractor is faster or smaller.
    std::printf("%-8zu %9zu %8zu | %8.2f %8.2f %8.2f %10.2f %7.1f %9.0f | %12.2f %8.1f | %8.2f %8.1f | %7.2f %7.2f\n",
                n, text.size(), edges, best_parse * 1e3, best_xform * 1e3, best_lint * 1e3, best * 1e3, mb / best,
                static_cast<double>(n) / best, ours.seconds * 1e3, ours.peak_kb / 1024.0, gc.seconds * 1e3,
                gc.peak_kb / 1024.0, ours.seconds / gc.seconds,
                static_cast<double>(ours.peak_kb) / static_cast<double>(std::max(1L, gc.peak_kb)));
  }
  return 0;
}
