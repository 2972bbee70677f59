// Shared by the framework interops (torch.hpp, jax.hpp): binding a kernel's symbolic
// dimensions from the arrays a call passes, and sizing its outputs from them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "ptxpp/dsl/kernel.hpp"

namespace ptx::interop {

class ShapeBinder {
 public:
  // Checks input `name`'s sizes against its spec (static dimensions) and binds its
  // symbolic ones; the error names the dimension, the argument, and for a symbol two
  // inputs disagree on, where it was bound first. The rank is the caller's to check.
  std::optional<std::string> bind(const TensorSpec& spec, const std::string& name, std::span<const int64_t> sizes) {
    for (size_t d = 0; d < spec.shape.size() && d < sizes.size(); ++d) {
      const Dim& dim = spec.shape[d];
      const int64_t size = sizes[d];
      const std::string where = "dimension " + std::to_string(d) + " of '" + name + "'";
      if (!dim.symbolic()) {
        if (size != dim.value) return where + " must be " + std::to_string(dim.value) + ", not " + std::to_string(size);
        continue;
      }
      auto [it, fresh] = bindings_.emplace(dim.symbol, size);
      if (fresh) {
        bound_by_[dim.symbol] = where;
      } else if (it->second != size) {
        return where + " is " + std::to_string(size) + ", but " + dim.symbol + " is " + std::to_string(it->second) + " (" +
               bound_by_[dim.symbol] + ")";
      }
    }
    return std::nullopt;
  }

  // An output's shape from the bindings (every symbol bound: see check_outputs_are_sized).
  std::vector<int64_t> shape_of(const TensorSpec& spec) const {
    std::vector<int64_t> shape;
    for (const Dim& d : spec.shape) shape.push_back(d.symbolic() ? bindings_.at(d.symbol) : d.value);
    return shape;
  }

  const Bindings& bindings() const { return bindings_; }

 private:
  Bindings bindings_;
  std::map<std::string, std::string> bound_by_;  // symbol -> "dimension d of 'x'"
};

// Every symbolic dimension of an output is a dimension of some input (so a call can
// size its outputs); else std::invalid_argument, prefixed with `what`.
inline void check_outputs_are_sized(const std::vector<ParamSpec>& params, const std::string& what) {
  std::set<std::string> known;
  for (const ParamSpec& p : params)
    if (p.kind == ParamSpec::Kind::input)
      for (const Dim& d : p.spec.shape)
        if (d.symbolic()) known.insert(d.symbol);
  for (const ParamSpec& p : params)
    if (p.kind == ParamSpec::Kind::output)
      for (const Dim& d : p.spec.shape)
        if (d.symbolic() && !known.count(d.symbol))
          throw std::invalid_argument(what + "output dimension " + d.symbol +
                                      " is not a dimension of any input, so the op cannot size its output");
}

}  // namespace ptx::interop
