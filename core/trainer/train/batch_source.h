// Where training and evaluation batches come from: (B, T+1) windows of token ids for one rank,
// with a cursor that checkpoints save and restore. Torch-free.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "config/run_config.h"
#include "runlog/json_value.h"

namespace traindeck {

class BatchSource {
 public:
  virtual ~BatchSource() = default;
  // Fills `out` (B·(T+1) values) with token ids, row-major.
  virtual void next(std::span<std::int64_t> out) = 0;
  // Back to the first batch (validation passes start from the same place every time).
  virtual void rewind() = 0;
  virtual std::string cursorJson() const = 0;
  virtual void restoreCursor(const JsonValue& cursor) = 0;
};

struct BatchSources {
  std::unique_ptr<BatchSource> train;
  std::unique_ptr<BatchSource> val;  // null when the data has no validation split
};

// Opens data.train / data.val (paths already expanded) for rank `rank` of `worldSize`.
// Throws std::runtime_error with a sentence saying what is wrong with the data.
BatchSources openBatchSources(const RunConfig& config, int rank, int worldSize);

}  // namespace traindeck
