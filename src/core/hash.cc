#include "core/hash.h"

#include <openssl/evp.h>

#include <array>

#include "core/status.h"

namespace adaexplore {

std::string Sha256Hex(std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  const int ok =
      EVP_Digest(data.data(), data.size(), digest.data(), &length, EVP_sha256(), nullptr);
  CHECK(ok == 1);  // SHA-256 over memory cannot fail short of a broken libcrypto.
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(static_cast<size_t>(length) * 2);
  for (unsigned int i = 0; i < length; ++i) {
    hex.push_back(kHex[digest[i] >> 4]);
    hex.push_back(kHex[digest[i] & 0xf]);
  }
  return hex;
}

Sha256Builder& Sha256Builder::Add(std::string_view part) {
  buffer_ += std::to_string(part.size());
  buffer_ += ':';
  buffer_ += part;
  return *this;
}

std::string Sha256Builder::Finish() const { return Sha256Hex(buffer_); }

}  // namespace adaexplore
