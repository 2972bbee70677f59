// Blackwell (sm_100a) helpers: tensor memory (tcgen05.alloc/dealloc), the tcgen05.mma
// instruction descriptors (dense/sparse and block-scaled) and shared-memory matrix descriptor,
// tcgen05.mma in every form (sparse, .ws, block-scaled, with its options), tcgen05.commit,
// tcgen05.ld/st with their fragment maps, the tcgen05 fences, tcgen05.cp and tcgen05.shift.
// Each helper documents the PTX it emits (docs/dsl.md, "Blackwell helpers"). The mbarrier,
// pipeline and TMA helpers of ptx::hopper work unchanged on sm_100a.
#pragma once

#include "ptxpp/dsl/blackwell/block_scaled_descriptor.hpp"
#include "ptxpp/dsl/blackwell/commit.hpp"
#include "ptxpp/dsl/blackwell/cta_group.hpp"
#include "ptxpp/dsl/blackwell/fence.hpp"
#include "ptxpp/dsl/blackwell/instr_descriptor.hpp"
#include "ptxpp/dsl/blackwell/mma.hpp"
#include "ptxpp/dsl/blackwell/mma_block_scaled.hpp"
#include "ptxpp/dsl/blackwell/mma_options.hpp"
#include "ptxpp/dsl/blackwell/smem_descriptor.hpp"
#include "ptxpp/dsl/blackwell/tma_gather.hpp"
#include "ptxpp/dsl/blackwell/tma_pair.hpp"
#include "ptxpp/dsl/blackwell/tmem_alloc.hpp"
#include "ptxpp/dsl/blackwell/tmem_copy.hpp"
#include "ptxpp/dsl/blackwell/tmem_ld_st.hpp"
