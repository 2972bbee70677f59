// Working with the vocabulary enums in the emulator: opcodes and modifiers in messages
// (fmt::format("{}", Mod::sat) writes ".sat"), and small (enumerator, value) tables.
#pragma once

#include <utility>

#include <fmt/format.h>

#include "ptxpp/spec/vocab.hpp"

template <>
struct fmt::formatter<ptx::spec::Opcode> : fmt::formatter<std::string_view> {
  auto format(ptx::spec::Opcode v, fmt::format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(ptx::spec::text_of(v), ctx);
  }
};
template <>
struct fmt::formatter<ptx::spec::Mod> : fmt::formatter<std::string_view> {
  auto format(ptx::spec::Mod v, fmt::format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(ptx::spec::text_of(v), ctx);
  }
};

namespace ptx::emu {

// The entry of `table` whose key is `key`, or nullptr.
template <class Key, class Value, size_t N>
constexpr const std::pair<Key, Value>* find_in(const std::pair<Key, Value> (&table)[N], Key key) {
  for (const auto& entry : table)
    if (entry.first == key) return &entry;
  return nullptr;
}

}  // namespace ptx::emu
