// Lookups on an imported run, and the kinds' names.
#include "imports/imported_run.h"

namespace traindeck {

std::string_view sourceKindName(SourceKind kind) {
  switch (kind) {
    case SourceKind::TrainDeck:
      return "traindeck";
    case SourceKind::TensorBoard:
      return "tensorboard";
    case SourceKind::HfTrainer:
      return "hf-trainer";
    case SourceKind::MlflowStore:
      return "mlflow";
    case SourceKind::MlflowFolder:
      return "mlflow-files";
    case SourceKind::Wandb:
      return "wandb";
    case SourceKind::LightningCsv:
      return "lightning-csv";
    case SourceKind::KerasCsv:
      return "keras-csv";
    case SourceKind::LlmC:
      return "llm.c";
  }
  return "unknown";
}

const ScalarSeries* ImportedRun::scalar(std::string_view wanted) const {
  for (const ScalarSeries& s : scalars)
    if (s.name == wanted) return &s;
  return nullptr;
}

const std::string* ImportedRun::configValue(std::string_view key) const {
  for (const auto& [k, v] : config)
    if (k == key) return &v;
  return nullptr;
}

}  // namespace traindeck
