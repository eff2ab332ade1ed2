#include "attractor/workspace/git_module.h"

namespace attractor {

namespace fs = std::filesystem;

const ModuleSpec& GitModule::spec() {
  static const ModuleSpec spec{
      "git module",
      "a git module",
      kGitModuleFileName,
      kGitModuleEntryName,
      "build the attractor_git_module target next to the attractor binary (make binary), or install attractor "
      "with `make install` / `cmake --install`, which puts it in PREFIX/lib/attractor/",
      kGitModuleAbiVersion,
      git_module_layout()};
  return spec;
}

const GitModule& GitModule::get() {
  static const GitModule module = load(module_candidates_of_this_process(spec()));
  return module;
}

GitModule GitModule::load(const std::vector<fs::path>& candidates) {
  LoadedModule loaded = load_module(candidates, spec());
  return GitModule(std::move(loaded.path), reinterpret_cast<const GitModuleTable*>(loaded.header));
}

}  // namespace attractor
