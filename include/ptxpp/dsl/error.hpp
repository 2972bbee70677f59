// ptx::Error, for the DSL: the library-wide misuse error (ptxpp/error.hpp).
#pragma once

#include "ptxpp/error.hpp"
