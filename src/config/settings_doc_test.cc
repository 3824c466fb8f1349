#include "config/settings_doc.h"

#include <gtest/gtest.h>

#include "config/config.h"
#include "golden.h"

namespace adaexplore {
namespace {

const std::string kReadme = std::string(ADAEXPLORE_SOURCE_DIR) + "/README.md";

// The README's table is the one the settings tables make (ADAEXPLORE_UPDATE_GOLDEN=1 writes it).
TEST(SettingsDocTest, TheReadmeTableIsTheOneTheTablesMake) {
  golden::ExpectBlock(kReadme, "<!-- settings: made from the settings tables", "<!-- /settings -->",
                      SettingsMarkdown());
}

// The README's list of checks is the registry's (eval/checks.h).
TEST(SettingsDocTest, TheReadmeChecksAreTheRegistrys) {
  golden::ExpectBlock(kReadme, "<!-- checks: made from eval/checks.h", "<!-- /checks -->",
                      ChecksMarkdown());
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
