#pragma once

// Keeping API keys where they belong. A key is read from the environment into the LLM client's
// settings and sent in request headers; it must never reach a log, an error message, a run
// database, a recording or the environment of a candidate process. Error text that comes back
// from a server can quote the key it was sent, so all such text goes through RedactSecrets.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace adaexplore {

// `text` with every occurrence of each non-empty secret, and any "Bearer <token>" or
// "x-api-key: <token>" value, replaced by "[redacted]".
std::string RedactSecrets(std::string text, const std::vector<std::string>& secrets);

// True for environment variable names that conventionally hold credentials (*_API_KEY,
// *_TOKEN, *_SECRET*, *_PASSWORD*).
bool IsCredentialVariable(std::string_view name);

// Whether a variable of ours may reach a process that runs candidate code: an allowlist of what
// Python, torch, Triton, CUDA and compilers read (PATH, LANG, LC_*, CUDA_*, TORCH_*, TRITON_*,
// ...), never a credential by name. Everything else (DATABASE_URL, GH_PAT, *_PASSWD) stays here.
bool PassesToCandidates(std::string_view name);

// The names in this process's environment that do not pass: what a candidate's process unsets.
std::vector<std::string> VariablesWithheldFromCandidates();

// The values of those variables that could be recognised in text (kMinWithheldValueLength
// characters or more, and not a plain absolute path), read once: what a candidate must never get
// back into anything stored, reported or put into a prompt, should it find them (in another
// process's /proc, say).
std::vector<std::string> WithheldValues();
inline constexpr size_t kMinWithheldValueLength = 8;

// Every string in `value` (keys too) through RedactSecrets.
void RedactSecretsInJson(nlohmann::json& value, const std::vector<std::string>& secrets);

}  // namespace adaexplore
