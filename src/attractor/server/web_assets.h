#pragma once
/// \file
/// The web page's files (src/attractor/server/web/), linked into the binary so `attractor serve`
/// needs nothing beside it. With ATTRACTOR_WEB_DIR set they are read from that folder instead,
/// for working on the page without rebuilding.

#include <optional>
#include <string>
#include <string_view>

namespace attractor {

struct WebAsset {
  std::string body;
  std::string content_type;
};

/// The asset called `name` ("index.html", "app.js", "app.css", "editor.js"), or nullopt.
std::optional<WebAsset> web_asset(std::string_view name);

/// The editor's CodeMirror module `name` ("codemirror-view.js", ...), served at /vendor/NAME, or
/// nullopt. Always the embedded copy.
std::optional<WebAsset> web_vendor_asset(std::string_view name);

}  // namespace attractor
