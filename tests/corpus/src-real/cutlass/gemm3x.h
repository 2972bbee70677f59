// Shared by the CUTLASS 3.x sources: a GEMM kernel assembled from the mainloop and
// epilogue collective builders for one architecture, and the explicit instantiation
// of its __global__ entry point (what launching it from host code would emit).
#pragma once
#include <cute/tensor.hpp>
#include <cutlass/cutlass.h>
#include <cutlass/device_kernel.h>
#include <cutlass/epilogue/collective/collective_builder.hpp>
#include <cutlass/gemm/collective/collective_builder.hpp>
#include <cutlass/gemm/kernel/gemm_universal.hpp>

namespace corpus {

template <class Arch, class A, class LayoutA, class B, class LayoutB, class CD, class LayoutCD, class Acc,
          class TileShape, class ClusterShape, class MainloopSchedule, class EpilogueSchedule,
          class OpClass = cutlass::arch::OpClassTensorOp>
struct Gemm3x {
  static constexpr int kAlignA = 128 / cutlass::sizeof_bits<A>::value;
  static constexpr int kAlignB = 128 / cutlass::sizeof_bits<B>::value;
  static constexpr int kAlignCD = 128 / cutlass::sizeof_bits<CD>::value;
  using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
      Arch, OpClass, TileShape, ClusterShape, cutlass::epilogue::collective::EpilogueTileAuto, Acc, Acc, CD, LayoutCD,
      kAlignCD, CD, LayoutCD, kAlignCD, EpilogueSchedule>::CollectiveOp;
  using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
      Arch, OpClass, A, LayoutA, kAlignA, B, LayoutB, kAlignB, Acc, TileShape, ClusterShape,
      cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(
          sizeof(typename Epilogue::SharedStorage))>,
      MainloopSchedule>::CollectiveOp;
  using Kernel = cutlass::gemm::kernel::GemmUniversal<cute::Shape<int, int, int, int>, Mainloop, Epilogue>;
};

}  // namespace corpus

#define CORPUS_INSTANTIATE_GEMM3X(G) \
  template __global__ void cutlass::device_kernel<G::Kernel>(CUTLASS_GRID_CONSTANT G::Kernel::Params const)
