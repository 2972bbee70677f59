// Ampere (sm_80+) helpers: mma.sync forms and fragments, ldmatrix/stmatrix, cp.async
// and a multi-stage cp.async ring. Each helper documents the PTX it emits (docs/dsl.md,
// "Ampere helpers"). The XOR swizzle for conflict-free ldmatrix is ptx::smem::swizzle.
#pragma once

#include "ptxpp/dsl/ampere/cp_async.hpp"
#include "ptxpp/dsl/ampere/ldmatrix.hpp"
#include "ptxpp/dsl/ampere/mma.hpp"
