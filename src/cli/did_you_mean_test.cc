#include "cli/did_you_mean.h"

#include <gtest/gtest.h>

namespace adaexplore {
namespace {

TEST(DidYouMeanTest, FlagsOfTheSubcommandAndCommandsOfTheApp) {
  CLI::App app;
  int trials = 0;
  CLI::App* eval = app.add_subcommand("eval");
  eval->add_option("--trials", trials);
  app.add_subcommand("run");
  app.allow_extras(false);
  try {
    app.parse(std::vector<std::string>{"2", "--trails", "eval"});  // Reversed: CLI11's order.
  } catch (const CLI::ParseError&) {
  }
  EXPECT_EQ(DidYouMean(app, {"eval", "--trails", "2"}), "did you mean --trials (not --trails)?\n");
  CLI::App fresh;
  fresh.add_subcommand("eval");
  fresh.add_subcommand("run");
  EXPECT_EQ(DidYouMean(fresh, {"evl", "--x"}), "did you mean the command eval (not evl)?\n");
}

}  // namespace
}  // namespace adaexplore
