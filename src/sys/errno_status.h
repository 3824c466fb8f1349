#pragma once

// The one place errno becomes a Status: sys/ wrappers call ErrnoStatus right after the failing
// call, so errno never leaks out of this folder.

#include <cerrno>
#include <cstring>
#include <string>

#include "core/status.h"

namespace adaexplore {

inline Status ErrnoStatus(const std::string& what, int error = errno) {
  return IoError(what + ": " + std::strerror(error));
}

}  // namespace adaexplore
