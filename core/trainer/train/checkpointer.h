// Checkpoints that survive a kill: each is written into a temporary folder, every file and the
// folder fsynced, renamed to checkpoints/step-<nnnnnnnn>, and marked by an empty COMPLETE file
// written last. Only folders with COMPLETE are ever loaded; the newest K are kept. The tensors are
// streamed: each produced when its turn in the file comes, written and dropped.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "runlog/json_value.h"
#include "tensor_file.h"

namespace traindeck {

class CheckpointError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CheckpointContents {
  StreamedTensors model;      // Hugging Face names -> model.safetensors
  StreamedTensors optimizer;  // optimizer state and RNG -> optim.safetensors
  std::string stateJson;      // a JSON object: step, tokens, data cursor -> state.json
};

struct LoadedCheckpoint {  // the tensors: read-only views into the files (mapTensorFile)
  std::string dir;
  std::map<std::string, torch::Tensor> model;
  std::map<std::string, torch::Tensor> optimizer;
  std::vector<std::shared_ptr<const SafetensorsFile>> files;  // what they view
  // Gives the pages of `tensor` (one of the above; anything else is left alone), or of every
  // tensor, back to the file once used, so that reading a checkpoint tensor by tensor never
  // keeps the whole of it resident.
  void releasePages(const torch::Tensor& tensor) const;
  void releasePages() const;
  JsonValue state;
  std::string stateText;  // state.json as written
};

class Checkpointer {
 public:
  Checkpointer(std::string checkpointsDir, int keep);

  // Writes step's checkpoint and deletes complete ones beyond the newest `keep`. Returns its folder.
  // Every tensor is produced, in file order, even when writing fails (see tensor_file.h).
  std::string save(std::int64_t step, const CheckpointContents& contents);
  // What ranks that write nothing call in save's place: the same tensors produced in the same order.
  static void produceWithoutWriting(const CheckpointContents& contents);
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

}  // namespace traindeck
