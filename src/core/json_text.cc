#include "core/json_text.h"

namespace adaexplore {

std::string JsonText(const nlohmann::json& value, int indent) {
  return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::optional<size_t> FirstInvalidUtf8(std::string_view text) {
  auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  size_t i = 0;
  while (i < text.size()) {
    const unsigned char lead = byte(i);
    size_t length = 0;
    unsigned char low = 0x80;  // The range of the second byte (RFC 3629's table).
    unsigned char high = 0xBF;
    if (lead < 0x80) {
      length = 1;
    } else if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      low = lead == 0xE0 ? 0xA0 : 0x80;   // No overlong forms.
      high = lead == 0xED ? 0x9F : 0xBF;  // No surrogates.
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      low = lead == 0xF0 ? 0x90 : 0x80;
      high = lead == 0xF4 ? 0x8F : 0xBF;  // Nothing past U+10FFFF.
    } else {
      return i;
    }
    if (i + length > text.size()) {
      return i;
    }
    for (size_t k = 1; k < length; ++k) {
      const unsigned char c = byte(i + k);
      if (k == 1 ? (c < low || c > high) : (c < 0x80 || c > 0xBF)) {
        return i;
      }
    }
    i += length;
  }
  return std::nullopt;
}

}  // namespace adaexplore
