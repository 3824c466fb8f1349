#include "config/settings_doc.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "config/config.h"

namespace adaexplore {
namespace {

// The README's copy of `made`, between the line starting with `begin` and `end`; with
// ADAEXPLORE_UPDATE_GOLDEN=1 it is written there instead.
void ExpectReadmeBlock(std::string_view begin_marker, std::string_view end_marker,
                       const std::string& made) {
  const std::string path = std::string(ADAEXPLORE_SOURCE_DIR) + "/README.md";
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  std::string readme = text.str();
  const size_t begin = readme.find(begin_marker);
  ASSERT_NE(begin, std::string::npos) << "README.md lacks " << begin_marker;
  const size_t body = readme.find('\n', begin) + 1;
  const size_t end = readme.find(end_marker, body);
  ASSERT_NE(end, std::string::npos) << "README.md lacks " << end_marker;
  if (std::getenv("ADAEXPLORE_UPDATE_GOLDEN") != nullptr) {
    readme.replace(body, end - body, made);
    std::ofstream(path) << readme;
    return;
  }
  EXPECT_EQ(readme.substr(body, end - body), made);
}

// The README's table is the one the settings tables make (ADAEXPLORE_UPDATE_GOLDEN=1 writes it).
TEST(SettingsDocTest, TheReadmeTableIsTheOneTheTablesMake) {
  ExpectReadmeBlock("<!-- settings: made from the settings tables", "<!-- /settings -->",
                    SettingsMarkdown());
}

// The README's list of checks is the registry's (eval/checks.h).
TEST(SettingsDocTest, TheReadmeChecksAreTheRegistrys) {
  ExpectReadmeBlock("<!-- checks: made from eval/checks.h", "<!-- /checks -->", ChecksMarkdown());
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
