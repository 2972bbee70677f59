// Labels as objects: create, branch to, place once. A label used but never
// placed is an error when the trace ends (reported at its first use).
#pragma once

#include <cstdint>
#include "ptxpp/dsl/source_location.hpp"
#include <string_view>

namespace ptx {

class Label {
 public:
  explicit Label(std::string_view hint = {}, ptx::SourceLocation where = ptx::SourceLocation::current());
  // For the library: a handle to label `id` of the running trace.
  static Label adopt(uint32_t id, ptx::SourceLocation where) { return Label(id, where); }
  uint32_t id() const { return id_; }
  ptx::SourceLocation where() const { return where_; }

 private:
  Label(uint32_t id, ptx::SourceLocation where) : id_(id), where_(where) {}
  uint32_t id_;
  ptx::SourceLocation where_;
};

// Places the label here: `$L__loop:`.
void place(const Label& l, ptx::SourceLocation where = ptx::SourceLocation::current());

}  // namespace ptx
