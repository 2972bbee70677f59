// The machinery behind ptx::inst (generated into ptxpp/dsl/inst.hpp by
// spec/gen/gen_dsl.py): a modifier chain is a type whose template argument
// lists the tokens written so far; a complete chain is callable.
#pragma once

#include <array>
#include <cstdint>
#include "ptxpp/dsl/source_location.hpp"
#include <span>
#include <string_view>

#include "ptxpp/dsl/operand.hpp"
#include "ptxpp/dsl/reg.hpp"

namespace ptx::dsl::detail {

template <uint16_t... T>
struct Chain {};
template <class C, uint16_t t>
struct push;
template <uint16_t... T, uint16_t t>
struct push<Chain<T...>, t> {
  using type = Chain<T..., t>;
};
template <class C, uint16_t t>
using push_t = typename push<C, t>::type;
// One object per chain state; members refer to these, which keeps instantiation lazy.
template <class T>
inline constexpr T node{};

// The registry id of a mnemonic given as token ids ("ld" ".global" ".f32").
uint32_t chain_key(std::span<const uint16_t> tokens);
// Emits one instruction: the mnemonic `key`, checked against the ISA table and the trace's target.
void emit_call(uint32_t key, std::span<const Operand> ops, ptx::SourceLocation where, const Operand* guard);
Operand guard_operand(const Reg& p, bool negated);

// A chain's key in this copy of the library's mnemonic registry, found once. Hidden: two shared
// libraries that each link ptxpp statically (two op libraries in one Python process) must not
// share the cache, or one would read the other's key (GCC makes such statics process-unique).
template <class C>
struct ChainKey;
template <uint16_t... T>
struct __attribute__((visibility("hidden"))) ChainKey<Chain<T...>> {
  static uint32_t get() {
    static const uint32_t key = [] {
      const uint16_t tokens[] = {T...};
      return chain_key(tokens);
    }();
    return key;
  }
};

template <class C>
struct Guarded {
  Operand guard;
  template <class... Rest>
  void operator()(Located first, const Rest&... rest) const {
    const Operand ops[] = {first.op, as_operand(rest)...};
    emit_call(ChainKey<C>::get(), ops, first.where, &guard);
  }
  void operator()(ptx::SourceLocation where = ptx::SourceLocation::current()) const {
    emit_call(ChainKey<C>::get(), {}, where, &guard);
  }
};

// A complete chain: `ptx::inst::add.s32(d, a, b)`, guarded `ptx::inst::bra[p](L)` / `[!p]`.
template <class C>
struct Complete {
  template <class... Rest>
  void operator()(Located first, const Rest&... rest) const {
    const Operand ops[] = {first.op, as_operand(rest)...};
    emit_call(ChainKey<C>::get(), ops, first.where, nullptr);
  }
  void operator()(ptx::SourceLocation where = ptx::SourceLocation::current()) const {
    emit_call(ChainKey<C>::get(), {}, where, nullptr);
  }
  Guarded<C> operator[](const Reg& p) const { return Guarded<C>{guard_operand(p, false)}; }
  Guarded<C> operator[](NotPred p) const { return Guarded<C>{guard_operand(*p.p, true)}; }
  // The mnemonic, e.g. "ld.global.f32".
  static std::string_view mnemonic();
};

std::string_view key_text(uint32_t key);
template <class C>
std::string_view Complete<C>::mnemonic() {
  return key_text(ChainKey<C>::get());
}

}  // namespace ptx::dsl::detail
