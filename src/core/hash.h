#pragma once

// Content hashes. Cache keys and job ids are SHA-256 digests of everything that decides a result,
// so identical work is recognised wherever it comes from.

#include <string>
#include <string_view>

namespace adaexplore {

// Lower-case hex SHA-256 of `data`.
std::string Sha256Hex(std::string_view data);

// Incremental form: each Add is length-prefixed, so ("ab","c") and ("a","bc") hash differently.
class Sha256Builder {
 public:
  Sha256Builder& Add(std::string_view part);
  std::string Finish() const;

 private:
  std::string buffer_;
};

}  // namespace adaexplore
