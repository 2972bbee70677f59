// What the Blackwell binding files share: the mma keywords' options and the entry points of
// blackwell_forms.cpp (the argument checks are arg_checks.hpp's).
#pragma once

#include <vector>

#include "arg_checks.hpp"

namespace ptxpy {

// The keywords of mma / mma_tmem_a that make its MmaOptions (blackwell_forms.cpp); `lanes`
// holds the disable-output-lane registers the options point into.
struct MmaKeywords {
  nb::handle collector_a, scale_input_d, sparse_metadata, disable_output_lane;
  bool ashift = false;
};
ptx::blackwell::MmaOptions mma_options(const MmaKeywords& k, std::vector<ptx::Reg>& lanes, const char* fn);

// blackwell_forms.cpp: the sparse, .ws and block-scaled forms, tcgen05.cp/shift, TMA gather/scatter.
// bind_blackwell_form_enums runs before the descriptors are bound (their defaults are these enums).
void bind_blackwell_form_enums(nb::module_& blackwell);
void bind_blackwell_forms(nb::module_& blackwell);

}  // namespace ptxpy
