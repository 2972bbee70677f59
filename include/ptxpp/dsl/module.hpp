// Modules: several kernels, .func device functions (and calls between them), and
// module-scope variables, traced into one PTX module.
//
//   auto add1 = ptx::func("add1").ret(u32).param(u32).body([](const ptx::FuncArgs& a) {
//     ptx::Reg x = a.param(0);
//     a.ret(x + 1);
//   });
//   ptx::Module mod;  mod.arch("sm_90a").global("table", f32, 256).add(add1).add(kernel);
//   // in a body:  ptx::Reg y = ptx::call(add1, {x});
//   std::string text = mod.ptx();
#pragma once

#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ptxpp/dsl/kernel.hpp"
#include "ptxpp/dsl/reg.hpp"
#include "ptxpp/dsl/source_location.hpp"

namespace ptx {

class Func;

// A device function's parameters and return value, inside its body.
class FuncArgs {
 public:
  explicit FuncArgs(const Func& f) : f_(&f) {}
  // ld.param: parameter i (one instruction).
  Reg param(size_t i, ptx::SourceLocation where = ptx::SourceLocation::current()) const;
  // st.param of the return value, then ret (two instructions).
  void ret(const Reg& value, ptx::SourceLocation where = ptx::SourceLocation::current()) const;

 private:
  const Func* f_;
};

class Func {
 public:
  explicit Func(std::string name, ptx::SourceLocation where = ptx::SourceLocation::current());
  Func& ret(DType t);
  Func& param(DType t);
  Func& body(std::function<void(const FuncArgs&)> b);

  const std::string& name() const;
  std::optional<DType> ret_type() const;
  const std::vector<DType>& params() const;
  std::string param_symbol(size_t i) const;
  std::string ret_symbol() const;

  struct Impl;
  const Impl& impl() const { return *impl_; }

 private:
  std::shared_ptr<Impl> impl_;
};

inline Func func(std::string name, ptx::SourceLocation where = ptx::SourceLocation::current()) {
  return Func(std::move(name), where);
}

// Calls f with the arguments; returns its result (an empty Reg for a void function).
// Emits, for each argument i and the result, nvcc's sequence (an argument that is
// not a register is first read into one with a mov):
//   .param .b32 param_N_i;  st.param.b32 [param_N_i], arg_i;  ...  .param .b32 retval_N;
//   call.uni (retval_N), f, (param_N_0, ...);  ld.param.b32 r, [retval_N];
Reg call(const Func& f, std::initializer_list<Operand> args, ptx::SourceLocation where = ptx::SourceLocation::current());
// The same with the arguments in a span (front ends that collect them at run time: Python).
Reg call(const Func& f, std::span<const Operand> args, ptx::SourceLocation where = ptx::SourceLocation::current());

class Module {
 public:
  Module();
  Module& arch(std::string_view target, ptx::SourceLocation where = ptx::SourceLocation::current());
  Module& ptx_version(int major, int minor);
  Module& debug(bool on = true);
  // A module-scope variable: `.global .align A .T name[count] = {init};` (count 0: a scalar).
  Module& global(std::string name, DType t, uint32_t count = 0, std::vector<double> init = {}, uint32_t align = 0);
  Module& constant(std::string name, DType t, uint32_t count = 0, std::vector<double> init = {}, uint32_t align = 0);
  Module& add(const Func& f);
  Module& add(const Kernel& k);
  // The whole module's PTX: variables, function declarations, functions, kernels.
  std::string ptx(const Bindings& b = {}) const;
  // The module traced for running one of its kernels: ptx is the whole module's text, the rest
  // (grid, block, shared memory, parameters) that kernel's; an error for a name not added.
  std::shared_ptr<const Traced> trace(std::string_view kernel, const Bindings& b = {}) const;

  struct Impl;

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace ptx
