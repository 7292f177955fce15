// log_history entries are flat objects: "step" is the x, every other number a scalar at it
// ("loss", "eval_loss", "learning_rate", "grad_norm", "epoch", "eval_runtime", ...).
#include "imports/hf_trainer_reader.h"

#include <limits>

#include "imports/import_error.h"
#include "imports/import_files.h"
#include "imports/run_builder.h"
#include "runlog/json_value.h"

namespace traindeck {

namespace {

constexpr std::string_view kTrainerState = "trainer_state.json";

bool isCheckpointFolderName(const std::string& name) {
  return name.starts_with("checkpoint-") && name.size() > 11 &&
         name.find_first_not_of("0123456789", 11) == std::string::npos;
}

JsonValue parseStateFile(const std::filesystem::path& file) {
  JsonParseResult parsed = parseJson(readFileBytes(file));
  if (!parsed.ok()) throw ImportError(file.string() + ": not JSON: " + parsed.error);
  if (!parsed.value.isObject()) throw ImportError(file.string() + ": not a JSON object");
  return std::move(parsed.value);
}

// global_step without parsing all of log_history would need a streaming parser; the files are
// small (one entry per logging step), so each candidate is parsed whole.
std::int64_t globalStepOf(const std::filesystem::path& file) {
  try {
    return parseStateFile(file).integerOr("global_step", -1);
  } catch (const ImportError&) {
    return -1;
  }
}

}  // namespace

bool isHfTrainerRun(const std::filesystem::path& folder) {
  if (isRegularFile(folder / kTrainerState)) return true;
  for (const auto& entry : sortedEntries(folder))
    if (isCheckpointFolderName(entry.filename().string()) && isRegularFile(entry / kTrainerState)) return true;
  return false;
}

std::filesystem::path newestTrainerState(const std::filesystem::path& folder) {
  std::filesystem::path best;
  std::int64_t bestStep = -2;
  const auto consider = [&](const std::filesystem::path& file) {
    if (!isRegularFile(file)) return;
    const std::int64_t step = globalStepOf(file);
    if (step > bestStep) {
      bestStep = step;
      best = file;
    }
  };
  consider(folder / kTrainerState);
  for (const auto& entry : sortedEntries(folder))
    if (isCheckpointFolderName(entry.filename().string())) consider(entry / kTrainerState);
  return best;
}

ImportedRun readHfTrainerRun(const std::filesystem::path& folder, std::string name) {
  const std::filesystem::path stateFile = newestTrainerState(folder);
  if (stateFile.empty()) throw ImportError(folder.string() + ": no trainer_state.json");
  const JsonValue state = parseStateFile(stateFile);
  RunBuilder builder(SourceKind::HfTrainer, std::move(name), folder.string());
  const JsonValue* history = state.find("log_history");
  if (history == nullptr || !history->isArray()) throw ImportError(stateFile.string() + ": no log_history array");
  constexpr double kNoTime = std::numeric_limits<double>::quiet_NaN();
  std::size_t index = 0;
  for (const JsonValue& entry : history->items()) {
    ++index;
    const JsonValue* step = entry.find("step");
    if (step == nullptr || !step->isInteger()) {
      builder.addProblem(stateFile.string() + ": log_history entry " + std::to_string(index) + " has no step; skipped");
      continue;
    }
    // The last entry sums the run up (train_runtime, train_loss as the mean loss): kept by name.
    const bool summary = entry.find("train_runtime") != nullptr;
    for (const auto& [key, value] : entry.members()) {
      if (key == "step" || !value.isNumber()) continue;
      if (summary)
        builder.addUnmapped(key, step->integerOr(0), kNoTime, value.numberOr(0));
      else
        builder.add(key, step->integerOr(0), kNoTime, value.numberOr(0));
    }
  }
  for (const char* key : {"global_step", "max_steps", "num_train_epochs", "train_batch_size", "logging_steps",
                          "eval_steps", "save_steps"})
    if (const JsonValue* v = state.find(key); v != nullptr && v->isNumber())
      addJsonConfig(*v, builder, std::string("trainer.") + key);
  // The model's config: beside the state file, else in the output folder.
  for (const auto& config : {stateFile.parent_path() / "config.json", folder / "config.json"}) {
    if (!isRegularFile(config)) continue;
    const JsonParseResult parsed = parseJson(readFileBytes(config));
    if (parsed.ok() && parsed.value.isObject())
      addJsonConfig(parsed.value, builder, "model");
    else
      builder.addProblem(config.string() + ": not a JSON object: " + parsed.error);
    break;
  }
  return builder.take();
}

const RunFormat& hfTrainerFormat() {
  static const PathFormat format({.kind = SourceKind::HfTrainer,
                                  .name = "hf-trainer",
                                  .badge = "HF Trainer",
                                  .signs = "trainer_state.json",
                                  .isRunFolder = isHfTrainerRun,
                                  .isRunFile = nullptr,
                                  .read = readHfTrainerRun});
  return format;
}

}  // namespace traindeck
