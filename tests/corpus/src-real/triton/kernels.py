"""Triton kernels written for the ptxpp corpus (tests/corpus/triton).

Each kernel exercises one area of Triton's NVPTX code generation; build.py
holds the table of signatures, constants and targets they are compiled for.
"""
import triton
import triton.language as tl
from triton.language.extra.cuda import libdevice


@triton.jit
def vector_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@triton.jit
def activations(x_ptr, gelu_ptr, silu_ptr, tanh_ptr, n, BLOCK: tl.constexpr):
    # fp16 in, fp32 math, fp16 out: erf-GELU, SiLU and tanh through libdevice
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    gelu = 0.5 * x * (1.0 + libdevice.erf(x * 0.7071067811865476))
    silu = x * tl.sigmoid(x)
    tl.store(gelu_ptr + offs, gelu.to(tl.float16), mask=mask)
    tl.store(silu_ptr + offs, silu.to(tl.float16), mask=mask)
    tl.store(tanh_ptr + offs, libdevice.tanh(x).to(tl.float16), mask=mask)


@triton.jit
def math_mix(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # fast and precise transcendental forms, rounding, clamps, fp64 accumulation
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    a = tl.exp(x) + tl.log(tl.abs(x) + 1.0) + tl.sqrt(tl.abs(x)) + tl.rsqrt(x * x + 1.0)
    b = tl.sin(x) * tl.cos(x) + tl.exp2(-x) + tl.log2(x * x + 2.0)
    c = libdevice.pow(tl.abs(x), 1.5) + libdevice.atan2(x, 2.0) + libdevice.fmod(x, 3.0)
    d = tl.floor(x) + tl.ceil(x) + libdevice.rint(x) + tl.clamp(x, -2.0, 2.0)
    e = tl.fma(x, a, b) + tl.div_rn(c, d + 7.0) + tl.sqrt_rn(a)
    acc = e.to(tl.float64) * 1.0000001
    tl.store(out_ptr + offs, acc.to(tl.float32), mask=mask)


@triton.jit
def int_ops(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=1)
    b = tl.load(b_ptr + offs, mask=mask, other=1)
    b = tl.where(b == 0, 1, b)
    r = (a // b) + (a % b) + (a << 3) + (a >> 2) + (a & b) + (a | b) + (a ^ b)
    r += tl.umulhi(a.to(tl.uint32), b.to(tl.uint32)).to(tl.int32)
    r += libdevice.popc(a) + libdevice.clz(b) + libdevice.brev(a)
    r += tl.maximum(a, b) - tl.minimum(a, b)
    wide = a.to(tl.int64) * b.to(tl.int64)
    tl.store(out_ptr + offs, r.to(tl.int64) + (wide >> 7), mask=mask)


@triton.jit
def softmax(out_ptr, in_ptr, in_stride, out_stride, n_rows, n_cols, BLOCK: tl.constexpr):
    # one program per group of rows (grid-stride over rows)
    start = tl.program_id(0)
    step = tl.num_programs(0)
    for row in tl.range(start, n_rows, step):
        cols = tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
        x = x - tl.max(x, axis=0)
        num = tl.exp(x)
        y = num / tl.sum(num, axis=0)
        tl.store(out_ptr + row * out_stride + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def layernorm_fwd(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, stride, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_ptr += row * stride
    y_ptr += row * stride
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / n_cols
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        x = tl.where(cols < n_cols, x - mean, 0.0)
        acc += x * x
    rstd = 1 / tl.sqrt(tl.sum(acc, axis=0) / n_cols + eps)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        mask = cols < n_cols
        w = tl.load(w_ptr + cols, mask=mask)
        b = tl.load(b_ptr + cols, mask=mask)
        x = tl.load(x_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_ptr + cols, ((x - mean) * rstd * w + b).to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def layernorm_bwd_dx(dy_ptr, x_ptr, w_ptr, mean_ptr, rstd_ptr, dx_ptr, dw_ptr, lock_ptr, stride, n_cols,
                     GROUP: tl.constexpr, BLOCK: tl.constexpr):
    # dx per row, partial dw accumulated under a spin lock (atomic_cas / atomic_xchg)
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0).to(tl.float32)
    dy = tl.load(dy_ptr + row * stride + cols, mask=mask, other=0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask).to(tl.float32)
    mean = tl.load(mean_ptr + row)
    rstd = tl.load(rstd_ptr + row)
    xhat = tl.where(mask, (x - mean) * rstd, 0.0)
    wdy = tl.where(mask, w * dy, 0.0)
    c1 = tl.sum(xhat * wdy, axis=0) / n_cols
    c2 = tl.sum(wdy, axis=0) / n_cols
    tl.store(dx_ptr + row * stride + cols, ((wdy - (xhat * c1 + c2)) * rstd).to(dx_ptr.dtype.element_ty), mask=mask)
    group = row % GROUP
    lock = lock_ptr + group
    count = lock_ptr + GROUP + group
    while tl.atomic_cas(lock, 0, 1) == 1:
        pass
    dw = (dy * xhat).to(w.dtype)
    if tl.load(count) == 0:
        tl.atomic_xchg(count, 1)
    else:
        dw += tl.load(dw_ptr + group * n_cols + cols, mask=mask)
    tl.store(dw_ptr + group * n_cols + cols, dw, mask=mask)
    tl.debug_barrier()
    tl.atomic_xchg(lock, 0)


@triton.jit
def rmsnorm(x_ptr, w_ptr, y_ptr, stride, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
    rms = tl.rsqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=mask, cache_modifier=".ca")
    tl.store(y_ptr + row * stride + cols, (x * rms * w).to(y_ptr.dtype.element_ty), mask=mask,
             cache_modifier=".cs")


@triton.jit
def row_reductions(x_ptr, sum_ptr, max_ptr, argmax_ptr, min_ptr, prod_ptr, M, N,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=mask, other=0.0)
    rmask = rows < M
    tl.store(sum_ptr + rows, tl.sum(x, axis=1), mask=rmask)
    tl.store(max_ptr + rows, tl.max(x, axis=1), mask=rmask)
    tl.store(argmax_ptr + rows, tl.argmax(x, axis=1), mask=rmask)
    tl.store(min_ptr + rows, tl.min(tl.where(mask, x, float("inf")), axis=1), mask=rmask)
    tl.store(prod_ptr + rows, tl.reduce(tl.where(mask, x, 1.0), 1, _mul_combine), mask=rmask)


@triton.jit
def _mul_combine(a, b):
    return a * b


@triton.jit
def _welford_combine(mean_a, m2_a, n_a, mean_b, m2_b, n_b):
    n = n_a + n_b
    delta = mean_b - mean_a
    frac = tl.where(n == 0, 0.0, n_b / n)
    return mean_a + delta * frac, m2_a + m2_b + delta * delta * n_a * frac, n


@triton.jit
def welford_col_stats(x_ptr, mean_ptr, var_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # column statistics over all rows with a three-value custom reduction
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    mean = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    m2 = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    cnt = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    for m0 in range(0, M, BLOCK_M):
        rows = m0 + tl.arange(0, BLOCK_M)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=mask, other=0.0)
        one = mask.to(tl.float32)
        mean, m2, cnt = _welford_combine(mean, m2, cnt, x, tl.zeros_like(x), one)
    mean, m2, cnt = tl.reduce((mean, m2, cnt), 0, _welford_combine)
    tl.store(mean_ptr + cols, mean, mask=cols < N)
    tl.store(var_ptr + cols, m2 / tl.maximum(cnt, 1.0), mask=cols < N)


@triton.jit
def scans(x_ptr, cumsum_ptr, cumprod_ptr, cummax_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + tl.program_id(0) * n + offs, mask=mask, other=0)
    tl.store(cumsum_ptr + tl.program_id(0) * n + offs, tl.cumsum(x, 0), mask=mask)
    tl.store(cumprod_ptr + tl.program_id(0) * n + offs, tl.cumprod(x | 1, 0), mask=mask)
    tl.store(cummax_ptr + tl.program_id(0) * n + offs, tl.associative_scan(x, 0, _max_combine), mask=mask)


@triton.jit
def _max_combine(a, b):
    return tl.maximum(a, b)


@triton.jit
def sort_topk(x_ptr, sorted_ptr, top_ptr, N: tl.constexpr, K: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + row * N + offs)
    tl.store(sorted_ptr + row * N + offs, tl.sort(x, descending=False))
    tl.store(top_ptr + row * K + tl.arange(0, K), tl.topk(x, K))


@triton.jit
def histogram_atomics(x_ptr, hist_ptr, stats_ptr, n, BINS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    h = tl.histogram(x % BINS, BINS)
    tl.atomic_add(hist_ptr + tl.arange(0, BINS), h, sem="relaxed")
    tl.atomic_max(stats_ptr + 0, tl.max(x, axis=0), sem="acq_rel", scope="gpu")
    tl.atomic_min(stats_ptr + 1, tl.min(x, axis=0), sem="release", scope="cta")
    tl.atomic_or(stats_ptr + 2, tl.reduce_or(x, axis=0), sem="acquire", scope="sys")
    tl.atomic_and(stats_ptr + 3 + (offs % 4), x, mask=mask)
    tl.atomic_xor(stats_ptr + 7 + (offs % 2), x, mask=mask)


@triton.jit
def atomic_float_scatter(idx_ptr, val_ptr, out32_ptr, out16_ptr, out64_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    idx = tl.load(idx_ptr + offs, mask=mask, other=0)
    v = tl.load(val_ptr + offs, mask=mask, other=0.0)
    tl.atomic_add(out32_ptr + idx, v, mask=mask)
    tl.atomic_add(out16_ptr + idx, v.to(tl.float16), mask=mask)
    tl.atomic_add(out64_ptr + idx, v.to(tl.float64), mask=mask, sem="relaxed")
    old = tl.atomic_xchg(out32_ptr + idx + n, v, mask=mask)
    tl.store(val_ptr + offs, old, mask=mask)


@triton.jit
def dropout(x_ptr, out_ptr, n, p, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    r = tl.rand(seed, offs)
    keep = r > p
    tl.store(out_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=mask)
    noise = tl.randn(seed + 1, offs)
    tl.store(out_ptr + n + offs, x + 0.01 * noise, mask=mask)


@triton.jit
def transpose2d(in_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tile = tl.load(in_ptr + rm[:, None] * N + rn[None, :], mask=mask)
    tl.store(out_ptr + rn[None, :] * M + rm[:, None], tile, mask=mask)
    t = tl.trans(tile)
    tl.store(out_ptr + M * N + rn[:, None] * M + rm[None, :], t, mask=mask.T)


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
           ACC: tl.constexpr, PRECISION: tl.constexpr, RELU: tl.constexpr):
    # grouped tile order for L2 reuse, masked K tail, fused ReLU epilogue
    pid = tl.program_id(0)
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = tl.cdiv(N, BLOCK_N)
    in_group = GROUP_M * num_n
    first_m = (pid // in_group) * GROUP_M
    group_size = min(num_m - first_m, GROUP_M)
    pid_m = first_m + ((pid % in_group) % group_size)
    pid_n = (pid % in_group) // group_size
    rm = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    rn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=ACC)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=rk[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=rk[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc, input_precision=PRECISION, out_dtype=ACC)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    if RELU:
        acc = tl.maximum(acc, 0)
    cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c = acc.to(c_ptr.dtype.element_ty)
    tl.store(c_ptr + cm[:, None] * stride_cm + cn[None, :] * stride_cn, c, mask=(cm[:, None] < M) & (cn[None, :] < N))


@triton.jit
def matmul_splitk(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr, SPLIT_K: tl.constexpr):
    # K split over program_id(1); partial tiles reduced with fp32 atomics
    pid = tl.program_id(0)
    pid_k = tl.program_id(1)
    num_n = tl.cdiv(N, BLOCK_N)
    rm = (pid // num_n) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = (pid % num_n) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = pid_k * BLOCK_K + tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K * SPLIT_K)):
        kk = rk + k * BLOCK_K * SPLIT_K
        a = tl.load(a_ptr + rm[:, None] * K + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + kk[:, None] * N + rn[None, :], mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.atomic_add(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=mask, sem="relaxed")


@triton.jit
def matmul_tma_persistent(a_desc, b_desc, c_desc, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                          BLOCK_K: tl.constexpr, NUM_SMS: tl.constexpr):
    # host-built tensor descriptors (TMA), persistent tile loop over the output
    pid = tl.program_id(0)
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = tl.cdiv(N, BLOCK_N)
    k_tiles = tl.cdiv(K, BLOCK_K)
    for tile in tl.range(pid, num_m * num_n, NUM_SMS, flatten=True):
        off_m = (tile // num_n) * BLOCK_M
        off_n = (tile % num_n) * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for ki in range(k_tiles):
            a = a_desc.load([off_m, ki * BLOCK_K])
            b = b_desc.load([off_n, ki * BLOCK_K])
            acc = tl.dot(a, b.T, acc)
        c_desc.store([off_m, off_n], acc.to(tl.float16))


@triton.jit
def matmul_device_desc(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                       BLOCK_K: tl.constexpr):
    # tensor descriptors made on the device (tensormap in global scratch memory)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BLOCK_K, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    off_m = tl.program_id(0) * BLOCK_M
    off_n = tl.program_id(1) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        acc = tl.dot(a_desc.load([off_m, k]), b_desc.load([k, off_n]), acc)
    c_desc.store([off_m, off_n], acc.to(c_desc.dtype))


@triton.jit
def matmul_scaled_mx(a_ptr, a_scale_ptr, b_ptr, b_scale_ptr, c_ptr, M, N, K,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, FMT: tl.constexpr):
    # microscaled dot (e8m0 scales per 32 elements of K)
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    rs = tl.arange(0, BLOCK_K // 32)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        sa = tl.load(a_scale_ptr + rm[:, None] * (K // 32) + (k // 32 + rs)[None, :])
        sb = tl.load(b_scale_ptr + rn[:, None] * (K // 32) + (k // 32 + rs)[None, :])
        acc = tl.dot_scaled(a, sa, FMT, b, sb, FMT, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.bfloat16))


@triton.jit
def attention_fwd(q_ptr, k_ptr, v_ptr, o_ptr, lse_ptr, seq_len, sm_scale, stride_h, stride_s,
                  HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    # online-softmax attention; one program per (query block, head)
    start_m = tl.program_id(0)
    head = tl.program_id(1).to(tl.int64)
    rm = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rd = tl.arange(0, HEAD_DIM)
    base = head * stride_h
    q = tl.load(q_ptr + base + rm[:, None] * stride_s + rd[None, :], mask=rm[:, None] < seq_len, other=0.0)
    m_i = tl.full([BLOCK_M], -float("inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    qk_scale = sm_scale * 1.44269504
    hi = tl.minimum((start_m + 1) * BLOCK_M, seq_len) if CAUSAL else seq_len
    for start_n in range(0, hi, BLOCK_N):
        rn = start_n + tl.arange(0, BLOCK_N)
        k = tl.load(k_ptr + base + rn[None, :] * stride_s + rd[:, None], mask=rn[None, :] < seq_len, other=0.0)
        qk = tl.dot(q, k) * qk_scale
        valid = rn[None, :] < seq_len
        if CAUSAL:
            valid = valid & (rm[:, None] >= rn[None, :])
        qk = tl.where(valid, qk, -1.0e6)
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + base + rn[:, None] * stride_s + rd[None, :], mask=rn[:, None] < seq_len, other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    acc = acc / l_i[:, None]
    tl.store(lse_ptr + head * seq_len + rm, m_i + tl.math.log2(l_i), mask=rm < seq_len)
    tl.store(o_ptr + base + rm[:, None] * stride_s + rd[None, :], acc.to(o_ptr.dtype.element_ty),
             mask=rm[:, None] < seq_len)


@triton.jit
def cross_entropy(logits_ptr, labels_ptr, loss_ptr, dlogits_ptr, n_cols, stride, ignore_index,
                  BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    label = tl.load(labels_ptr + row)
    cols = tl.arange(0, BLOCK)
    m = -float("inf")
    s = 0.0
    for off in range(0, n_cols, BLOCK):
        x = tl.load(logits_ptr + row * stride + off + cols, mask=off + cols < n_cols, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, 0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), 0)
        m = m_new
    lse = m + tl.log(s)
    target = tl.load(logits_ptr + row * stride + label).to(tl.float32)
    ignored = label == ignore_index
    tl.store(loss_ptr + row, tl.where(ignored, 0.0, lse - target))
    for off in range(0, n_cols, BLOCK):
        mask = off + cols < n_cols
        x = tl.load(logits_ptr + row * stride + off + cols, mask=mask, other=0.0).to(tl.float32)
        g = tl.exp(x - lse) - tl.where(off + cols == label, 1.0, 0.0)
        g = tl.where(ignored, 0.0, g)
        tl.store(dlogits_ptr + row * stride + off + cols, g.to(dlogits_ptr.dtype.element_ty), mask=mask)


@triton.jit
def fp8_quantize(x_ptr, q_ptr, scale_ptr, n, BLOCK: tl.constexpr):
    # per-block absmax scaling to e4m3 and e5m2, and back
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    amax = tl.max(tl.abs(x), 0)
    scale = tl.where(amax > 0, 448.0 / amax, 1.0)
    q = (x * scale).to(tl.float8e4nv, fp_downcast_rounding="rtne")
    tl.store(q_ptr + offs, q, mask=mask)
    tl.store(q_ptr + n + offs, x.to(tl.float8e5, fp_downcast_rounding="rtne").to(tl.float8e4nv, bitcast=True), mask=mask)
    tl.store(scale_ptr + tl.program_id(0), 1.0 / scale)
    back = q.to(tl.float32) / scale
    tl.store(x_ptr + offs, back.to(tl.bfloat16).to(tl.float32), mask=mask)


@triton.jit
def gather_embedding(ids_ptr, table_ptr, out_ptr, pos_ptr, n_tokens, dim, BLOCK_T: tl.constexpr,
                     BLOCK_D: tl.constexpr):
    tok = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    d = tl.arange(0, BLOCK_D)
    ids = tl.load(ids_ptr + tok, mask=tok < n_tokens, other=0).to(tl.int64)
    mask = (tok[:, None] < n_tokens) & (d[None, :] < dim)
    e = tl.load(table_ptr + ids[:, None] * dim + d[None, :], mask=mask, other=0.0)
    p = tl.load(pos_ptr + (tok % 512)[:, None] * dim + d[None, :], mask=mask, other=0.0)
    tl.store(out_ptr + tok[:, None] * dim + d[None, :], e + p, mask=mask)


@triton.jit
def rope(x_ptr, cos_ptr, sin_ptr, out_ptr, seq, HALF: tl.constexpr, BLOCK_S: tl.constexpr):
    # rotary embedding: split/join of the two halves of each head vector
    s = tl.program_id(0) * BLOCK_S + tl.arange(0, BLOCK_S)
    h = tl.arange(0, HALF)
    mask = s[:, None] < seq
    x = tl.load(x_ptr + s[:, None] * (2 * HALF) + tl.arange(0, 2 * HALF)[None, :], mask=mask, other=0.0)
    x1, x2 = tl.split(tl.reshape(x, [BLOCK_S, 2, HALF]).permute(0, 2, 1))
    c = tl.load(cos_ptr + s[:, None] * HALF + h[None, :], mask=mask, other=0.0)
    sn = tl.load(sin_ptr + s[:, None] * HALF + h[None, :], mask=mask, other=0.0)
    y = tl.join(x1 * c - x2 * sn, x1 * sn + x2 * c).permute(0, 2, 1).reshape([BLOCK_S, 2 * HALF])
    tl.store(out_ptr + s[:, None] * (2 * HALF) + tl.arange(0, 2 * HALF)[None, :], y, mask=mask)
