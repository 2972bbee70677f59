// Internal: the codes tcgen05_decode (tcgen05_decode.cpp) stores in a DInst and the execution
// (tcgen05.cpp) reads back: the shapes and kinds in DInst::boolop.
#pragma once

#include <cstdint>

namespace ptx::emu::tcgen05_codes {

// tcgen05.ld/st shapes (DInst::boolop)
enum Shape : uint8_t { k16x64b, k16x128b, k16x256b, k32x32b, k16x32bx2 };
inline constexpr unsigned kRegsPerRep[] = {1, 2, 4, 1, 1};
// tcgen05.mma kinds (DInst::boolop); from kMXF8F6F4 on block-scaled (.block_scale)
enum Kind : uint8_t { kF16, kTF32, kF8F6F4, kI8, kMXF8F6F4, kMXF4, kMXF4NVF4 };
// tcgen05.cp shapes (DInst::boolop)
enum CpShape : uint8_t { k128x256b, k4x256b, k128x128b, k64x128b_02_13, k64x128b_01_23, k32x128b_x4 };
inline constexpr const char* kKindNames[] = {"f16", "tf32", "f8f6f4", "i8", "mxf8f6f4", "mxf4", "mxf4nvf4"};

}  // namespace ptx::emu::tcgen05_codes
