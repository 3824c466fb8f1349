#include "config/settings_doc.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "config/config.h"

namespace adaexplore {
namespace {

constexpr std::string_view kBegin = "<!-- settings: made from the settings tables";
constexpr std::string_view kEnd = "<!-- /settings -->";

// The README's table is the one the settings tables make (ADAEXPLORE_UPDATE_GOLDEN=1 writes it).
TEST(SettingsDocTest, TheReadmeTableIsTheOneTheTablesMake) {
  const std::string path = std::string(ADAEXPLORE_SOURCE_DIR) + "/README.md";
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  std::string readme = text.str();
  const size_t begin = readme.find(kBegin);
  ASSERT_NE(begin, std::string::npos) << "README.md has no settings table";
  const size_t body = readme.find('\n', begin) + 1;
  const size_t end = readme.find(kEnd, body);
  ASSERT_NE(end, std::string::npos);
  const std::string made = SettingsMarkdown();
  if (std::getenv("ADAEXPLORE_UPDATE_GOLDEN") != nullptr) {
    readme.replace(body, end - body, made);
    std::ofstream(path) << readme;
    return;
  }
  EXPECT_EQ(readme.substr(body, end - body), made);
}

// Every setting of the tables can be set from the config file, under its own name.
TEST(SettingsDocTest, EverySettingIsAKeyOfTheConfigFile) {
  std::string toml = "[eval]\n";
  const EvalProfile strict = StrictProfile();
  for (const Setting<EvalProfile>& s : EvalSettingTable()) {
    toml += fmt::format("{} = {}\n", s.name, s.get(strict).dump());
  }
  toml += "[search]\n";
  const SearchSettings search;
  for (const Setting<SearchSettings>& s : SearchSettingTable()) {
    toml += fmt::format("{} = {}\n", s.name, s.get(search).dump());
  }
  Config config;
  Status applied = ApplyConfigText(toml, "all.toml", config);
  EXPECT_TRUE(applied.ok()) << applied.ToString() << "\n" << toml;
  EXPECT_EQ(EvalSettings(config.profile), EvalSettings(strict));
  EXPECT_EQ(config.eval_file.size(), EvalSettingTable().size());
}

}  // namespace
}  // namespace adaexplore
