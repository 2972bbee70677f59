// Host-only generator (written for ptxpp): runs CUTLASS/CuTe's own host-side encoders and
// writes one line per configuration, `<kind> key=value ...`, inputs first and the bits
// CuTe produced last. tests/dsl/cutlass_encodings_test.cpp rebuilds every line with the
// ptxpp DSL and compares. No GPU and no driver: cuTensorMapEncodeTiled is defined below to
// record the arguments CuTe derives for the driver (the 128-byte map is the driver's
// opaque format; the arguments are what ptxpp must agree with).
//
// Kinds of line:
//   wgmma_raw      GmmaDescriptor bitfields set directly (start, LBO, SBO, base offset, layout)
//   wgmma_layout   SM90::GMMA::make_gmma_desc of one wgmma's slice of a canonical smem tile
//   umma_raw       UMMA::SmemDescriptor bitfields set directly (also lbo_mode)
//   umma_layout    UMMA::make_umma_desc of one tcgen05.mma's slice of a canonical smem tile
//   idesc          UMMA::make_instr_desc / make_runtime_instr_desc (sparse id)
//   idesc_bs       UMMA::make_instr_desc_block_scaled / make_runtime_instr_desc_block_scaled
//   tma            the arguments make_tma_copy passes to cuTensorMapEncodeTiled
#define CUTLASS_ENABLE_DIRECT_CUDA_DRIVER_CALL 1
#include <cuda.h>

#include <cstdio>
#include <cstdint>

#include <cute/tensor.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
#include <cute/atom/mma_traits_sm100.hpp>
#include <cute/atom/copy_traits_sm90_tma.hpp>
#include <cute/arch/mma_sm100_desc.hpp>

using namespace cute;

static FILE* out = nullptr;

// ---------------------------------------------------------------- type names

template <class T> constexpr const char* tname() {
  if constexpr (is_same_v<T, half_t>) return "f16";
  else if constexpr (is_same_v<T, bfloat16_t>) return "bf16";
  else if constexpr (is_same_v<T, tfloat32_t>) return "tf32";
  else if constexpr (is_same_v<T, float_e4m3_t>) return "e4m3";
  else if constexpr (is_same_v<T, float_e5m2_t>) return "e5m2";
  else if constexpr (is_same_v<T, float_e2m3_t>) return "e2m3";
  else if constexpr (is_same_v<T, float_e3m2_t>) return "e3m2";
  else if constexpr (is_same_v<T, detail::float_e2m1_unpacksmem_t>) return "e2m1";
  else if constexpr (is_same_v<T, float_e2m1_t>) return "e2m1";
  else if constexpr (is_same_v<T, int8_t>) return "s8";
  else if constexpr (is_same_v<T, uint8_t>) return "u8";
  else if constexpr (is_same_v<T, float>) return "f32";
  else if constexpr (is_same_v<T, int32_t>) return "s32";
  else if constexpr (is_same_v<T, float_ue8m0_t>) return "ue8m0";
  else if constexpr (is_same_v<T, float_ue4m3_t>) return "ue4m3";
  else static_assert(sizeof(T) == 0, "name it");
}

// ---------------------------------------------------------------- smem descriptors, raw fields

static const char* gmma_swz_name(int t) {
  const char* n[] = {"none", "128B", "64B", "32B"};
  return n[t];
}
static const char* umma_swz_name(int t) {
  switch (t) {
    case 0: return "none";
    case 1: return "128B_base32B";
    case 2: return "128B";
    case 4: return "64B";
    case 6: return "32B";
  }
  return "?";
}

static void wgmma_raw() {
  const uint32_t starts[] = {0, 0x10, 0x400, 0x1230, 0x3fff0};
  const uint32_t offs[] = {16, 128, 1024, 0x2340, 0x3fff0};
  for (int layout = 0; layout < 4; ++layout)
    for (uint32_t start : starts)
      for (uint32_t lbo : offs)
        for (uint32_t sbo : offs)
          for (uint32_t base : {0u, 3u, 7u}) {
            if (base != 0 && (lbo != 16 || start != 0x400)) continue;  // base offsets: a few
            GmmaDescriptor d;
            d.bitfield.start_address_ = static_cast<uint16_t>(start >> 4);
            d.bitfield.leading_byte_offset_ = static_cast<uint16_t>(lbo >> 4);
            d.bitfield.stride_byte_offset_ = static_cast<uint16_t>(sbo >> 4);
            d.bitfield.base_offset_ = base;
            d.bitfield.layout_type_ = layout;
            std::fprintf(out, "wgmma_raw swizzle=%s start=0x%x lbo=0x%x sbo=0x%x base_offset=%u bits=0x%016llx\n",
                         gmma_swz_name(layout), start, lbo, sbo, base, (unsigned long long)uint64_t(d));
          }
}

static void umma_raw() {
  const uint32_t starts[] = {0, 0x10, 0x400, 0x3fff0};
  const uint32_t offs[] = {16, 1024, 0x2340, 0x3fff0};
  for (int layout : {0, 1, 2, 4, 6})
    for (uint32_t start : starts)
      for (uint32_t lbo : offs)
        for (uint32_t sbo : offs)
          for (uint32_t base : {0u, 5u})
            for (uint32_t mode : {0u, 1u}) {
              if ((base != 0 || mode != 0) && (lbo != 1024 || start != 0x400)) continue;
              UMMA::SmemDescriptor d;
              d.version_ = 1;
              d.start_address_ = static_cast<uint16_t>(start >> 4);
              d.leading_byte_offset_ = static_cast<uint16_t>(lbo >> 4);
              d.stride_byte_offset_ = static_cast<uint16_t>(sbo >> 4);
              d.base_offset_ = base;
              d.lbo_mode_ = mode;
              d.layout_type_ = layout;
              std::fprintf(out,
                           "umma_raw swizzle=%s start=0x%x lbo=0x%x sbo=0x%x base_offset=%u lbo_absolute=%u bits=0x%016llx\n",
                           umma_swz_name(layout), start, lbo, sbo, base, mode, (unsigned long long)uint64_t(d));
            }
}

// ---------------------------------------------------------------- smem descriptors from layouts

// The canonical atoms: swizzle 0 (none), 32, 64, 128 bytes, and 1281 for 128B with 32-byte
// atomicity (tcgen05, MN-major only).
template <class T, bool KMajor, int SW> auto atom() {
  if constexpr (KMajor) {
    if constexpr (SW == 0) return GMMA::Layout_K_INTER_Atom<T>{};
    else if constexpr (SW == 32) return GMMA::Layout_K_SW32_Atom<T>{};
    else if constexpr (SW == 64) return GMMA::Layout_K_SW64_Atom<T>{};
    else return GMMA::Layout_K_SW128_Atom<T>{};
  } else {
    if constexpr (SW == 0) return GMMA::Layout_MN_INTER_Atom<T>{};
    else if constexpr (SW == 32) return GMMA::Layout_MN_SW32_Atom<T>{};
    else if constexpr (SW == 64) return GMMA::Layout_MN_SW64_Atom<T>{};
    else if constexpr (SW == 128) return GMMA::Layout_MN_SW128_Atom<T>{};
    else return UMMA::Layout_MN_SW128_32B_Atom<T>{};
  }
}

// One line per K block (32 bytes of K: one wgmma / tcgen05.mma) of an MN x KBYTES tile,
// made with tile_to_shape(atom, (MN, K)) at `base`. Umma: tcgen05's descriptor.
template <bool Umma, class T, bool KMajor, int SW, int MN, int KBYTES>
void layout_lines(uint32_t base) {
  constexpr int bits = sizeof_bits_v<T>;
  constexpr int KE = KBYTES * 8 / bits;
  constexpr int KMMA = 256 / bits;
  constexpr int span = SW == 1281 ? 128 : SW;
  constexpr int mn_bytes = MN * bits / 8;
  if constexpr ((KMajor ? KBYTES % (span ? span : 16) : mn_bytes % (span ? span : 16)) != 0) {
    return;  // the tile is not a whole number of atoms
  } else {
    auto layout = tile_to_shape(atom<T, KMajor, SW>(), Shape<Int<MN>, Int<KE>>{});
    Tensor s = make_tensor(make_smem_ptr(reinterpret_cast<T*>(uintptr_t(base))), layout);
    for_each(make_int_sequence<KE / KMMA>{}, [&](auto kb) {
      Tensor sub = local_tile(s, Shape<Int<MN>, Int<KMMA>>{}, make_coord(0, kb));
      // On the host cast_smem_ptr_to_uint is 0: the descriptor starts at 0 and CuTe's own
      // DescriptorIterator adds the slice's address, as the device path adds offsets.
      const uint32_t start = uint32_t(uintptr_t(raw_pointer_cast(sub.data())));
      uint64_t bitsv;
      if constexpr (Umma) {
        auto d = UMMA::make_umma_desc<KMajor ? UMMA::Major::K : UMMA::Major::MN>(sub);
        bitsv = uint64_t(*(UMMA::DescriptorIterator{d} + start / 16));
      } else {
        auto d = SM90::GMMA::make_gmma_desc<KMajor ? GMMA::Major::K : GMMA::Major::MN>(sub);
        bitsv = uint64_t(*(SM90::GMMA::DescriptorIterator{d} + start / 16));
      }
      std::fprintf(out, "%s major=%s swizzle=%s type=%s mn=%d k=%d kblock=%d base=0x%x start=0x%x bits=0x%016llx\n",
                   Umma ? "umma_layout" : "wgmma_layout", KMajor ? "K" : "MN",
                   SW == 0 ? "none" : SW == 32 ? "32B" : SW == 64 ? "64B" : SW == 128 ? "128B" : "128B_base32B",
                   tname<T>(), MN, KE, int(kb), base, start, (unsigned long long)bitsv);
    });
  }
}

template <bool Umma, class T, bool KMajor, int SW> void layout_tiles() {
  for (uint32_t base : {0x0u, 0x8400u}) {
    layout_lines<Umma, T, KMajor, SW, 64, 32>(base);
    layout_lines<Umma, T, KMajor, SW, 64, 128>(base);
    layout_lines<Umma, T, KMajor, SW, 128, 64>(base);
    layout_lines<Umma, T, KMajor, SW, 128, 256>(base);
    layout_lines<Umma, T, KMajor, SW, 256, 128>(base);
  }
}

template <bool Umma, class T, bool KMajor> void layout_swizzles() {
  layout_tiles<Umma, T, KMajor, 0>();
  layout_tiles<Umma, T, KMajor, 32>();
  layout_tiles<Umma, T, KMajor, 64>();
  layout_tiles<Umma, T, KMajor, 128>();
  if constexpr (Umma && !KMajor) layout_tiles<Umma, T, KMajor, 1281>();
}

template <bool Umma, class... Ts> void layout_types(bool mn_major) {
  (layout_swizzles<Umma, Ts, true>(), ...);
  if (mn_major) (layout_swizzles<Umma, Ts, false>(), ...);
}

static void smem_layouts() {
  // wgmma reads MN-major (transposed) operands only for 16-bit types.
  layout_types<false, half_t, bfloat16_t>(true);
  layout_types<false, tfloat32_t, float_e4m3_t, float_e5m2_t, int8_t, uint8_t>(false);
  // tcgen05.mma also reads tf32 and 8-bit operands MN-major.
  layout_types<true, half_t, bfloat16_t, tfloat32_t, float_e4m3_t, int8_t>(true);
}

// ---------------------------------------------------------------- instruction descriptors

static const char* major_name(UMMA::Major m) { return m == UMMA::Major::K ? "K" : "MN"; }

template <class A, class B, class C, int M, int N, UMMA::Major AM, UMMA::Major BM,
          UMMA::ScaleIn NA = UMMA::ScaleIn::One, UMMA::ScaleIn NB = UMMA::ScaleIn::One,
          UMMA::Saturate SAT = UMMA::Saturate::False, bool SPARSE = false,
          UMMA::MaxShift SHIFT = UMMA::MaxShift::NoShift>
void idesc(const char* kind, uint16_t sparse_id = 0) {
  const uint64_t rt = UMMA::make_runtime_instr_desc<A, B, C, M, N, AM, BM, NA, NB, SAT, SPARSE, SHIFT>(sparse_id);
  std::fprintf(out,
               "idesc kind=%s a=%s b=%s d=%s m=%d n=%d major_a=%s major_b=%s negate_a=%d negate_b=%d saturate=%d "
               "sparse=%d sparse_id=%u max_shift=%d bits=0x%08x\n",
               kind, tname<A>(), tname<B>(), tname<C>(), M, N, major_name(AM), major_name(BM), int(NA), int(NB),
               int(SAT), int(SPARSE), unsigned(sparse_id), int(SHIFT), unsigned(rt >> 32));
}

// Every (M, N) of a sweep, both majors of A and B (MN-major only where `mn`).
template <class A, class B, class C, int M, int... Ns> void idesc_shapes(const char* kind, bool mn) {
  constexpr auto K = UMMA::Major::K, MNm = UMMA::Major::MN;
  (idesc<A, B, C, M, Ns, K, K>(kind), ...);
  if (mn) {
    (idesc<A, B, C, M, Ns, MNm, K>(kind), ...);
    (idesc<A, B, C, M, Ns, K, MNm>(kind), ...);
    (idesc<A, B, C, M, Ns, MNm, MNm>(kind), ...);
  }
}

template <class A, class B, class C> void idesc_types(const char* kind, bool mn, bool i8 = false) {
  if (i8) {  // kind::i8 takes N = 8, 16, 24 or multiples of 16 (cta_group::1), 32 (::2)
    idesc_shapes<A, B, C, 64, 8, 16, 24, 32, 48, 144, 256>(kind, mn);
    idesc_shapes<A, B, C, 128, 8, 24, 64, 112, 256>(kind, mn);
    idesc_shapes<A, B, C, 256, 32, 64, 160, 256>(kind, mn);
  } else {
    idesc_shapes<A, B, C, 64, 8, 16, 24, 40, 136, 248, 256>(kind, mn);
    idesc_shapes<A, B, C, 128, 8, 56, 128, 200, 256>(kind, mn);
    idesc_shapes<A, B, C, 256, 16, 48, 128, 240, 256>(kind, mn);
  }
}

template <int... Ns> void idesc_n_sweep() {  // every N of cta_group::1 with M = 128
  (idesc<bfloat16_t, bfloat16_t, float, 128, Ns, UMMA::Major::K, UMMA::Major::K>("f16"), ...);
}

static void instr_descriptors() {
  using E2M1 = detail::float_e2m1_unpacksmem_t;
  constexpr auto K = UMMA::Major::K, MNm = UMMA::Major::MN;
  constexpr auto Neg = UMMA::ScaleIn::Neg, One = UMMA::ScaleIn::One;
  idesc_types<half_t, half_t, float>("f16", true);
  idesc_types<half_t, half_t, half_t>("f16", true);
  idesc_types<bfloat16_t, bfloat16_t, float>("f16", true);
  idesc_types<tfloat32_t, tfloat32_t, float>("tf32", true);
  idesc_types<float_e4m3_t, float_e4m3_t, float>("f8f6f4", true);
  idesc_types<float_e4m3_t, float_e5m2_t, half_t>("f8f6f4", true);
  idesc_types<float_e5m2_t, float_e4m3_t, float>("f8f6f4", true);
  idesc_types<float_e2m3_t, float_e3m2_t, float>("f8f6f4", false);
  idesc_types<E2M1, float_e4m3_t, half_t>("f8f6f4", false);
  idesc_types<float_e3m2_t, E2M1, float>("f8f6f4", false);
  idesc_types<int8_t, int8_t, int32_t>("i8", true, true);
  idesc_types<uint8_t, int8_t, int32_t>("i8", true, true);
  idesc_types<uint8_t, uint8_t, int32_t>("i8", false, true);
  idesc_n_sweep<8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 128, 136, 144, 152, 160, 168, 176, 184,
                192, 200, 208, 216, 224, 232, 240, 248, 256>();
  // negate A / B (not kind::i8)
  idesc<half_t, half_t, float, 128, 64, K, K, Neg, One>("f16");
  idesc<bfloat16_t, bfloat16_t, float, 128, 64, K, MNm, One, Neg>("f16");
  idesc<tfloat32_t, tfloat32_t, float, 64, 32, MNm, K, Neg, Neg>("tf32");
  idesc<float_e4m3_t, float_e5m2_t, float, 256, 128, K, K, Neg, Neg>("f8f6f4");
  idesc<float_e2m3_t, E2M1, half_t, 128, 96, K, K, One, Neg>("f8f6f4");
  // saturate (kind::i8 only)
  idesc<int8_t, int8_t, int32_t, 128, 128, K, K, One, One, UMMA::Saturate::True>("i8");
  idesc<uint8_t, int8_t, int32_t, 256, 256, MNm, K, One, One, UMMA::Saturate::True>("i8");
  idesc<int8_t, uint8_t, int32_t, 64, 24, K, MNm, One, One, UMMA::Saturate::True>("i8");
  // sparse (tcgen05.mma.sp), with the metadata selector where the kind takes one
  for (uint16_t id = 0; id < 4; ++id) {
    idesc<half_t, half_t, float, 128, 128, K, K, One, One, UMMA::Saturate::False, true>("f16", id);
    idesc<bfloat16_t, bfloat16_t, float, 256, 64, MNm, MNm, One, One, UMMA::Saturate::False, true>("f16", id);
    idesc<tfloat32_t, tfloat32_t, float, 64, 256, K, K, Neg, One, UMMA::Saturate::False, true>("tf32", id);
  }
  idesc<float_e4m3_t, float_e4m3_t, float, 128, 64, K, K, One, One, UMMA::Saturate::False, true>("f8f6f4");
  idesc<int8_t, int8_t, int32_t, 128, 64, K, K, One, One, UMMA::Saturate::True, true>("i8");
  // tcgen05.mma.ws: M = 32, 64, 128; N = 64, 128, 256; the maximum B shift
  idesc<bfloat16_t, bfloat16_t, float, 32, 64, K, K, One, One, UMMA::Saturate::False, false, UMMA::MaxShift::MaxShift8>("f16");
  idesc<half_t, half_t, half_t, 64, 128, K, MNm, One, One, UMMA::Saturate::False, false, UMMA::MaxShift::MaxShift16>("f16");
  idesc<tfloat32_t, tfloat32_t, float, 128, 256, K, K, One, One, UMMA::Saturate::False, false, UMMA::MaxShift::MaxShift32>("tf32");
  idesc<int8_t, int8_t, int32_t, 32, 256, K, K, One, One, UMMA::Saturate::False, false, UMMA::MaxShift::MaxShift32>("i8");
  idesc<float_e4m3_t, float_e4m3_t, float, 128, 64, K, K, One, One, UMMA::Saturate::False, false, UMMA::MaxShift::NoShift>("f8f6f4");
}

// ---------------------------------------------------------------- block-scaled instruction descriptors

template <class A, class B, class SF, int M, int N, UMMA::Major AM, UMMA::Major BM,
          UMMA::ScaleIn NA = UMMA::ScaleIn::One, UMMA::ScaleIn NB = UMMA::ScaleIn::One, bool SPARSE = false>
void idesc_bs(const char* kind, const char* vec, uint32_t sfa_id = 0, uint32_t sfb_id = 0) {
  auto d = UMMA::make_instr_desc_block_scaled<A, B, float, SF, M, N, AM, BM, NA, NB, SPARSE>();
  // The scale-factor IDs are the top two bits of the scale factors' tensor-memory addresses.
  const uint64_t rt = UMMA::make_runtime_instr_desc_block_scaled<SPARSE>(d, sfa_id << 30, sfb_id << 30);
  std::fprintf(out,
               "idesc_bs kind=%s vec=%s a=%s b=%s scale=%s m=%d n=%d major_a=%s major_b=%s negate_a=%d negate_b=%d "
               "sparse=%d sfa_id=%u sfb_id=%u bits=0x%08x\n",
               kind, vec, tname<A>(), tname<B>(), tname<SF>(), M, N, major_name(AM), major_name(BM), int(NA),
               int(NB), int(SPARSE), sfa_id, sfb_id, unsigned(rt >> 32));
}

template <class A, class B, class SF, int M, int... Ns>
void idesc_bs_shapes(const char* kind, const char* vec, bool mn, uint32_t ids) {
  constexpr auto K = UMMA::Major::K, MNm = UMMA::Major::MN;
  for (uint32_t a = 0; a < 4; a += ids)
    for (uint32_t b = 0; b < 4; b += ids) (idesc_bs<A, B, SF, M, Ns, K, K>(kind, vec, a, b), ...);
  if (mn) {
    (idesc_bs<A, B, SF, M, Ns, MNm, K>(kind, vec), ...);
    (idesc_bs<A, B, SF, M, Ns, K, MNm>(kind, vec), ...);
  }
}

static void block_scaled_descriptors() {
  using E2M1u = detail::float_e2m1_unpacksmem_t;
  constexpr auto K = UMMA::Major::K;
  constexpr auto Neg = UMMA::ScaleIn::Neg, One = UMMA::ScaleIn::One;
  // kind::mxf8f6f4 (.scale_vec::1X: scale factor IDs 0-3)
  idesc_bs_shapes<float_e4m3_t, float_e4m3_t, float_ue8m0_t, 128, 8, 64, 248, 256>("mxf8f6f4", "1X", true, 1);
  idesc_bs_shapes<float_e5m2_t, float_e4m3_t, float_ue8m0_t, 256, 16, 128, 256>("mxf8f6f4", "1X", true, 3);
  idesc_bs_shapes<float_e2m3_t, E2M1u, float_ue8m0_t, 128, 32, 256>("mxf8f6f4", "1X", false, 3);
  idesc_bs_shapes<E2M1u, float_e3m2_t, float_ue8m0_t, 256, 64, 192>("mxf8f6f4", "1X", false, 3);
  // kind::mxf4 (.scale_vec::2X: IDs 0 or 2)
  idesc_bs_shapes<float_e2m1_t, float_e2m1_t, float_ue8m0_t, 128, 8, 128, 256>("mxf4", "2X", false, 2);
  idesc_bs_shapes<float_e2m1_t, float_e2m1_t, float_ue8m0_t, 256, 16, 256>("mxf4", "2X", false, 2);
  // kind::mxf4nvf4 (.scale_vec::4X: ID 0; ue4m3 or ue8m0 factors; 2X with ue8m0)
  idesc_bs_shapes<float_e2m1_t, float_e2m1_t, float_ue4m3_t, 128, 8, 128, 256>("mxf4nvf4", "4X", false, 4);
  idesc_bs_shapes<float_e2m1_t, float_e2m1_t, float_ue4m3_t, 256, 32, 256>("mxf4nvf4", "4X", false, 4);
  idesc_bs_shapes<float_e2m1_t, float_e2m1_t, float_ue8m0_t, 128, 64, 256>("mxf4nvf4", "4X", false, 4);
  idesc_bs_shapes<float_e2m1_t, float_e2m1_t, float_ue8m0_t, 256, 128>("mxf4nvf4", "2X", false, 2);
  // negate, sparse
  idesc_bs<float_e4m3_t, float_e5m2_t, float_ue8m0_t, 128, 64, K, K, Neg, One>("mxf8f6f4", "1X", 1, 2);
  idesc_bs<float_e2m1_t, float_e2m1_t, float_ue8m0_t, 128, 64, K, K, One, Neg>("mxf4", "2X", 2, 0);
  idesc_bs<float_e2m1_t, float_e2m1_t, float_ue4m3_t, 256, 256, K, K, Neg, Neg>("mxf4nvf4", "4X");
  idesc_bs<float_e4m3_t, float_e4m3_t, float_ue8m0_t, 128, 128, K, K, One, One, true>("mxf8f6f4", "1X", 3, 1);
  idesc_bs<float_e2m1_t, float_e2m1_t, float_ue8m0_t, 256, 256, K, K, One, One, true>("mxf4", "2X");
}

// ---------------------------------------------------------------- TMA

// The last arguments CuTe passed to the driver.
static struct {
  CUtensorMapDataType type;
  cuuint32_t rank;
  cuuint64_t dims[5], strides[4];
  cuuint32_t box[5], estr[5];
  CUtensorMapInterleave interleave;
  CUtensorMapSwizzle swizzle;
  CUtensorMapL2promotion l2;
  CUtensorMapFloatOOBfill oob;
} tma_call;

extern "C" CUresult CUDAAPI cuTensorMapEncodeTiled(CUtensorMap*, CUtensorMapDataType type, cuuint32_t rank, void*,
                                                   const cuuint64_t* dims, const cuuint64_t* strides,
                                                   const cuuint32_t* box, const cuuint32_t* estr,
                                                   CUtensorMapInterleave il, CUtensorMapSwizzle sw,
                                                   CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob) {
  tma_call.type = type, tma_call.rank = rank, tma_call.interleave = il, tma_call.swizzle = sw, tma_call.l2 = l2,
  tma_call.oob = oob;
  for (cuuint32_t i = 0; i < rank; ++i) {
    tma_call.dims[i] = dims[i], tma_call.box[i] = box[i], tma_call.estr[i] = estr[i];
    if (i + 1 < rank) tma_call.strides[i] = strides[i];
  }
  return CUDA_SUCCESS;
}

template <class V> static void list(const char* key, const V* v, int n) {
  std::fprintf(out, " %s=", key);
  for (int i = 0; i < n; ++i) std::fprintf(out, "%s%llu", i ? "," : "", (unsigned long long)v[i]);
}

// A rows x cols matrix (K-major: rows = M, K contiguous; MN-major: M contiguous) loaded in
// BM x BK tiles with the canonical smem atom of the swizzle.
template <class T, bool KMajor, int SW, int BM, int BK> void tma(int rows, int cols) {
  auto g = make_layout(make_shape(rows, cols), KMajor ? make_stride(cols, 1) : make_stride(1, rows));
  Tensor gt = make_tensor(make_gmem_ptr(reinterpret_cast<T*>(uintptr_t(0x10000))), g);
  auto sl = tile_to_shape(atom<T, KMajor, SW>(), Shape<Int<BM>, Int<BK>>{});
  tma_call = {};
  auto copy = make_tma_copy(SM90_TMA_LOAD{}, gt, sl);
  (void)copy;
  std::fprintf(out, "tma major=%s swizzle=%s type=%s rows=%d cols=%d tile_m=%d tile_k=%d", KMajor ? "K" : "MN",
               SW == 0 ? "none" : SW == 32 ? "32B" : SW == 64 ? "64B" : SW == 128 ? "128B" : "128B_base32B",
               tname<T>(), rows, cols, BM, BK);
  const int r = int(tma_call.rank);
  std::fprintf(out, " dtype=%d rank=%d", int(tma_call.type), r);
  list("dims", tma_call.dims, r);
  list("strides", tma_call.strides, r - 1);
  list("box", tma_call.box, r);
  list("element_strides", tma_call.estr, r);
  std::fprintf(out, " interleave=%d swizzle_code=%d l2=%d oob=%d\n", int(tma_call.interleave), int(tma_call.swizzle),
               int(tma_call.l2), int(tma_call.oob));
}

// Tiles whose contiguous extent is one swizzle span (a 2-D box), for each element size.
template <class T> void tma_types() {
  constexpr int e = sizeof(T);
  tma<T, true, 128, 128, 128 / e>(1024, 4096 / e);
  tma<T, true, 128, 64, 128 / e>(512, 1024 / e);
  tma<T, true, 64, 256, 64 / e>(768, 2048 / e);
  tma<T, true, 32, 64, 32 / e>(256, 512 / e);
  tma<T, false, 128, 128 / e, 64>(4096 / e, 512);
  tma<T, false, 64, 64 / e, 32>(1024 / e, 96);
  tma<T, false, 32, 32 / e, 16>(512 / e, 64);
  if constexpr (e <= 4) tma<T, false, 1281, 128 / e, 32>(2048 / e, 256);  // 128B swizzle, 32-byte atoms
}

static void tma_maps() {
  tma_types<half_t>();
  tma_types<bfloat16_t>();
  tma_types<tfloat32_t>();
  tma_types<float>();
  tma_types<float_e4m3_t>();
  tma_types<int8_t>();
  tma_types<int32_t>();
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT\n", argv[0]);
    return 2;
  }
  out = std::fopen(argv[1], "w");
  if (!out) return 1;
  wgmma_raw();
  umma_raw();
  smem_layouts();
  instr_descriptors();
  block_scaled_descriptors();
  tma_maps();
  return std::fclose(out) == 0 ? 0 : 1;
}
