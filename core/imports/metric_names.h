// Which of other tools' metric names mean TrainDeck's own loss, val loss, lr and grad norm.
// Only names whose meaning is clear are mapped; every other name stays a scalar of its own.
#pragma once

#include <string_view>

namespace traindeck {

enum class KnownMetric { None, Loss, ValLoss, Lr, GradNorm };

KnownMetric knownMetric(std::string_view name);

}  // namespace traindeck
