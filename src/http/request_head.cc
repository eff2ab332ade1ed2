#include "http/request_head.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "attractor/base/ascii.h"

namespace attractor {

namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

HeadScan refused(int status, std::string reason) {
  HeadScan scan;
  scan.state = HeadScan::State::kRefused;
  scan.status = status;
  scan.reason = std::move(reason);
  return scan;
}

/// The lines of `head` (without its final blank line), split at "\r\n" or "\n".
std::vector<std::string_view> split_lines(std::string_view head) {
  std::vector<std::string_view> lines;
  while (!head.empty()) {
    std::size_t end = head.find('\n');
    std::string_view line = head.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty()) lines.push_back(line);
    if (end == std::string_view::npos) break;
    head.remove_prefix(end + 1);
  }
  return lines;
}

/// True for "METHOD SP TARGET SP HTTP/1.x".
bool is_request_line(std::string_view line, std::string& method) {
  const std::size_t first = line.find(' ');
  const std::size_t last = line.rfind(' ');
  if (first == std::string_view::npos || first == 0 || last == first) return false;
  method = std::string(line.substr(0, first));
  if (!std::all_of(method.begin(), method.end(), [](unsigned char c) { return std::isupper(c); })) return false;
  const std::string_view version = line.substr(last + 1);
  return version == "HTTP/1.1" || version == "HTTP/1.0";
}

/// The end of the head (after its blank line) in `buffer`, or npos.
std::size_t head_end(std::string_view buffer) {
  const std::size_t crlf = buffer.find("\r\n\r\n");
  const std::size_t lf = buffer.find("\n\n");
  std::size_t end = std::string_view::npos;
  if (crlf != std::string_view::npos) end = crlf + 4;
  if (lf != std::string_view::npos) end = std::min(end, lf + 2);
  return end;
}

}  // namespace

HeadScan scan_request_head(std::string_view buffer, const HeadLimits& limits) {
  const std::size_t end = head_end(buffer.substr(0, limits.max_head_bytes + 4));
  if (end == std::string_view::npos || end > limits.max_head_bytes) {
    if (buffer.size() <= limits.max_head_bytes) return {};
    return refused(431,
                   "the request line and headers are larger than " + std::to_string(limits.max_head_bytes) + " bytes");
  }
  std::vector<std::string_view> lines = split_lines(buffer.substr(0, end));
  std::string method;
  if (lines.empty() || !is_request_line(lines[0], method)) {
    return refused(400, "the request line is not 'METHOD TARGET HTTP/1.1'");
  }
  HeadScan scan;
  scan.state = HeadScan::State::kComplete;
  scan.head_bytes = end;
  scan.head = std::string(lines[0]) + "\r\n";
  bool has_length = false;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const std::size_t colon = lines[i].find(':');
    if (colon == std::string_view::npos || colon == 0 || lines[i].front() == ' ' || lines[i].front() == '\t') {
      return refused(400, "a header line is not 'Name: value'");
    }
    const std::string name = ascii_lower(trim(lines[i].substr(0, colon)));
    const std::string_view value = trim(lines[i].substr(colon + 1));
    if (name == "transfer-encoding") {
      return refused(411, "send the request body with a Content-Length (chunked bodies are not accepted)");
    }
    if (name == "expect") {
      if (ascii_lower(value) != "100-continue") return refused(417, "only 'Expect: 100-continue' is understood");
      scan.expect_continue = true;
      continue;
    }
    if (name == "content-length") {
      if (value.empty() || value.size() > 18 ||
          !std::all_of(value.begin(), value.end(), [](unsigned char c) { return std::isdigit(c); })) {
        return refused(400, "the Content-Length is not a number");
      }
      const std::size_t length = std::stoull(std::string(value));
      if (has_length && length != scan.body_bytes) return refused(400, "the request has two different Content-Lengths");
      has_length = true;
      scan.body_bytes = length;
    }
    scan.head += std::string(lines[i]) + "\r\n";
  }
  if (scan.body_bytes > limits.max_body_bytes) {
    return refused(413, "the request body is " + std::to_string(scan.body_bytes) + " bytes; the limit is " +
                            std::to_string(limits.max_body_bytes));
  }
  if (!has_length && (method == "POST" || method == "PUT" || method == "PATCH")) scan.head += "Content-Length: 0\r\n";
  if (!has_length) scan.expect_continue = false;
  scan.head += "\r\n";
  return scan;
}

const char* door_reason_phrase(int status) {
  switch (status) {
    case 400: return "Bad Request";
    case 408: return "Request Timeout";
    case 411: return "Length Required";
    case 413: return "Payload Too Large";
    case 417: return "Expectation Failed";
    case 431: return "Request Header Fields Too Large";
    case 503: return "Service Unavailable";
    default: return "Error";
  }
}

std::string door_response(int status, const std::string& reason) {
  std::string escaped;
  for (char c : reason) {
    if (c == '"' || c == '\\') escaped += '\\';
    escaped += c;
  }
  const std::string body = "{\"error\":\"" + escaped + "\"}\n";
  return "HTTP/1.1 " + std::to_string(status) + " " + door_reason_phrase(status) +
         "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\nConnection: close\r\nX-Content-Type-Options: nosniff\r\n\r\n" + body;
}

}  // namespace attractor
