// PTX text -> ir::Module. Any input gives a module or a Diagnostic; the parser
// never crashes, never hangs, and uses memory proportional to the input.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "ptxpp/ir/module.hpp"
#include "ptxpp/text/diagnostic.hpp"

namespace ptx::text {

struct ParseOptions {
  std::string file_name = "<input>";
  // Nesting limit for blocks, lists and expressions (keeps the stack bounded).
  uint32_t max_depth = 256;
};

class ParseResult {
 public:
  explicit ParseResult(ir::Module m) : module_(std::move(m)) {}
  explicit ParseResult(Diagnostic d) : error_(std::move(d)) {}

  bool ok() const { return module_.has_value(); }
  explicit operator bool() const { return ok(); }
  ir::Module& module() { return *module_; }
  const ir::Module& module() const { return *module_; }
  ir::Module take() { return std::move(*module_); }
  const Diagnostic& error() const { return error_; }

 private:
  std::optional<ir::Module> module_;
  Diagnostic error_;
};

ParseResult parse(std::string_view text, const ParseOptions& options = {});
// Throws ParseFailure.
ir::Module parse_or_throw(std::string_view text, const ParseOptions& options = {});

}  // namespace ptx::text
