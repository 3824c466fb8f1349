#include "core/json_log.h"

#include <spdlog/sinks/base_sink.h>

#include <cstdio>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "core/json_text.h"

namespace adaexplore {
namespace {

class JsonStderrSink final : public spdlog::sinks::base_sink<std::mutex> {
 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    const auto level = spdlog::level::to_string_view(msg.level);
    const nlohmann::json line = {{"event", "log"},
                                 {"level", std::string(level.data(), level.size())},
                                 {"message", std::string(msg.payload.data(), msg.payload.size())}};
    const std::string text = JsonText(line) + "\n";
    (void)std::fwrite(text.data(), 1, text.size(), stderr);
    (void)std::fflush(stderr);
  }
  void flush_() override { (void)std::fflush(stderr); }
};

}  // namespace

Result<Logger> MakeStderrJsonLogger(std::string_view level) {
  ASSIGN_OR_RETURN(Logger logger, MakeStderrLogger(level));  // The level, checked once.
  logger->sinks().clear();
  logger->sinks().push_back(std::make_shared<JsonStderrSink>());
  return logger;
}

Result<Logger> MakeCommandLogger(std::string_view level, bool json) {
  return json ? MakeStderrJsonLogger(level) : MakeStderrLogger(level);
}

}  // namespace adaexplore
