#pragma once

// Where the shared data (../shared/data beside the checkout, or $ADAEXPLORE_SHARED/data) lives,
// for tests that use the reference's release files and skip when they are absent.

#include <cstdlib>
#include <filesystem>

namespace adaexplore::test_data {

inline std::filesystem::path SharedDataDirectory() {
  const char* shared = std::getenv("ADAEXPLORE_SHARED");
  const std::filesystem::path root = shared != nullptr
                                         ? std::filesystem::path(shared)
                                         : std::filesystem::path(ADAEXPLORE_SOURCE_DIR) / "../shared";
  return root / "data";
}

// The ten released search trees of the reference run.
inline std::filesystem::path ShowcaseDirectory() {
  return SharedDataDirectory() / "adaexplore-release/showcase";
}

}  // namespace adaexplore::test_data
