#include "llm/settings.h"

namespace adaexplore {
namespace {

template <typename Target, typename Ref>
Setting<Target> Row(Setting<Target> row, Ref ref) {
  BindRef(row, ref);
  return row;
}

std::vector<Setting<LlmOptions>> MakeLlmTable() {
  constexpr SettingKind kText = SettingKind::kText;
  constexpr SettingKind kNumber = SettingKind::kNumber;
  constexpr SettingKind kInteger = SettingKind::kInteger;
  Setting<LlmOptions> reply{.name = "max_reply_mb",
                            .kind = kNumber,
                            .default_text = "2",
                            .help = "bigger replies are refused as they stream",
                            .min = 0,
                            .min_exclusive = true};
  reply.get = [](const LlmOptions& o) {
    return nlohmann::json(static_cast<double>(o.max_reply_bytes) / (1 << 20));
  };
  reply.set = [](LlmOptions& o, const nlohmann::json& v) {
    o.max_reply_bytes = static_cast<int64_t>(v.get<double>() * (1 << 20));
    return Status::Ok();
  };
  return {
      Row<LlmOptions>(
          {.name = "model",
           .kind = kText,
           .default_text = "none",
           .help = "provider:model when a command does not say (--llm wins)"},
          [](auto& o) -> auto& { return o.model; }),
      Row<LlmOptions>(
          {.name = "max_attempts",
           .kind = kInteger,
           .default_text = "8",
           .help = "tries of a call, the first included (capped backoff between)",
           .min = 1},
          [](auto& o) -> auto& { return o.retry.max_attempts; }),
      Row<LlmOptions>(
          {.name = "initial_backoff_s",
           .kind = kNumber,
           .default_text = "1.0",
           .help = "seconds before the second try, before jitter",
           .min = 0},
          [](auto& o) -> auto& { return o.retry.initial_backoff_s; }),
      Row<LlmOptions>(
          {.name = "max_backoff_s",
           .kind = kNumber,
           .default_text = "60.0",
           .help = "the backoff's cap (at least initial_backoff_s)",
           .min = 0},
          [](auto& o) -> auto& { return o.retry.max_backoff_s; }),
      Row<LlmOptions>(
          {.name = "max_retry_after_s",
           .kind = kNumber,
           .default_text = "300",
           .help = "longer Retry-After values are cut to this",
           .min = 0},
          [](auto& o) -> auto& { return o.retry.max_retry_after_s; }),
      reply,
      Row<LlmOptions>(
          {.name = "max_failures_in_a_row",
           .kind = kInteger,
           .default_text = "10",
           .help = "failed calls (after retries) in a row that stop a run; 0: never",
           .min = 0,
           .max = 1000000},
          [](auto& o) -> auto& { return o.max_failures_in_a_row; }),
      Row<LlmOptions>(
          {.name = "budget_usd",
           .kind = kNumber,
           .default_text = "0 (none)",
           .help = "dollars per run, adapt or bench method; needs every model's price",
           .min = 0},
          [](auto& o) -> auto& { return o.budget.max_usd; }),
      Row<LlmOptions>(
          {.name = "budget_tokens",
           .kind = kInteger,
           .default_text = "0 (none)",
           .help = "input and output tokens per run, adapt or bench method",
           .min = 0},
          [](auto& o) -> auto& { return o.budget.max_tokens; }),
      Row<LlmOptions>(
          {.name = "cache",
           .kind = SettingKind::kBoolean,
           .default_text = "true",
           .help = "answer a repeated request from the response cache"},
          [](auto& o) -> auto& { return o.cache_enabled; }),
      Row<LlmOptions>(
          {.name = "cache_path",
           .kind = kText,
           .default_text = "$XDG_CACHE_HOME/adaexplore/llm-cache.sqlite",
           .help = "the response cache"},
          [](auto& o) -> auto& { return o.cache_path; }),
      Row<LlmOptions>(
          {.name = "record",
           .kind = kText,
           .default_text = "none",
           .help = "append every exchange to this recording (run --record wins)"},
          [](auto& o) -> auto& { return o.record_path; }),
  };
}

std::vector<Setting<ProviderSettings>> MakeProviderTable() {
  constexpr SettingKind kText = SettingKind::kText;
  constexpr SettingKind kNumber = SettingKind::kNumber;
  return {
      Row<ProviderSettings>(
          {.name = "base_url",
           .kind = kText,
           .default_text = "$OPENAI_BASE_URL / $ANTHROPIC_BASE_URL, then the public endpoint",
           .help = "the provider's endpoint"},
          [](auto& p) -> auto& { return p.base_url; }),
      Row<ProviderSettings>(
          {.name = "api_key_env",
           .kind = kText,
           .default_text = "OPENAI_API_KEY / ANTHROPIC_API_KEY",
           .help = "the variable holding the key (never the key itself)"},
          [](auto& p) -> auto& { return p.api_key_env; }),
      Row<ProviderSettings>(
          {.name = "concurrency",
           .kind = SettingKind::kInteger,
           .default_text = "16",
           .help = "requests in flight at once to the provider",
           .min = 1,
           .max = 4096},
          [](auto& p) -> auto& { return p.concurrency; }),
      Row<ProviderSettings>(
          {.name = "timeout_s",
           .kind = kNumber,
           .default_text = "900",
           .help = "seconds for a whole request, reasoning included",
           .min = 0,
           .min_exclusive = true},
          [](auto& p) -> auto& { return p.timeout_s; }),
      Row<ProviderSettings>(
          {.name = "connect_timeout_s",
           .kind = kNumber,
           .default_text = "15",
           .help = "seconds to connect",
           .min = 0,
           .min_exclusive = true},
          [](auto& p) -> auto& { return p.connect_timeout_s; }),
      Row<ProviderSettings>(
          {.name = "max_output_tokens",
           .kind = SettingKind::kInteger,
           .default_text = "32768",
           .help = "output limit of a call that does not say",
           .min = 1},
          [](auto& p) -> auto& { return p.max_output_tokens; }),
      Row<ProviderSettings>(
          {.name = "max_tokens_field",
           .kind = SettingKind::kChoice,
           .default_text = "max_completion_tokens",
           .help = "OpenAI-compatible: the body field of the output limit "
                   "(max_tokens for older servers)",
           .choices = {"max_completion_tokens", "max_tokens"}},
          [](auto& p) -> auto& { return p.max_tokens_field; }),
  };
}

std::vector<Setting<Price>> MakePriceTable() {
  auto price = [](std::string_view name, std::string_view help, double Price::*field) {
    Setting<Price> row{
        .name = name, .kind = SettingKind::kNumber, .default_text = "none", .help = help, .min = 0};
    BindField(row, field);
    return row;
  };
  return {
      price("input_per_mtok", "dollars per million uncached input tokens", &Price::input_per_mtok),
      price("cached_input_per_mtok", "dollars per million cached input tokens (default: input's)",
            &Price::cached_input_per_mtok),
      price("cache_write_per_mtok",
            "dollars per million input tokens written to the prompt cache (default: input's; "
            "Anthropic bills 1.25 times input)",
            &Price::cache_write_per_mtok),
      price("output_per_mtok", "dollars per million output tokens, reasoning included",
            &Price::output_per_mtok),
  };
}

}  // namespace

const std::vector<Setting<LlmOptions>>& LlmSettingTable() {
  static const std::vector<Setting<LlmOptions>> table = MakeLlmTable();
  return table;
}

const std::vector<Setting<ProviderSettings>>& ProviderSettingTable() {
  static const std::vector<Setting<ProviderSettings>> table = MakeProviderTable();
  return table;
}

const std::vector<Setting<Price>>& PriceSettingTable() {
  static const std::vector<Setting<Price>> table = MakePriceTable();
  return table;
}

}  // namespace adaexplore
