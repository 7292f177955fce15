// The table of docs/compare.md ("Names"). Exact, case-sensitive matches: "Loss/train" or
// "val_acc" are someone's own names and are kept as they are.
#include "imports/metric_names.h"

#include <array>
#include <utility>

namespace traindeck {

KnownMetric knownMetric(std::string_view name) {
  static constexpr std::array<std::pair<std::string_view, KnownMetric>, 18> kNames = {{
      {"loss", KnownMetric::Loss},
      {"train/loss", KnownMetric::Loss},
      {"trl", KnownMetric::Loss},         // llm.c
      {"train_loss", KnownMetric::Loss},  // Lightning's examples
      {"epoch_loss", KnownMetric::Loss},  // Keras's TensorBoard callback, train/
      {"train/epoch_loss", KnownMetric::Loss},
      {"eval_loss", KnownMetric::ValLoss},  // Hugging Face Trainer
      {"eval/loss", KnownMetric::ValLoss},  // its TensorBoard and W&B callbacks
      {"val/loss", KnownMetric::ValLoss},
      {"val_loss", KnownMetric::ValLoss},  // Keras, Lightning, TrainDeck
      {"tel", KnownMetric::ValLoss},       // llm.c
      {"validation/epoch_loss", KnownMetric::ValLoss},
      {"learning_rate", KnownMetric::Lr},
      {"train/learning_rate", KnownMetric::Lr},
      {"lr", KnownMetric::Lr},
      {"grad_norm", KnownMetric::GradNorm},
      {"train/grad_norm", KnownMetric::GradNorm},
      {"norm", KnownMetric::GradNorm},  // llm.c
  }};
  for (const auto& [known, metric] : kNames)
    if (known == name) return metric;
  return KnownMetric::None;
}

}  // namespace traindeck
