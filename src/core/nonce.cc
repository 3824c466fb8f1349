#include "core/nonce.h"

#include <fmt/format.h>

#include <random>

namespace adaexplore {

std::string RandomHex(int bytes) {
  std::random_device device;
  std::string out;
  out.reserve(2 * static_cast<size_t>(bytes));
  for (int i = 0; i < bytes; ++i) {
    out += fmt::format("{:02x}", device() & 0xFFu);
  }
  return out;
}

}  // namespace adaexplore
