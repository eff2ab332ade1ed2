#include "attractor/base/log.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>

namespace attractor {
namespace {

namespace fs = std::filesystem;

/// The lines of `path` without their timestamps (`[info] message`).
std::vector<std::string> messages(const fs::path& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line.substr(line.find(' ') + 1));
  return out;
}

/// A log file in a fresh directory; restores the console level afterwards.
class LogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("attractor-log-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    saved_ = log_level();
  }
  void TearDown() override {
    set_log_level(saved_);
    fs::remove_all(dir_);
  }
  fs::path dir_;
  spdlog::level::level_enum saved_ = spdlog::level::warn;
  std::ostringstream out_;
};

TEST_F(LogTest, ParsesTheDocumentedLevelNames) {
  EXPECT_EQ(parse_log_level("trace"), spdlog::level::trace);
  EXPECT_EQ(parse_log_level("debug"), spdlog::level::debug);
  EXPECT_EQ(parse_log_level("info"), spdlog::level::info);
  EXPECT_EQ(parse_log_level("warn"), spdlog::level::warn);
  EXPECT_EQ(parse_log_level("error"), spdlog::level::err);
  EXPECT_EQ(parse_log_level("off"), spdlog::level::off);
  EXPECT_EQ(parse_log_level("warning"), std::nullopt);
  EXPECT_EQ(parse_log_level("INFO"), std::nullopt);
  EXPECT_EQ(parse_log_level(""), std::nullopt);
  EXPECT_EQ(log_level_names().size(), 6u);
}

TEST_F(LogTest, DefaultConsoleLevelIsWarn) { EXPECT_EQ(saved_, spdlog::level::warn); }

TEST_F(LogTest, AFileGetsInfoAndUpWhateverTheConsoleLevel) {
  set_log_level(spdlog::level::off);
  {
    LogFile file((dir_ / "run.log").string());
    ASSERT_TRUE(file.attached());
    log().debug("not in the file");
    log().info("stage a started");
    log().warn("a warning");
  }
  log().info("after the file is detached");
  EXPECT_EQ(messages(dir_ / "run.log"), (std::vector<std::string>{"[info] stage a started", "[warning] a warning"}));
}

TEST_F(LogTest, AFileFollowsAConsoleLevelBelowInfo) {
  set_log_level(spdlog::level::debug);
  {
    LogFile file((dir_ / "run.log").string());
    log().trace("too detailed");
    log().debug("details");
  }
  EXPECT_EQ(messages(dir_ / "run.log"), (std::vector<std::string>{"[debug] details"}));
}

TEST_F(LogTest, AFileIsAppendedTo) {
  {
    LogFile first((dir_ / "run.log").string());
    log().info("one");
  }
  {
    LogFile second((dir_ / "run.log").string());
    log().info("two");
  }
  EXPECT_EQ(messages(dir_ / "run.log"), (std::vector<std::string>{"[info] one", "[info] two"}));
}

TEST_F(LogTest, AFileThatCannotBeOpenedIsSkipped) {
  set_log_level(spdlog::level::off);
  std::ofstream((dir_ / "plain").string()) << "x";
  LogFile file((dir_ / "plain" / "run.log").string());
  EXPECT_FALSE(file.attached());
  log().error("logging still works");
}

TEST_F(LogTest, LinesCarryAnIsoUtcTimestamp) {
  {
    LogFile file((dir_ / "run.log").string());
    log().info("x");
  }
  std::ifstream in(dir_ / "run.log");
  std::string line;
  std::getline(in, line);
  ASSERT_GE(line.size(), 25u);
  EXPECT_EQ(line[4], '-');
  EXPECT_EQ(line[10], 'T');
  EXPECT_EQ(line.substr(23, 2), "Z ");
}

TEST_F(LogTest, AnAdoptedLoggerReceivesEverythingLogged) {
  // What a module's copy of this file does with the executable's logger (retrieval_module_test
  // checks the real module end to end).
  const std::shared_ptr<spdlog::logger> own = shared_log();
  auto adopted = std::make_shared<spdlog::logger>("adopted", std::make_shared<spdlog::sinks::ostream_sink_mt>(out_));
  adopted->set_pattern("%l %v");
  adopt_log(adopted);
  log().warn("to the adopted logger {}", 1);
  adopt_log(own);
  log().info("to our own again");
  EXPECT_EQ(&log(), own.get());
  EXPECT_EQ(out_.str(), "warning to the adopted logger 1\n");
}

}  // namespace
}  // namespace attractor
