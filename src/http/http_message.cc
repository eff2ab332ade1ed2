#include "http/http_message.h"

#include <algorithm>
#include <cctype>

namespace attractor {

std::string lower_ascii(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::string HttpResponse::header(const std::string& name) const {
  auto it = headers.find(lower_ascii(name));
  return it == headers.end() ? std::string() : it->second;
}

std::pair<std::string, std::string> split_url(const std::string& url) {
  auto scheme = url.find("://");
  std::size_t start = scheme == std::string::npos ? 0 : scheme + 3;
  auto slash = url.find('/', start);
  if (slash == std::string::npos) return {url, ""};
  std::string path = url.substr(slash);
  while (!path.empty() && path.back() == '/') path.pop_back();
  return {url.substr(0, slash), path};
}

}  // namespace attractor
