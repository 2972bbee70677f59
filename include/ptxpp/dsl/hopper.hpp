// Hopper (sm_90a) helpers: mbarriers and an N-stage mbarrier pipeline, TMA tensor copies
// (cp.async.bulk.tensor), wgmma matrix descriptors, wgmma.mma_async and the accumulator
// fragment map, producer/consumer warp specialization. Each helper documents the PTX it emits (docs/dsl.md, "Hopper helpers").
#pragma once

#include "ptxpp/dsl/hopper/mbarrier.hpp"
#include "ptxpp/dsl/hopper/tensormap.hpp"
#include "ptxpp/dsl/hopper/tma.hpp"
#include "ptxpp/dsl/hopper/warp_specialize.hpp"
#include "ptxpp/dsl/hopper/wgmma.hpp"
