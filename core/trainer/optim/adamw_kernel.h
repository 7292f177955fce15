// The AdamW update of a range of one fp32 parameter's elements, as plain loops over its four
// arrays. Kept apart from Torch so that its file can be compiled for vector instructions
// (see core/trainer/CMakeLists.txt): the update is most of the optimizer's time on a CPU.
#pragma once

#include <cstdint>

namespace traindeck {

struct AdamWFactors {  // the per-step scalars of the update, as host numbers
  float w1, w2, decayFactor, stepSize, sqrtCorrection2, eps;
};

// Elements [begin, end): a non-finite g becomes 0 (and is written back);
// m ← m + w1·(g − m); v ← v + w2·(g² − v); p ← p·decay + m·stepSize / (√v / sqrtCorrection2 + ε),
// with decay = decayFactor when `decay`, else 1.
void adamwUpdateRange(float* p, float* g, float* m, float* v, std::int64_t begin, std::int64_t end,
                      const AdamWFactors& f, bool decay);

}  // namespace traindeck
