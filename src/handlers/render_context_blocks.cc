#include "handlers/render_context_blocks.h"

#include <algorithm>
#include <functional>
#include <map>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "handlers/companion_support.h"

namespace attractor {

namespace {

constexpr const char* kRenderContextBlocksType = "render_context_blocks";
constexpr int kMaxLevel = 2;  // three levels: 0, 1, 2

struct Item {
  std::string id;
  std::string text;
  std::string path;
  std::string language;
  std::string parent;
};

std::string optional_string(const nlohmann::json& item, const char* key) {
  auto it = item.find(key);
  return it != item.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::vector<Item> read_items(const nlohmann::json& node_texts) {
  if (node_texts.is_null()) return {};
  if (!node_texts.is_array()) throw std::invalid_argument("node_texts must be a list, got " + node_texts.dump());
  std::vector<Item> items;
  for (std::size_t i = 0; i < node_texts.size(); ++i) {
    const nlohmann::json& j = node_texts[i];
    if (!j.is_object()) throw std::invalid_argument(fmt::format("node_texts[{}] must be an object", i));
    Item item;
    item.id = optional_string(j, "id");
    if (item.id.empty()) item.id = optional_string(j, "node_id");
    if (item.id.empty()) throw std::invalid_argument(fmt::format("node_texts[{}] has no string id/node_id", i));
    auto text = j.find("text");
    if (text == j.end() || !text->is_string()) {
      throw std::invalid_argument(fmt::format("node_texts[{}] ({}) has no string text", i, item.id));
    }
    item.text = text->get<std::string>();
    item.path = optional_string(j, "path");
    item.language = optional_string(j, "language");
    item.parent = optional_string(j, "parent_id");
    items.push_back(std::move(item));
  }
  return items;
}

std::string indent_lines(const std::string& text, const std::string& indent) {
  std::string out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (!out.empty() || start > 0) out += '\n';
    if (!line.empty()) out += indent + line;
    if (end == text.size()) break;
    start = end + 1;
  }
  return out;
}

std::string flat_block(const Item& item) {
  std::string block = "--- " + item.id + " ---\n";
  if (!item.path.empty()) block += "path: " + item.path + "\n";
  if (!item.language.empty()) block += "language: " + item.language + "\n";
  return block + item.text;
}

std::string tree_block(const Item& item, int level) {
  std::string indent(static_cast<std::size_t>(2 * level), ' ');
  std::string block = indent + "- " + item.id;
  if (!item.path.empty()) block += " (" + item.path + ")";
  if (!item.text.empty()) block += "\n" + indent_lines(item.text, indent + "  ");
  return block;
}

}  // namespace

nlohmann::json render_context_blocks(const nlohmann::json& node_texts, const std::string& layout) {
  std::vector<Item> items = read_items(node_texts);
  nlohmann::json blocks = nlohmann::json::array();
  if (layout == "flat") {
    for (const Item& item : items) blocks.push_back(flat_block(item));
    return blocks;
  }
  std::map<std::string, std::size_t> first_index;
  for (std::size_t i = 0; i < items.size(); ++i) first_index.emplace(items[i].id, i);
  std::vector<std::vector<std::size_t>> children(items.size());
  std::vector<bool> is_root(items.size(), true);
  for (std::size_t i = 0; i < items.size(); ++i) {
    auto parent = first_index.find(items[i].parent);
    if (items[i].parent.empty() || parent == first_index.end() || parent->second == i) continue;
    children[parent->second].push_back(i);
    is_root[i] = false;
  }
  std::vector<bool> shown(items.size(), false);
  std::function<void(std::size_t, int)> visit = [&](std::size_t i, int level) {
    if (shown[i]) return;
    shown[i] = true;
    blocks.push_back(tree_block(items[i], level));
    for (std::size_t c : children[i]) visit(c, std::min(level + 1, kMaxLevel));
  };
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (is_root[i]) visit(i, 0);
  }
  for (std::size_t i = 0; i < items.size(); ++i) visit(i, 0);  // parent cycles: show the rest as roots
  return blocks;
}

Outcome RenderContextBlocksHandler::execute(const NodeData& node, Context& context, const Graph& graph,
                                            const StageEnv&) {
  std::string layout = node.get("layout", "flat");
  if (layout != "flat" && layout != "tree") {
    throw_step_error(node, kRenderContextBlocksType, "layout", "'" + layout + "' is not one of flat | tree");
  }
  std::string next = route_attribute(node, graph, kRenderContextBlocksType, "next", false);
  nlohmann::json blocks;
  try {
    blocks = render_context_blocks(context.get("node_texts").value_or(nlohmann::json()), layout);
  } catch (const std::invalid_argument& e) {
    throw_step_error(node, kRenderContextBlocksType, "node_texts", e.what());
  }
  nlohmann::json existing = context.get("context_blocks").value_or(nlohmann::json::array());
  if (!existing.is_array())
    throw_step_error(node, kRenderContextBlocksType, "context_blocks", "must be a list of strings");
  std::size_t added = blocks.size();
  for (nlohmann::json& b : blocks) existing.push_back(std::move(b));
  Outcome o = routed_success(fmt::format("rendered {} context block(s) ({})", added, layout), next);
  o.context_updates["context_blocks"] = std::move(existing);
  return o;
}

const HandlerDescription& render_context_blocks_description() {
  static const HandlerDescription description = [] {
    HandlerDescription d;
    d.type = "render_context_blocks";
    d.shapes = {};
    d.summary = "Appends the fetched node_texts to context_blocks as LLM-ready text, flat or as a tree.";
    d.attributes = {
        {"layout",
         AttributeType::kEnum,
         "flat",
         "flat renders each node text with its id, path and language; tree indents node texts under their "
         "parents (parent_id), at most 3 levels.",
         {"flat", "tree"}},
        {"next", AttributeType::kNodeId, "",
         "Node to continue at (a suggested next id; an outgoing edge to it must exist)."},
    };
    return d;
  }();
  return description;
}

}  // namespace attractor
