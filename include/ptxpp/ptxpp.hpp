// ptxpp: write NVIDIA GPU kernels directly in PTX from C++.
// The umbrella header: everything public.
#pragma once

#include "ptxpp/core/diagnostic.hpp"
#include "ptxpp/core/dim3.hpp"
#include "ptxpp/core/ptx_version.hpp"
#include "ptxpp/core/target.hpp"
#include "ptxpp/ir/module.hpp"
#include "ptxpp/ir/queries.hpp"
#include "ptxpp/text/diagnostic.hpp"
#include "ptxpp/text/parser.hpp"
#include "ptxpp/text/printer.hpp"
