// Attention on the host, for checking flash_attn_sm90: f32 math on the bf16 inputs, one row at a
// time (the plain softmax, not the online one: an independent computation).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "bf16_host.hpp"

namespace examples {

// Row `i` of head `bh` (b * H + h) of Q, K, V (bf16 [B*H, S, D]): o (D values) and the
// logsumexp of the scaled scores (natural log). Keys j > i are left out when causal.
inline void attention_row_reference(const std::vector<uint16_t>& q, const std::vector<uint16_t>& k, const std::vector<uint16_t>& v,
                                    int64_t S, int64_t D, int64_t bh, int64_t i, float scale, bool causal, float* o, float* lse) {
  const int64_t keys = causal ? i + 1 : S;
  const size_t head = static_cast<size_t>(bh * S * D);
  std::vector<float> p(static_cast<size_t>(keys));
  float mx = -std::numeric_limits<float>::infinity();
  for (int64_t j = 0; j < keys; ++j) {
    float dot = 0;
    for (int64_t d = 0; d < D; ++d)
      dot += from_bf16(q[head + static_cast<size_t>(i * D + d)]) * from_bf16(k[head + static_cast<size_t>(j * D + d)]);
    p[static_cast<size_t>(j)] = dot * scale;
    mx = std::max(mx, p[static_cast<size_t>(j)]);
  }
  float sum = 0;
  for (float& x : p) sum += (x = std::exp(x - mx));
  for (int64_t d = 0; d < D; ++d) {
    float acc = 0;
    for (int64_t j = 0; j < keys; ++j) acc += p[static_cast<size_t>(j)] * from_bf16(v[head + static_cast<size_t>(j * D + d)]);
    o[d] = acc / sum;
  }
  if (lse) *lse = mx + std::log(sum);
}

}  // namespace examples
