// ptxpp: write NVIDIA GPU kernels directly in PTX from C++.
// The umbrella header: everything public.
#pragma once

#include "ptxpp/ir/module.hpp"
#include "ptxpp/ir/queries.hpp"
#include "ptxpp/text/diagnostic.hpp"
#include "ptxpp/text/parser.hpp"
#include "ptxpp/text/printer.hpp"
