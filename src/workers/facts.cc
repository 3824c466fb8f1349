#include "workers/facts.h"

// One decoder for every shape: a struct is an object whose declared fields (its Visit) are
// decoded in turn, each by its C++ type; a vector is an array, a map an object of one type, an
// optional takes null too. The same recursion over the types gives the schema (NestedFactFields).

#include <fmt/format.h>

#include <algorithm>
#include <type_traits>

#include "core/json_text.h"

namespace adaexplore {
namespace {

using nlohmann::json;

template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {};

template <typename T>
struct IsVector : std::false_type {};
template <typename T>
struct IsVector<std::vector<T>> : std::true_type {};

template <typename T>
struct IsMap : std::false_type {};
template <typename T>
struct IsMap<std::map<std::string, T>> : std::true_type {};

// A nested shape: a struct that lists its fields.
template <typename T>
concept Shape = requires(T& t) {
  T::Visit(t, [](const char*, auto&) {});
};

// The JSON type of a field in the words of FactFields(): alternatives sorted, joined by '|'.
template <typename T>
std::string Kind() {
  if constexpr (IsOptional<T>::value) {
    std::string inner = Kind<typename T::value_type>();
    return inner < "null" ? inner + "|null" : "null|" + inner;
  } else if constexpr (IsMap<T>::value || Shape<T>) {
    return "object";
  } else {
    return JsonKind<T>();  // A scalar or a vector.
  }
}

Status WrongType(const json& value, const std::string& where, std::string_view kind) {
  return ProtocolError(
      fmt::format("{} = {} is not of type {}", where, JsonText(value).substr(0, 80), kind));
}

template <typename T>
Status Decode(const json& value, const std::string& where, T& out);

template <Shape T>
Status DecodeShape(const json& value, const std::string& where, T& out) {
  if (!value.is_object()) {
    return WrongType(value, where, "object");
  }
  Status status = Status::Ok();
  T::Visit(out, [&](const char* name, auto& field) {
    if (status.ok() && value.contains(name)) {
      status = Decode(value[name], where + "." + name, field);
    }
  });
  return status;
}

template <typename T>
Status Decode(const json& value, const std::string& where, T& out) {
  if constexpr (IsOptional<T>::value) {
    if (value.is_null()) {
      out.reset();
      return Status::Ok();
    }
    typename T::value_type inner{};
    RETURN_IF_ERROR(Decode(value, where, inner));
    out = std::move(inner);
    return Status::Ok();
  } else if constexpr (Shape<T>) {
    return DecodeShape(value, where, out);
  } else if constexpr (IsVector<T>::value) {
    if (!value.is_array()) {
      return WrongType(value, where, "array");
    }
    out.assign(value.size(), typename T::value_type{});
    for (size_t i = 0; i < value.size(); ++i) {
      RETURN_IF_ERROR(Decode(value[i], fmt::format("{}[{}]", where, i), out[i]));
    }
    return Status::Ok();
  } else if constexpr (IsMap<T>::value) {
    if (!value.is_object()) {
      return WrongType(value, where, "object");
    }
    for (const auto& [key, item] : value.items()) {
      RETURN_IF_ERROR(Decode(item, where + "." + key, out[key]));
    }
    return Status::Ok();
  } else if constexpr (NamedEnum<T>) {
    const std::optional<T> named =
        value.is_string() ? EnumFromName<T>(value.get<std::string>()) : std::nullopt;
    if (!named) {
      return WrongType(value, where, Kind<T>());
    }
    out = *named;
    return Status::Ok();
  } else {
    const bool matches = std::is_same_v<T, bool>       ? value.is_boolean()
                         : std::is_integral_v<T>       ? value.is_number_integer()
                         : std::is_floating_point_v<T> ? value.is_number()
                                                       : value.is_string();
    if (!matches) {
      return WrongType(value, where, Kind<T>());
    }
    out = value.get<T>();
    return Status::Ok();
  }
}

// The shape a field holds, if any: a struct, or a vector or optional of one.
template <typename T>
struct ShapeOf {
  using type = void;
};
template <Shape T>
struct ShapeOf<T> {
  using type = T;
};
template <typename T>
struct ShapeOf<std::optional<T>> : ShapeOf<T> {};
template <typename T>
struct ShapeOf<std::vector<T>> : ShapeOf<T> {};

// Adds the group of `T` at `path`, then those of the shapes its fields hold.
template <Shape T>
void AddGroups(const std::string& path, json& groups) {
  json& group = groups[path] = json::object();
  const T shape{};
  T::Visit(shape, [&](const char* name, const auto& field) {
    using Field = std::decay_t<decltype(field)>;
    group[name] = Kind<Field>();
    if constexpr (!std::is_void_v<typename ShapeOf<Field>::type>) {
      const bool many = IsVector<Field>::value || (IsOptional<Field>::value &&
                                                   IsVector<typename ShapeOf<Field>::type>::value);
      AddGroups<typename ShapeOf<Field>::type>(path + "." + name + (many ? "[]" : ""), groups);
    }
  });
}

}  // namespace

Result<Facts> DecodeFacts(const json& facts) {
  RETURN_IF_ERROR(ValidateFacts(facts));
  Facts out;
  ASSIGN_OR_RETURN(out.status, StatusOf(facts));
  RETURN_IF_ERROR(DecodeShape(facts, "facts", out));
  if (out.timing && facts["timing"].empty()) {
    out.timing.reset();  // The worker timed nothing.
  }
  return out;
}

json NestedFactFields() {
  json groups = json::object();
  AddGroups<Facts>("facts", groups);
  groups.erase("facts");  // The top level is FactFields(): every fact, not only these.
  return groups;
}

std::vector<std::pair<std::string, std::string>> TEST_FactsTopLevelKinds() {
  std::vector<std::pair<std::string, std::string>> kinds;
  const Facts facts;
  Facts::Visit(facts, [&](const char* name, const auto& field) {
    kinds.emplace_back(name, Kind<std::decay_t<decltype(field)>>());
  });
  return kinds;
}

}  // namespace adaexplore
