#include "attractor/server/web_assets.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "attractor/base/incbin.h"

ATTRACTOR_INCBIN(attractor_web_index_html, ATTRACTOR_WEB_DIR_PATH "/index.html")
ATTRACTOR_INCBIN(attractor_web_app_js, ATTRACTOR_WEB_DIR_PATH "/app.js")
ATTRACTOR_INCBIN(attractor_web_app_css, ATTRACTOR_WEB_DIR_PATH "/app.css")
ATTRACTOR_INCBIN(attractor_web_editor_js, ATTRACTOR_WEB_DIR_PATH "/editor.js")

// The CodeMirror modules tools/web_vendor.py prepared (src/attractor/server/CMakeLists.txt).
#define ATTRACTOR_WEB_VENDOR(id, name, path) ATTRACTOR_INCBIN(attractor_vendor_##id, path)
#include ATTRACTOR_WEB_VENDOR_INC
#undef ATTRACTOR_WEB_VENDOR

namespace attractor {

namespace {

struct Embedded {
  std::string_view name;
  const char* begin;
  const char* end;
  std::string_view content_type;
};

const Embedded kAssets[] = {
    {"index.html", attractor_web_index_html_begin, attractor_web_index_html_end, "text/html; charset=utf-8"},
    {"app.js", attractor_web_app_js_begin, attractor_web_app_js_end, "text/javascript; charset=utf-8"},
    {"app.css", attractor_web_app_css_begin, attractor_web_app_css_end, "text/css; charset=utf-8"},
    {"editor.js", attractor_web_editor_js_begin, attractor_web_editor_js_end, "text/javascript; charset=utf-8"},
};

const Embedded kVendor[] = {
#define ATTRACTOR_WEB_VENDOR(id, name, path) \
  {name, attractor_vendor_##id##_begin, attractor_vendor_##id##_end, "text/javascript; charset=utf-8"},
#include ATTRACTOR_WEB_VENDOR_INC
#undef ATTRACTOR_WEB_VENDOR
};

}  // namespace

std::optional<WebAsset> web_asset(std::string_view name) {
  for (const Embedded& a : kAssets) {
    if (a.name != name) continue;
    if (const char* dir = std::getenv("ATTRACTOR_WEB_DIR"); dir && *dir) {
      std::ifstream in(std::string(dir) + "/" + std::string(a.name), std::ios::binary);
      std::ostringstream text;
      text << in.rdbuf();
      return WebAsset{text.str(), std::string(a.content_type)};
    }
    return WebAsset{std::string(a.begin, static_cast<std::size_t>(a.end - a.begin)), std::string(a.content_type)};
  }
  return std::nullopt;
}

std::optional<WebAsset> web_vendor_asset(std::string_view name) {
  for (const Embedded& a : kVendor) {
    if (a.name == name) {
      return WebAsset{std::string(a.begin, static_cast<std::size_t>(a.end - a.begin)), std::string(a.content_type)};
    }
  }
  return std::nullopt;
}

}  // namespace attractor
