// The runtime: devices (GPU through the CUDA driver, CPU through the emulator),
// memory, compilation with an on-disk cache, and launches.
#pragma once

#include "ptxpp/runtime/aot.hpp"
#include "ptxpp/runtime/cache.hpp"
#include "ptxpp/runtime/compiler.hpp"
#include "ptxpp/runtime/device.hpp"
#include "ptxpp/runtime/error.hpp"
#include "ptxpp/runtime/graph.hpp"
#include "ptxpp/runtime/launch.hpp"
#include "ptxpp/runtime/tensor_map.hpp"
