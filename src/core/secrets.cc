#include "core/secrets.h"

#include <algorithm>
#include <cctype>

#include "core/text.h"

extern char** environ;

namespace adaexplore {
namespace {

constexpr std::string_view kRedacted = "[redacted]";

void ReplaceAll(std::string& text, std::string_view needle) {
  for (size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + kRedacted.size())) {
    text.replace(at, needle.size(), kRedacted);
  }
}

// Replaces the token after each (case-insensitive) `marker` up to whitespace or a quote.
void RedactAfter(std::string& text, std::string_view marker) {
  size_t from = 0;
  while (true) {
    size_t at = Lower(text).find(marker, from);
    if (at == std::string::npos) {
      return;
    }
    size_t start = at + marker.size();
    size_t end = start;
    while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end])) &&
           text[end] != '"' && text[end] != '\'' && text[end] != ',') {
      ++end;
    }
    if (end > start && text.compare(start, end - start, kRedacted) != 0) {
      text.replace(start, end - start, kRedacted);
    }
    from = start + kRedacted.size();
  }
}

}  // namespace

std::string RedactSecrets(std::string text, const std::vector<std::string>& secrets) {
  for (const std::string& secret : secrets) {
    if (!secret.empty()) {
      ReplaceAll(text, secret);
    }
  }
  RedactAfter(text, "bearer ");
  RedactAfter(text, "x-api-key: ");
  return text;
}

bool IsCredentialVariable(std::string_view name) {
  const std::string upper = [&] {
    std::string out(name);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return out;
  }();
  auto ends_with = [&](std::string_view suffix) { return upper.ends_with(suffix); };
  return ends_with("_API_KEY") || ends_with("_TOKEN") || ends_with("_KEY") ||
         upper.find("SECRET") != std::string::npos || upper.find("PASSWORD") != std::string::npos;
}

bool PassesToCandidates(std::string_view name) {
  static constexpr std::string_view kNames[] = {"PATH",
                                                "HOME",
                                                "USER",
                                                "LOGNAME",
                                                "SHELL",
                                                "LANG",
                                                "LANGUAGE",
                                                "TZ",
                                                "TERM",
                                                "TMPDIR",
                                                "HOSTNAME",
                                                "PWD",
                                                "LD_LIBRARY_PATH",
                                                "CC",
                                                "CXX",
                                                "CPATH",
                                                "LIBRARY_PATH",
                                                "VIRTUAL_ENV",
                                                "CONDA_PREFIX",
                                                "XDG_CACHE_HOME"};
  static constexpr std::string_view kPrefixes[] = {
      "LC_", "CUDA_", "NVIDIA_", "CUBLAS", "CUDNN_", "NCCL_", "NVCC_", "CUPTI_", "TORCH",
      "PYTORCH_", "TRITON_", "OMP_", "MKL_", "KMP_", "OPENBLAS_", "PYTHON",
      // The expert baseline's package and its loader: where compiled kernels are cached, targets.
      "FLASHINFER_", "TVM_FFI_"};
  if (IsCredentialVariable(name)) {
    return false;
  }
  for (std::string_view allowed : kNames) {
    if (name == allowed) {
      return true;
    }
  }
  for (std::string_view prefix : kPrefixes) {
    if (name.starts_with(prefix)) {
      return true;
    }
  }
  return false;
}

std::vector<std::string> VariablesWithheldFromCandidates() {
  std::vector<std::string> names;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    std::string_view text(*entry);
    std::string_view name = text.substr(0, text.find('='));
    if (!PassesToCandidates(name)) {
      names.emplace_back(name);
    }
  }
  return names;
}

std::vector<std::string> WithheldValues() {
  static const std::vector<std::string> values = [] {
    std::vector<std::string> out;
    for (char** entry = environ; *entry != nullptr; ++entry) {
      std::string_view text(*entry);
      const size_t equals = text.find('=');
      if (equals == std::string_view::npos || PassesToCandidates(text.substr(0, equals))) {
        continue;
      }
      const std::string_view name = text.substr(0, equals);
      std::string_view value = text.substr(equals + 1);
      // A path (ADAEXPLORE_PYTHON, OLDPWD, `_`) is no secret, and redacting it would blank the
      // file names of every traceback. Nor is a plain lowercase word outside a credential's
      // variable (PART=sanitizer, STAGE=reference): redacted, it broke the harness's own names
      // in every result (a key of the facts) and words in every reason. Anything else of that
      // length may be one.
      const bool path = value.starts_with('/') && value.find_first_of(" \t:@") == value.npos;
      const bool word = !IsCredentialVariable(name) && std::ranges::all_of(value, [](char c) {
        return (c >= 'a' && c <= 'z') || c == '_';
      });
      if (value.size() >= kMinWithheldValueLength && !path && !word) {
        out.emplace_back(value);
      }
    }
    // The longest first: a value that contains another is replaced whole.
    std::sort(out.begin(), out.end(),
              [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
    return out;
  }();
  return values;
}

void RedactSecretsInJson(nlohmann::json& value, const std::vector<std::string>& secrets) {
  if (value.is_string()) {
    value = RedactSecrets(value.get<std::string>(), secrets);
  } else if (value.is_array()) {
    for (nlohmann::json& item : value) {
      RedactSecretsInJson(item, secrets);
    }
  } else if (value.is_object()) {
    nlohmann::json redacted = nlohmann::json::object();
    for (auto& [key, item] : value.items()) {
      RedactSecretsInJson(item, secrets);
      redacted[RedactSecrets(key, secrets)] = std::move(item);
    }
    value = std::move(redacted);
  }
}

}  // namespace adaexplore
