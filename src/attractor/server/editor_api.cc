#include "attractor/server/editor_api.h"

#include <filesystem>

#include "attractor/authoring/dot_format.h"
#include "attractor/authoring/lsp_json.h"
#include "attractor/base/input_file.h"
#include "attractor/launch/render_dot.h"
#include "attractor/run/posix_run_disk.h"
#include "handlers/registry.h"

namespace attractor {

namespace {

namespace fs = std::filesystem;

ApiReply error_of(int status, const std::string& message) { return {status, {{"error", message}}}; }

bool is_name_part(const std::string& part) {
  if (part.empty() || part.front() == '.') return false;
  for (char c : part) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
              c == '.';
    if (!ok) return false;
  }
  return true;
}

/// The file `relative` names inside `graphs_dir` (which must exist), for reading or writing: a
/// relative `.dot` path of plain names, whose folder is inside the graphs directory once symbolic
/// links are resolved, and that is not itself a link. An error message otherwise.
std::variant<std::string, std::string> editor_path(const std::string& graphs_dir, const std::string& relative) {
  using Result = std::variant<std::string, std::string>;
  fs::path rel(relative);
  if (relative.empty() || rel.is_absolute() || rel.extension() != ".dot") {
    return Result(std::in_place_index<1>, "path must be a relative path to a .dot file in the graphs directory");
  }
  for (const auto& part : rel) {
    if (!is_name_part(part.string())) {
      return Result(std::in_place_index<1>, "path parts are letters, digits, '.', '_' and '-', not starting with '.'");
    }
  }
  std::error_code ec;
  const fs::path root = fs::canonical(graphs_dir, ec);
  if (ec) return Result(std::in_place_index<1>, "the graphs directory does not exist");
  const fs::path folder = fs::canonical(root / rel.parent_path(), ec);
  const std::string prefix = root.string() + "/";
  if (ec || (folder != root && folder.string().compare(0, prefix.size(), prefix) != 0)) {
    return Result(std::in_place_index<1>, "no folder '" + rel.parent_path().string() + "' in the graphs directory");
  }
  const fs::path file = folder / rel.filename();
  if (fs::is_symlink(fs::symlink_status(file, ec))) {
    return Result(std::in_place_index<1>, "'" + relative + "' is a symbolic link; the editor does not follow links");
  }
  return Result(std::in_place_index<0>, file.string());
}

}  // namespace

EditorApi::EditorApi(std::string graphs_dir, AuthoringCatalog catalog)
    : graphs_dir_(std::move(graphs_dir)), catalog_(std::move(catalog)) {
  if (!catalog_.handlers) catalog_.handlers = &builtin_handler_catalog();
}

std::optional<std::string> EditorApi::source(const nlohmann::json& body, ApiReply& error) const {
  if (!body.is_object() || !body.contains("dot") || !body["dot"].is_string()) {
    error = error_of(400, "the body must hold \"dot\": SOURCE");
    return std::nullopt;
  }
  std::string dot = body["dot"].get<std::string>();
  if (dot.size() > kMaxEditorSourceBytes) {
    error = error_of(413, "the source is " + std::to_string(dot.size()) + " bytes; the editor takes up to " +
                              std::to_string(kMaxEditorSourceBytes));
    return std::nullopt;
  }
  return dot;
}

ApiReply EditorApi::open(const std::string& path) const {
  auto found = editor_path(graphs_dir_, path);
  if (found.index() == 1) return error_of(400, std::get<1>(found));
  const std::string& file = std::get<0>(found);
  InputFile input = read_input_file(file, kDotFileRules);
  if (input.problem == InputFileProblem::kMissing)
    return error_of(404, "no graph '" + path + "' in the graphs directory");
  if (input.problem == InputFileProblem::kEmpty) return {200, {{"path", path}, {"dot", ""}}};
  if (!input.ok()) return error_of(400, input.message);
  if (input.text.size() > kMaxEditorSourceBytes) return error_of(413, "'" + path + "' is larger than the editor takes");
  return {200, {{"path", path}, {"dot", input.text}}};
}

ApiReply EditorApi::save(const nlohmann::json& body) const {
  ApiReply error;
  std::optional<std::string> dot = source(body, error);
  if (!dot) return error;
  if (!body.contains("path") || !body["path"].is_string())
    return error_of(400, "the body must hold \"path\": FILE.dot");
  const std::string path = body["path"].get<std::string>();
  auto found = editor_path(graphs_dir_, path);
  if (found.index() == 1) return error_of(400, std::get<1>(found));
  try {
    std::string_view parts[] = {*dot};
    posix_run_disk().write_file_atomic(std::get<0>(found), parts);
  } catch (const std::exception& e) {
    return error_of(500, e.what());
  }
  return {200, {{"path", path}, {"bytes", dot->size()}}};
}

ApiReply EditorApi::diagnostics(const nlohmann::json& body) const {
  ApiReply error;
  std::optional<std::string> dot = source(body, error);
  if (!dot) return error;
  PipelineDocument doc("pipeline.dot", std::move(*dot), catalog_);
  return {200, {{"diagnostics", lsp_diagnostics(doc, PositionEncoding::kUtf16, "pipeline.dot", true)}}};
}

ApiReply EditorApi::at_position(const nlohmann::json& body, PositionAnswer answer) const {
  ApiReply error;
  std::optional<std::string> dot = source(body, error);
  if (!dot) return error;
  PipelineDocument doc("pipeline.dot", std::move(*dot), catalog_);
  try {
    return {200, answer(doc, lsp_offset(doc, body, PositionEncoding::kUtf16), PositionEncoding::kUtf16)};
  } catch (const nlohmann::json::exception&) {
    return error_of(400, "the body must hold \"line\" and \"character\" (numbers)");
  }
}

ApiReply EditorApi::completion(const nlohmann::json& body) const { return at_position(body, lsp_completion); }

ApiReply EditorApi::hover(const nlohmann::json& body) const { return at_position(body, lsp_hover); }

ApiReply EditorApi::format(const nlohmann::json& body) const {
  ApiReply error;
  std::optional<std::string> dot = source(body, error);
  if (!dot) return error;
  FormatResult result = format_pipeline_text("pipeline.dot", *dot);
  if (!result.text)
    return {400, {{"error", "the pipeline does not parse"}, {"diagnostics", capped_diagnostics(result.diagnostics)}}};
  return {200, {{"dot", *result.text}}};
}

SvgResult EditorApi::preview(const nlohmann::json& body, GraphvizRenderer& renderer) const {
  SvgResult result;
  ApiReply error;
  std::optional<std::string> dot = source(body, error);
  if (!dot) {
    result.status = error.status;
    result.error = error.body["error"];
    return result;
  }
  LoadedPipeline loaded = load_pipeline_text("pipeline.dot", std::move(*dot), *catalog_.handlers);
  if (!loaded.graph) {
    result.status = 400;
    result.error = "the pipeline does not parse";
    return result;
  }
  if (loaded.graph->node_count() > kMaxDrawnNodes) {
    result.status = 422;
    result.error = "the pipeline has " + std::to_string(loaded.graph->node_count()) +
                   " nodes; the preview draws pipelines of up to " + std::to_string(kMaxDrawnNodes);
    return result;
  }
  RenderResult rendered = renderer.render(render_dot(*loaded.graph, *catalog_.handlers), "svg");
  result.ok = rendered.ok;
  result.svg = std::move(rendered.image);
  result.error = rendered.error;
  return result;
}

}  // namespace attractor
