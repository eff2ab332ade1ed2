#include "attractor/handler_types.h"

#include <algorithm>
#include <mutex>
#include <set>

namespace attractor {
namespace {

std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}

std::set<std::string, std::less<>>& registry() {
  static std::set<std::string, std::less<>> types = {
      "start", "exit", "codergen", "wait.human", "conditional", "parallel", "parallel.fan_in", "tool",
      "stack.manager_loop", "search_nodes", "expand_dependency_tree", "fetch_node_texts",
      "manage_context_budget", "render_context_blocks", "loop_guard", "set_variables", "send_message"};
  return types;
}

}  // namespace

bool is_known_handler_type(std::string_view type) {
  std::lock_guard lock(registry_mutex());
  return registry().count(type) > 0;
}

void register_known_handler_type(std::string type) {
  std::lock_guard lock(registry_mutex());
  registry().insert(std::move(type));
}

std::vector<std::string> known_handler_types() {
  std::lock_guard lock(registry_mutex());
  return {registry().begin(), registry().end()};
}

}  // namespace attractor
