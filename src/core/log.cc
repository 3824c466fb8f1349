#include "core/log.h"

#include <spdlog/sinks/null_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace adaexplore {

Result<Logger> MakeStderrLogger(std::string_view level) {
  spdlog::level::level_enum parsed = spdlog::level::from_str(std::string(level));
  if (parsed == spdlog::level::off && level != "off") {
    return InvalidArgument("unknown log level '" + std::string(level) +
                           "' (use trace, debug, info, warn, error or off)");
  }
  const bool colour = isatty(STDERR_FILENO) != 0 && std::getenv("NO_COLOR") == nullptr;
  Logger logger;
  if (colour) {
    logger = std::make_shared<spdlog::logger>(
        "adaexplore", std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
  } else {
    logger = std::make_shared<spdlog::logger>("adaexplore",
                                              std::make_shared<spdlog::sinks::stderr_sink_mt>());
  }
  logger->set_level(parsed);
  logger->set_pattern("%^[%H:%M:%S.%e %l]%$ %v");
  return logger;
}

Logger NullLogger() {
  static Logger logger =
      std::make_shared<spdlog::logger>("null", std::make_shared<spdlog::sinks::null_sink_mt>());
  return logger;
}

}  // namespace adaexplore
