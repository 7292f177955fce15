// Checkpoints that survive a kill: each is written into a temporary folder, every file and the
// folder fsynced, renamed to checkpoints/step-<nnnnnnnn>, and marked by an empty COMPLETE file
// written last. Only folders with COMPLETE are ever loaded; the newest K are kept.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "runlog/json_value.h"

namespace traindeck {

class CheckpointError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using NamedTensors = std::vector<std::pair<std::string, torch::Tensor>>;

struct CheckpointContents {
  NamedTensors model;      // Hugging Face names -> model.safetensors
  NamedTensors optimizer;  // optimizer state and RNG -> optim.safetensors
  std::string stateJson;   // a JSON object: step, tokens, data cursor -> state.json
};

struct LoadedCheckpoint {
  std::string dir;
  std::map<std::string, torch::Tensor> model;
  std::map<std::string, torch::Tensor> optimizer;
  JsonValue state;
  std::string stateText;  // state.json as written
};

class Checkpointer {
 public:
  Checkpointer(std::string checkpointsDir, int keep);

  // Writes step's checkpoint and deletes complete ones beyond the newest `keep`. Returns its folder.
  std::string save(std::int64_t step, const CheckpointContents& contents);
  // The newest folder holding COMPLETE, if any.
  std::optional<std::string> latestComplete() const;
  const std::string& dir() const { return m_dir; }

  static LoadedCheckpoint load(const std::string& dir);
  static std::string folderName(std::int64_t step);  // "step-00000120"

 private:
  std::vector<std::string> completeFolders() const;  // oldest first
  std::string m_dir;
  int m_keep;
};

// Tensors as stored (contiguous, on the CPU) and back.
void writeTensorFile(const std::string& path, const NamedTensors& tensors);
std::map<std::string, torch::Tensor> readTensorFile(const std::string& path);

}  // namespace traindeck
