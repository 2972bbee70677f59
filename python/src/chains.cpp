// ptx.inst: the instruction chains, walked one attribute at a time on the automaton
// generated from spec/isa (the one behind C++'s ptx::inst). Each attribute is checked
// when it is read: a modifier that cannot come next raises with the legal ones and a
// "did you mean". A node caches its children in its __dict__, so a chain written again
// costs plain attribute lookups; a complete node is callable and emits one instruction.
#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>
#include <ptxpp/dsl/chains.hpp>
#include <ptxpp/dsl/python_names.hpp>

#include "common.hpp"

namespace ptxpy {

namespace {

struct Move {
  std::string python;  // "global_"
  ptx::dsl::ChainMove move;
};

struct ChainNode {
  uint32_t state = 0;
  bool root = false;  // ptx.inst itself: the moves are the opcodes
  std::string text;   // "ld.global"
  std::vector<uint16_t> tokens;
  uint32_t key = 0xFFFFFFFFu;  // the mnemonic's registry key, once known
  FloatAs floats = FloatAs::F32;
};

struct Guarded {
  uint32_t key;
  ptx::Operand guard;
  FloatAs floats;
  uint32_t trace;
};

nb::object g_chain_error;  // ptxpp.ChainError (an AttributeError)

const std::vector<Move>& moves_of(const ChainNode& n) {
  static std::unordered_map<uint32_t, std::vector<Move>> cache;  // per state; the root under ~0
  const uint32_t slot = n.root ? 0xFFFFFFFFu : n.state;
  auto it = cache.find(slot);
  if (it != cache.end()) return it->second;
  std::vector<Move> out;
  for (const ptx::dsl::ChainMove& m : n.root ? ptx::dsl::chain_opcodes() : ptx::dsl::chain_moves(n.state))
    out.push_back({python_name(m.ptx), m});
  return cache.emplace(slot, std::move(out)).first->second;
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string suggestion(const std::vector<Move>& moves, std::string_view name) {
  std::string best;
  size_t best_d = std::max<size_t>(2, name.size() / 3) + 1;
  for (const Move& m : moves) {
    const size_t d = edit_distance(name, m.python);
    if (d < best_d) best_d = d, best = m.python;
  }
  return best;
}

std::string legal_list(const std::vector<Move>& moves) {
  std::string out;
  const size_t shown = std::min<size_t>(moves.size(), 24);
  for (size_t i = 0; i < shown; ++i) out += (i ? ", " : "") + moves[i].python;
  if (moves.size() > shown) out += fmt::format(", ... ({} in all)", moves.size());
  return out;
}

[[noreturn]] void chain_error(const std::string& message) {
  const ptx::SourceLocation l = python_location();
  const std::string text = l.line() ? fmt::format("{}:{}: {}", l.file_name(), l.line(), message) : message;
  PyErr_SetString(g_chain_error.ptr(), text.c_str());
  throw nb::python_error();
}

nb::object child(nb::handle self, const std::string& name) {
  const ChainNode& n = *nb::inst_ptr<ChainNode>(self);
  if (name.size() > 1 && name[0] == '_' && name[1] == '_') throw nb::attribute_error(name.c_str());
  const std::vector<Move>& moves = moves_of(n);
  const auto it = std::find_if(moves.begin(), moves.end(), [&](const Move& m) { return m.python == name; });
  if (it == moves.end()) {
    const std::string near = suggestion(moves, name);
    const std::string hint = near.empty() ? "" : fmt::format("; did you mean {}?", near);
    if (n.root) chain_error(fmt::format("ptx.inst has no instruction '{}'{}", name, hint));
    if (moves.empty()) chain_error(fmt::format("{} is complete: no modifier can follow it ('{}' given)", n.text, name));
    chain_error(fmt::format("{} cannot be followed by .{}{} (it can be followed by: {})", n.text, name, hint,
                            legal_list(moves)));
  }
  ChainNode c;
  c.state = it->move.to;
  c.text = n.root ? std::string(it->move.ptx) : n.text + std::string(it->move.ptx);
  c.tokens = n.tokens;
  c.tokens.push_back(it->move.token);
  c.floats = ptx::dsl::python_floats_are_f64(c.text) ? FloatAs::F64 : FloatAs::F32;
  nb::object obj = nb::cast(std::move(c));
  nb::setattr(self, name.c_str(), obj);  // cached in the node's __dict__
  return obj;
}

uint32_t key_of(ChainNode& n) {
  if (n.key == 0xFFFFFFFFu) {
    if (n.root || !ptx::dsl::chain_accepting(n.state)) {
      chain_error(fmt::format("{} is not a complete instruction; it goes on with: {}", n.root ? "ptx.inst" : n.text,
                              legal_list(moves_of(n))));
    }
    n.key = ptx::dsl::detail::chain_key(n.tokens);
  }
  return n.key;
}

void emit(uint32_t key, nb::args args, FloatAs floats, const ptx::Operand* guard) {
  thread_local std::vector<ptx::Operand> ops;  // emit_call calls no Python: never re-entered
  ops.clear();
  for (nb::handle a : args) ops.push_back(to_operand(a, floats));
  ptx::dsl::detail::emit_call(key, ops, here(), guard);
}

ptx::Operand guard_of(nb::handle p) {
  if (nb::isinstance<PyNotPred>(p)) return ptx::dsl::detail::guard_operand(nb::inst_ptr<PyNotPred>(p)->reg, true);
  return ptx::dsl::detail::guard_operand(reg_of(p), false);
}

}  // namespace

void bind_chains(nb::module_& m) {
  g_chain_error = nb::steal(PyErr_NewExceptionWithDoc(
      "ptxpp._core.ChainError", "A modifier that cannot come next in a ptx.inst chain (an AttributeError).",
      nb::make_tuple(m.attr("Error"), nb::handle(PyExc_AttributeError)).ptr(), nullptr));
  m.attr("ChainError") = g_chain_error;

  nb::class_<ChainNode>(m, "Chain", nb::dynamic_attr(),
                        "A ptx.inst chain: attributes are the legal next modifiers (in the manual's order); "
                        "a complete one is called with the operands, or guarded first: ptx.inst.bra[p](label)")
      .def("__getattr__", [](nb::handle self, const std::string& name) { return child(self, name); })
      .def("__call__", [](ChainNode& n, nb::args args) { emit(key_of(n), args, n.floats, nullptr); })
      .def("__getitem__",
           [](ChainNode& n, nb::handle p) {
             const uint32_t key = key_of(n);
             return Guarded{key, guard_of(p), n.floats, ptx::dsl::running_trace_id()};
           })
      .def("__dir__",
           [](const ChainNode& n) {
             std::vector<std::string> out;
             for (const Move& mv : moves_of(n)) out.push_back(mv.python);
             return out;
           })
      .def("__repr__", [](const ChainNode& n) {
        if (n.root) return std::string("<ptx.inst>");
        return fmt::format("<ptx.inst.{}{}>", n.text, ptx::dsl::chain_accepting(n.state) ? "" : " (incomplete)");
      });
  nb::class_<Guarded>(m, "GuardedChain", "@p instruction: call it with the operands")
      .def("__call__", [](const Guarded& g, nb::args args) {
        check_same_trace(g.trace, "a guarded instruction");
        emit(g.key, args, g.floats, &g.guard);
      });
  m.def("_mnemonic", [](ChainNode& n) { return n.text; });
  ChainNode root;
  root.root = true;
  m.attr("inst") = nb::cast(std::move(root));
}

}  // namespace ptxpy
