#pragma once

// Unguessable identifiers: job nonces, run ids, the marker of a check's verdict. Drawn from the
// operating system's random source (std::random_device), never from a seeded generator.

#include <string>

namespace adaexplore {

// `bytes` random bytes as lower-case hex (2 * bytes characters).
std::string RandomHex(int bytes);

}  // namespace adaexplore
