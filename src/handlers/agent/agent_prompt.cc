#include "handlers/agent/agent_prompt.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace attractor {

namespace {

namespace fs = std::filesystem;

const char* kSharedInstructions =
    "You are a coding agent working inside a pipeline stage. You act on the repository in your working "
    "directory through the tools you are given; you cannot reach anything outside it.\n"
    "- Read the files involved before changing them, and keep changes small and focused on the task.\n"
    "- After changing code, run the project's tests or build with the shell tool and fix what fails.\n"
    "- When a tool reports an error, read it and correct the call instead of repeating it.\n"
    "- Finish with a short summary of what you changed and how you checked it. To report the stage's outcome "
    "explicitly, end your last message with a JSON object on its own line, e.g. "
    "{\"outcome\": \"success\", \"preferred_label\": \"Approve\", \"notes\": \"...\"}; outcome is success, "
    "partial_success, retry or fail.\n";

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

std::string agent_base_instructions(const std::string& profile) {
  std::string out = kSharedInstructions;
  if (profile == "openai") {
    out +=
        "- Edit files with apply_patch: one patch may add, delete, update and move files. Each update hunk starts "
        "with \"@@ \" and a line near the change, then context lines (prefix space), removed lines (prefix -) "
        "and added lines (prefix +), about three lines of context around each change. Use write_file only "
        "for new files.\n";
  } else {
    out +=
        "- Edit files with edit_file: old_string must match the file exactly, including indentation, and be "
        "unique in it; include surrounding lines to make it unique, or set replace_all. Prefer editing over "
        "rewriting whole files with write_file.\n";
  }
  return out;
}

std::string agent_environment_block(ExecutionEnvironment& env, const std::string& model, const std::string& date) {
  ExecResult inside = env.exec_command("git rev-parse --is-inside-work-tree", 5000);
  const bool git = inside.exit_code == 0 && trimmed(inside.stdout_text) == "true";
  std::string block = "<environment>\nWorking directory: " + env.working_directory() +
                      "\nIs git repository: " + (git ? "true" : "false") + "\n";
  if (git) {
    block += "Git branch: " + trimmed(env.exec_command("git rev-parse --abbrev-ref HEAD", 5000).stdout_text) + "\n";
    const std::string status = env.exec_command("git status --porcelain", 5000).stdout_text;
    const auto changed = std::count(status.begin(), status.end(), '\n');
    block += "Changed or untracked files: " + std::to_string(changed) + "\n";
    const std::string log = trimmed(env.exec_command("git log --oneline -5", 5000).stdout_text);
    if (!log.empty()) block += "Recent commits:\n" + log + "\n";
  }
  block += "Platform: " + env.platform() + "\nOS version: " + first_line(env.os_version()) + "\nToday's date: " + date +
           "\nModel: " + model + "\n</environment>\n";
  return block;
}

std::string agent_project_instructions(const std::string& working_dir, const std::string& git_root,
                                       const std::string& profile, std::size_t budget_bytes) {
  const fs::path work = fs::weakly_canonical(working_dir);
  const fs::path top = git_root.empty() ? work : fs::weakly_canonical(git_root);
  std::vector<fs::path> dirs = {work};
  for (fs::path d = work; d != top && d.has_parent_path() && d.parent_path() != d;) {
    d = d.parent_path();
    dirs.insert(dirs.begin(), d);
  }
  std::vector<std::string> names = {"AGENTS.md"};
  names.push_back(profile == "anthropic" ? "CLAUDE.md" : ".codex/instructions.md");
  std::string out;
  for (const fs::path& d : dirs) {
    for (const std::string& n : names) {
      const fs::path f = d / n;
      if (!fs::is_regular_file(f)) continue;
      out += "## " + f.lexically_relative(top).generic_string() + "\n" + read_text(f) + "\n";
    }
  }
  if (out.size() > budget_bytes) out = out.substr(0, budget_bytes) + "\n[Project instructions truncated at 32KB]\n";
  return out;
}

std::string agent_system_prompt(const std::string& profile, ExecutionEnvironment& env, const std::string& model,
                                const std::string& date, const std::string& extra) {
  std::string prompt = agent_base_instructions(profile) + "\n" + agent_environment_block(env, model, date);
  ExecResult top = env.exec_command("git rev-parse --show-toplevel", 5000);
  const std::string root = top.exit_code == 0 ? trimmed(top.stdout_text) : "";
  if (std::string docs = agent_project_instructions(env.working_directory(), root, profile); !docs.empty()) {
    prompt += "\n# Project instructions\n" + docs;
  }
  if (!extra.empty()) prompt += "\n# Pipeline instructions\n" + extra + "\n";
  return prompt;
}

}  // namespace attractor
