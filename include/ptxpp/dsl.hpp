// The C++ PTX DSL: kernels traced into PTX, one call = one instruction.
//   #include <ptxpp/dsl.hpp>
//   using namespace ptx::types;
// See docs/dsl.md.
#pragma once

#include "ptxpp/dsl/ampere.hpp"
#include "ptxpp/dsl/blackwell.hpp"
#include "ptxpp/dsl/control.hpp"
#include "ptxpp/dsl/error.hpp"
#include "ptxpp/dsl/hopper.hpp"
#include "ptxpp/dsl/inst.hpp"
#include "ptxpp/dsl/kernel.hpp"
#include "ptxpp/dsl/label.hpp"
#include "ptxpp/dsl/listing.hpp"
#include "ptxpp/dsl/module.hpp"
#include "ptxpp/dsl/operand.hpp"
#include "ptxpp/dsl/reg.hpp"
#include "ptxpp/dsl/runtime_chain.hpp"
#include "ptxpp/dsl/smem.hpp"
#include "ptxpp/dsl/special.hpp"
#include "ptxpp/dsl/types.hpp"
#include "ptxpp/dsl/warp.hpp"
