// Built with -fno-math-errno -fno-trapping-math -ffp-contract=off (core/trainer/CMakeLists.txt):
// the first two let GCC turn the loop's sqrt and isfinite into vector instructions (without them
// it stays scalar); the third keeps a*b+c as two roundings on every clone, so each clone gives
// the bits the scalar loop gives. One clone per vector level, chosen when the program loads.
#include "adamw_kernel.h"

#include <cmath>

namespace traindeck {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TRAINDECK_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define TRAINDECK_VECTOR_CLONES
#endif

TRAINDECK_VECTOR_CLONES void adamwUpdateRange(float* __restrict p, float* __restrict g, float* __restrict m,
                                              float* __restrict v, std::int64_t begin, std::int64_t end,
                                              const AdamWFactors& f, bool decay) {
  const float decayFactor = decay ? f.decayFactor : 1.0f;
  const AdamWFactors k = f;  // by value: the loop reads no memory the arrays could alias
  for (std::int64_t i = begin; i < end; ++i) {
    const float gi = std::isfinite(g[i]) ? g[i] : 0.0f;
    g[i] = gi;
    const float mi = m[i] + k.w1 * (gi - m[i]);
    const float vi = v[i] + k.w2 * (gi * gi - v[i]);
    m[i] = mi;
    v[i] = vi;
    const float denom = std::sqrt(vi) / k.sqrtCorrection2 + k.eps;
    p[i] = p[i] * decayFactor + (mi * k.stepSize) / denom;
  }
}

}  // namespace traindeck
