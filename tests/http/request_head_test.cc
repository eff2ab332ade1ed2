// The door's first look at a request (http/request_head.h): where the head ends, the body's length,
// the head handed on, and each refusal with its status.

#include "http/request_head.h"

#include <gtest/gtest.h>

namespace attractor {
namespace {

TEST(RequestHeadTest, AHeadIsCompleteAtItsBlankLine) {
  EXPECT_EQ(scan_request_head("GET / HTTP/1.1\r\nHost: a", {}).state, HeadScan::State::kIncomplete);
  HeadScan scan = scan_request_head("GET /health HTTP/1.1\r\nHost: a:1\r\n\r\nGET /next", {});
  ASSERT_EQ(scan.state, HeadScan::State::kComplete);
  EXPECT_EQ(scan.head_bytes, 35u);
  EXPECT_EQ(scan.body_bytes, 0u);
  EXPECT_EQ(scan.head, "GET /health HTTP/1.1\r\nHost: a:1\r\n\r\n");
}

TEST(RequestHeadTest, APostWithoutALengthGetsAnEmptyBodyAndExpectIsAnsweredHere) {
  HeadScan bare = scan_request_head("POST /validate HTTP/1.1\r\nHost: a\r\n\r\n", {});
  ASSERT_EQ(bare.state, HeadScan::State::kComplete);
  EXPECT_EQ(bare.head, "POST /validate HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n");
  HeadScan expect = scan_request_head("POST /v HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 7\r\n\r\n", {});
  ASSERT_EQ(expect.state, HeadScan::State::kComplete);
  EXPECT_TRUE(expect.expect_continue);
  EXPECT_EQ(expect.body_bytes, 7u);
  EXPECT_EQ(expect.head, "POST /v HTTP/1.1\r\nContent-Length: 7\r\n\r\n");
}

TEST(RequestHeadTest, RefusalsCarryTheirStatus) {
  auto status = [](const std::string& text) { return scan_request_head(text, {64, 100}).status; };
  EXPECT_EQ(status("GET / HTTP/1.1\r\nX: " + std::string(100, 'x')), 431) << "an unfinished head over the limit";
  EXPECT_EQ(status("GET / HTTP/1.1\r\nX: " + std::string(100, 'x') + "\r\n\r\n"), 431);
  EXPECT_EQ(status("POST / HTTP/1.1\r\nContent-Length: 101\r\n\r\n"), 413);
  EXPECT_EQ(status("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"), 411);
  EXPECT_EQ(status("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"), 400);
  EXPECT_EQ(status("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n"), 400);
  EXPECT_EQ(status("hello\r\n\r\n"), 400);
  EXPECT_EQ(status("GET / HTTP/2\r\n\r\n"), 400);
  EXPECT_EQ(status("GET / HTTP/1.1\r\nno colon\r\n\r\n"), 400);
  EXPECT_EQ(status("GET / HTTP/1.1\r\nExpect: magic\r\n\r\n"), 417);
}

TEST(RequestHeadTest, TheDoorsAnswerIsAWholeJsonResponse) {
  EXPECT_EQ(door_response(431, "too \"big\""),
            "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: application/json\r\nContent-Length: 24\r\n"
            "Connection: close\r\nX-Content-Type-Options: nosniff\r\n\r\n{\"error\":\"too \\\"big\\\"\"}\n");
}

}  // namespace
}  // namespace attractor
