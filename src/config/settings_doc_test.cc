#include "config/settings_doc.h"

#include <gtest/gtest.h>

#include "config/config.h"
#include "golden.h"
#include "llm/settings.h"
#include "search/run_settings.h"

namespace adaexplore {
namespace {

const std::string kConfigDoc = std::string(ADAEXPLORE_SOURCE_DIR) + "/docs/configuration.md";
const std::string kEvalDoc = std::string(ADAEXPLORE_SOURCE_DIR) + "/docs/eval.md";

// docs/configuration.md's table is the one the settings tables make (ADAEXPLORE_UPDATE_GOLDEN=1
// writes it).
TEST(SettingsDocTest, TheDocumentedTableIsTheOneTheTablesMake) {
  golden::ExpectBlock(kConfigDoc, "<!-- settings: made from the settings tables",
                      "<!-- /settings -->", SettingsMarkdown());
}

// docs/eval.md's list of checks is the registry's (eval/checks.h).
TEST(SettingsDocTest, TheDocumentedChecksAreTheRegistrys) {
  golden::ExpectBlock(kEvalDoc, "<!-- checks: made from eval/checks.h", "<!-- /checks -->",
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
  toml += "[run]\n";
  const RunSpec spec;
  for (const Setting<RunSpec>& s : RunSettingTable()) {
    toml += fmt::format("{} = {}\n", s.name, s.get(spec).dump());
  }
  const LlmOptions llm;
  toml += "[llm]\n";
  for (const Setting<LlmOptions>& s : LlmSettingTable()) {
    if (s.name != "model") {  // Empty by default, which is no provider:model.
      toml += fmt::format("{} = {}\n", s.name, s.get(llm).dump());
    }
  }
  for (const auto& [provider, settings] : llm.providers) {
    toml += fmt::format("[llm.{}]\n", provider);
    for (const Setting<ProviderSettings>& s : ProviderSettingTable()) {
      toml += fmt::format("{} = {}\n", s.name, s.get(settings).dump());
    }
  }
  toml += "[llm.prices.\"openai:m\"]\n";
  for (const Setting<Price>& s : PriceSettingTable()) {
    toml += fmt::format("{} = 1.5\n", s.name);
  }
  Config config;
  Status applied = ApplyConfigText(toml, "all.toml", config);
  EXPECT_TRUE(applied.ok()) << applied.ToString() << "\n" << toml;
  EXPECT_EQ(EvalSettings(config.profile), EvalSettings(strict));
  EXPECT_EQ(config.eval_file.size(), EvalSettingTable().size());
  EXPECT_EQ(config.run_file, RunSettingsJson(spec));
  EXPECT_EQ(SettingsJson(LlmSettingTable(), config.llm), SettingsJson(LlmSettingTable(), llm));
  EXPECT_EQ(config.llm.prices.Find({"openai", "m"})->output_per_mtok, 1.5);
}

}  // namespace
}  // namespace adaexplore
