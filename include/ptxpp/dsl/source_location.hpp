// ptx::SourceLocation, for the DSL (ptxpp/source_location.hpp).
#pragma once

#include "ptxpp/source_location.hpp"
