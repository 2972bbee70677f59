// ptxpp test corpus: shared helpers for the CUDA sources in this directory.
// Written for the ptxpp project; not derived from any other code base.
#pragma once
#include <stdint.h>

#define CORPUS_DEV __device__ __forceinline__

// Architecture feature tests usable in #if.
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define CORPUS_SM90A 1
#else
#define CORPUS_SM90A 0
#endif
#if defined(__CUDA_ARCH_FEAT_SM100_ALL)
#define CORPUS_SM100A 1
#else
#define CORPUS_SM100A 0
#endif
#if defined(__CUDA_ARCH_FEAT_SM120_ALL)
#define CORPUS_SM120A 1
#else
#define CORPUS_SM120A 0
#endif

// __cluster_dims__ only where the target supports clusters.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define CORPUS_CLUSTER(x, y, z)
#else
#define CORPUS_CLUSTER(x, y, z) __cluster_dims__(x, y, z)
#endif

CORPUS_DEV uint32_t corpus_smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// Operand-list helpers for inline asm with many operands.
// P_a_b expands to "%a, %a+1, ..." using decimal string pasting.
#define CP_S(x) #x
#define CP_D2(p) "%" CP_S(p) "0, %" CP_S(p) "1"
#define CP_D4(p) CP_D2(p) ", %" CP_S(p) "2, %" CP_S(p) "3"
#define CP_D6(p) CP_D4(p) ", %" CP_S(p) "4, %" CP_S(p) "5"
#define CP_D8(p) CP_D6(p) ", %" CP_S(p) "6, %" CP_S(p) "7"
#define CP_D10(p) CP_D8(p) ", %" CP_S(p) "8, %" CP_S(p) "9"
#define CP_LO4 "%0, %1, %2, %3"
#define CP_LO8 CP_LO4 ", %4, %5, %6, %7"
#define CP_LO10 CP_LO8 ", %8, %9"
#define CP_LIST4 CP_LO4
#define CP_LIST8 CP_LO8
#define CP_LIST16 CP_LO10 ", " CP_D6(1)
#define CP_LIST32 CP_LO10 ", " CP_D10(1) ", " CP_D10(2) ", " CP_D2(3)
#define CP_LIST64 \
  CP_LO10 ", " CP_D10(1) ", " CP_D10(2) ", " CP_D10(3) ", " CP_D10(4) ", " CP_D10(5) ", " CP_D4(6)
#define CP_LIST128                                                                             \
  CP_LO10 ", " CP_D10(1) ", " CP_D10(2) ", " CP_D10(3) ", " CP_D10(4) ", " CP_D10(5) ", "     \
    CP_D10(6) ", " CP_D10(7) ", " CP_D10(8) ", " CP_D10(9) ", " CP_D10(10) ", " CP_D10(11) ", " \
    CP_D8(12)

// Constraint lists.
#define CP_F4(d, i) "+f"(d[(i)]), "+f"(d[(i) + 1]), "+f"(d[(i) + 2]), "+f"(d[(i) + 3])
#define CP_F8(d, i) CP_F4(d, i), CP_F4(d, (i) + 4)
#define CP_F16(d, i) CP_F8(d, i), CP_F8(d, (i) + 8)
#define CP_F32(d, i) CP_F16(d, i), CP_F16(d, (i) + 16)
#define CP_F64(d, i) CP_F32(d, i), CP_F32(d, (i) + 32)
#define CP_F128(d, i) CP_F64(d, i), CP_F64(d, (i) + 64)
#define CP_R4(d, i) "+r"(d[(i)]), "+r"(d[(i) + 1]), "+r"(d[(i) + 2]), "+r"(d[(i) + 3])
#define CP_R8(d, i) CP_R4(d, i), CP_R4(d, (i) + 4)
#define CP_R16(d, i) CP_R8(d, i), CP_R8(d, (i) + 8)
#define CP_R32(d, i) CP_R16(d, i), CP_R16(d, (i) + 16)
#define CP_R64(d, i) CP_R32(d, i), CP_R32(d, (i) + 32)
#define CP_OR4(d, i) "=r"(d[(i)]), "=r"(d[(i) + 1]), "=r"(d[(i) + 2]), "=r"(d[(i) + 3])
#define CP_OR8(d, i) CP_OR4(d, i), CP_OR4(d, (i) + 4)
#define CP_OR16(d, i) CP_OR8(d, i), CP_OR8(d, (i) + 8)
#define CP_OR32(d, i) CP_OR16(d, i), CP_OR16(d, (i) + 16)
#define CP_OR64(d, i) CP_OR32(d, i), CP_OR32(d, (i) + 32)
#define CP_OR128(d, i) CP_OR64(d, i), CP_OR64(d, (i) + 64)
#define CP_IR4(d, i) "r"(d[(i)]), "r"(d[(i) + 1]), "r"(d[(i) + 2]), "r"(d[(i) + 3])
#define CP_IR8(d, i) CP_IR4(d, i), CP_IR4(d, (i) + 4)
#define CP_IR16(d, i) CP_IR8(d, i), CP_IR8(d, (i) + 8)
#define CP_IR32(d, i) CP_IR16(d, i), CP_IR16(d, (i) + 16)
#define CP_IR64(d, i) CP_IR32(d, i), CP_IR32(d, (i) + 32)
#define CP_IR128(d, i) CP_IR64(d, i), CP_IR64(d, (i) + 64)
