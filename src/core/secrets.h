#pragma once

// Keeping API keys where they belong. A key is read from the environment into the LLM client's
// settings and sent in request headers; it must never reach a log, an error message, a run
// database, a recording or the environment of a candidate process. Error text that comes back
// from a server can quote the key it was sent, so all such text goes through RedactSecrets.

#include <string>
#include <string_view>
#include <vector>

namespace adaexplore {

// `text` with every occurrence of each non-empty secret, and any "Bearer <token>" or
// "x-api-key: <token>" value, replaced by "[redacted]".
std::string RedactSecrets(std::string text, const std::vector<std::string>& secrets);

// True for environment variable names that conventionally hold credentials (*_API_KEY,
// *_TOKEN, *_SECRET*, *_PASSWORD*): they are removed from every process that runs candidate code.
bool IsCredentialVariable(std::string_view name);

// The names of credential variables in this process's environment.
std::vector<std::string> CredentialVariablesInEnvironment();

}  // namespace adaexplore
