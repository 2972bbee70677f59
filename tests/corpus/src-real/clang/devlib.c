/* A small device library in plain C, compiled for nvptx64-nvidia-cuda: only
 * .visible .func definitions (no kernels), with by-value structs, a global table,
 * varargs-free helpers and a loop-heavy function, as a linkable PTX module. */
/* no libc headers on this target: fixed-width types from the compiler */
typedef __UINT8_TYPE__ uint8_t;
typedef __UINT32_TYPE__ uint32_t;
typedef __INT64_TYPE__ int64_t;

typedef struct { float re, im; } cplx;

const float kPoly[6] = {1.0f, 0.5f, 0.16666667f, 0.041666668f, 0.008333334f, 0.0013888889f};

float poly_exp(float x) {
  float r = kPoly[5];
  for (int i = 4; i >= 0; --i) r = r * x + kPoly[i];
  return r;
}

cplx cmul(cplx a, cplx b) {
  cplx r = {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
  return r;
}

uint32_t crc32_update(uint32_t crc, const uint8_t* p, int n) {
  crc = ~crc;
  for (int i = 0; i < n; ++i) {
    crc ^= p[i];
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

int64_t gcd64(int64_t a, int64_t b) {
  while (b != 0) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a < 0 ? -a : a;
}

double horner_d(const double* c, int n, double x) {
  double r = 0;
  for (int i = n - 1; i >= 0; --i) r = __nvvm_fma_rn_d(r, x, c[i]);
  return r;
}
