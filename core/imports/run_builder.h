// Gathers one imported run scalar by scalar, in the order a reader meets them: known names go
// into the train and eval columns (values of one step share a row), the rest into named series.
// One builder per run, used by one thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "imports/imported_run.h"

namespace traindeck {

class RunBuilder {
 public:
  RunBuilder(SourceKind kind, std::string name, std::string path);

  // One value of `name` at `step`; `time` in unix seconds or NaN. Non-finite values are kept
  // (a diverged loss is worth seeing), except in the known columns, where NaN means "absent".
  void add(std::string_view name, std::int64_t step, double time, double value);
  // A scalar kept under its own name even where the name is a known one (a summary's
  // "train_loss" is an average, not a point of the loss curve).
  void addUnmapped(std::string_view name, std::int64_t step, double time, double value);
  void setName(std::string name) { m_run.name = std::move(name); }
  void setConfig(std::string key, std::string value);
  void addProblem(std::string sentence) { m_run.problems.push_back(std::move(sentence)); }
  void setPartialTail(bool partial) { m_run.partialTail = partial; }
  const ImportedRun& run() const { return m_run; }

  ImportedRun take() { return std::move(m_run); }

 private:
  // `value` into `column` of the newest row of `step` when that cell is empty, else of a new row.
  void setTrain(std::vector<float> TrainColumns::*column, std::int64_t step, double time, double value);

  ImportedRun m_run;
  std::unordered_map<std::int64_t, std::size_t> m_trainRowOfStep;
  std::unordered_map<std::string, std::size_t> m_seriesOfName;
};

}  // namespace traindeck
