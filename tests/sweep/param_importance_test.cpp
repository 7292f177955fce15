// mainEffectImportance on synthetic sweeps whose answer is known: a metric of one parameter
// only, of two in equal parts, of a list's value, plus the cases it must refuse to judge.
#include <gtest/gtest.h>

#include <cmath>

#include "sweep/param_importance.h"
#include "sweep/seeded_uniform.h"

namespace traindeck {
namespace {

// n draws in [0, 1), reproducible: the sweep library's own counter-based generator.
std::vector<double> uniform(int n, std::uint64_t seed) {
  std::vector<double> out;
  for (int i = 0; i < n; ++i) out.push_back(seededUniform(seed, static_cast<std::uint64_t>(i), 1));
  return out;
}

TEST(ParamImportance, MetricOfOneParameterOnlyGivesItAllOfTheVariance) {
  const std::vector<double> a = uniform(120, 1), b = uniform(120, 2);
  std::vector<double> metric;
  for (double x : a) metric.push_back(3.0 - 2.0 * x);
  const auto importance = mainEffectImportance({{a}, {b}}, metric);
  ASSERT_EQ(importance.size(), 2u);
  EXPECT_GT(importance[0].fraction, 0.9);  // 5 quantile bins of a uniform: 1 - 1/25 = 0.96
  EXPECT_LT(importance[1].fraction, 0.05);
  EXPECT_EQ(importance[0].groups, kMaxImportanceBins);
}

TEST(ParamImportance, LogScaleRangeBinsByQuantileSoTheScaleDoesNotMatter) {
  std::vector<double> lr, metric;
  for (double u : uniform(80, 3)) {
    lr.push_back(std::pow(10.0, -5 + 3 * u));  // 1e-5 .. 1e-2, log-uniform
    metric.push_back(std::pow(std::log10(lr.back()) + 3.5, 2));
  }
  std::vector<double> log10lr;
  for (double v : lr) log10lr.push_back(std::log10(v));
  const double raw = mainEffectImportance({{lr}}, metric)[0].fraction;
  EXPECT_DOUBLE_EQ(raw, mainEffectImportance({{log10lr}}, metric)[0].fraction);
  EXPECT_GT(raw, 0.7);  // a parabola in log(lr), seen through 5 bins
}

TEST(ParamImportance, TwoParametersInEqualPartsShareTheVariance) {
  const std::vector<double> a = uniform(400, 4), b = uniform(400, 5);
  std::vector<double> metric;
  for (std::size_t i = 0; i < a.size(); ++i) metric.push_back(a[i] + b[i]);
  const auto importance = mainEffectImportance({{a}, {b}}, metric);
  EXPECT_NEAR(importance[0].fraction, 0.5, 0.1);
  EXPECT_NEAR(importance[1].fraction, 0.5, 0.1);
  EXPECT_LE(importance[0].fraction + importance[1].fraction, 1.0);
}

TEST(ParamImportance, ListsGroupByValueAndNotSetIsAGroup) {
  // decay: 0 (cosine) or 1 (linear); min_lr set only for cosine. The metric is the decay's.
  std::vector<double> decay, minLr, metric;
  const std::vector<double> noise = uniform(40, 6);
  for (int i = 0; i < 40; ++i) {
    decay.push_back(i % 2);
    minLr.push_back(i % 2 == 0 ? (i % 4 == 0 ? 0.0 : 3e-5) : std::nan(""));
    metric.push_back(2.0 + (i % 2) + 0.01 * noise[static_cast<std::size_t>(i)]);
  }
  const auto importance = mainEffectImportance({{decay, true}, {minLr, true}}, metric);
  EXPECT_EQ(importance[0].groups, 2);
  EXPECT_GT(importance[0].fraction, 0.99);
  // min_lr's groups (0, 3e-5, not set) split by decay too: it explains as much, and says so.
  EXPECT_EQ(importance[1].groups, 3);
  EXPECT_GT(importance[1].fraction, 0.99);
}

TEST(ParamImportance, NoEffectReadsAboutZeroNotTheChanceLevel) {
  // 12 trials in 4 groups: uncorrected, noise alone explains (k-1)/(N-1) = 27% on average.
  // Corrected it is 0 on average before clipping, so about half the sweeps read exactly 0.
  double sum = 0;
  int zeros = 0;
  for (std::uint64_t seed = 10; seed < 60; ++seed) {
    std::vector<double> list, metric = uniform(12, seed + 100);
    for (int i = 0; i < 12; ++i) list.push_back(i % 4);
    const double f = mainEffectImportance({{list, true}}, metric)[0].fraction;
    sum += f;
    zeros += f == 0 ? 1 : 0;
  }
  EXPECT_LT(sum / 50, 0.2);
  EXPECT_GE(zeros, 15);
}

TEST(ParamImportance, RefusesWhatItCannotTell) {
  const std::vector<double> a{1, 2, 3, 4, 5, 6};
  EXPECT_TRUE(std::isnan(mainEffectImportance({{a}}, {1, 1, 1, 1, 1, 1})[0].fraction));        // no variance
  EXPECT_TRUE(std::isnan(mainEffectImportance({{a, true}}, {1, 2, 3, 4, 5, 6})[0].fraction));  // 6 groups of one
  // NaN metrics are left out: 2 trials are too few.
  const double nan = std::nan("");
  EXPECT_TRUE(std::isnan(mainEffectImportance({{a}}, {1, 2, nan, nan, nan, nan})[0].fraction));
  // A column of the wrong length is not judged.
  EXPECT_TRUE(std::isnan(mainEffectImportance({{{1, 2}}}, {1, 2, 3, 4, 5, 6})[0].fraction));
}

}  // namespace
}  // namespace traindeck
