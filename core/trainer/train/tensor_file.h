// Files of named tensors (safetensors, as stored: contiguous, from the CPU) written and read by
// checkpoints and the Hugging Face export. A streamed file is written tensor by tensor: each is
// produced when its turn in the file comes and dropped once written.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <torch/torch.h>

#include "streamed_tensor.h"
#include "trainer/safetensors/safetensors_file.h"

namespace traindeck {

using NamedTensors = std::vector<std::pair<std::string, torch::Tensor>>;

// Produces every tensor in file order and writes it to `path` (created or truncated, fsynced).
// When writing fails, the remaining tensors are still produced (their producers may be
// collectives the other ranks are in) and the failure is thrown after the last, the partial file
// removed. Throws CheckpointError.
void writeStreamedTensorFile(const std::string& path, const StreamedTensors& tensors);
// What a rank that writes nothing does in writeStreamedTensorFile's place: produces every
// tensor in the same order and drops it.
void produceInFileOrder(const StreamedTensors& tensors);

void writeTensorFile(const std::string& path, const NamedTensors& tensors);
std::map<std::string, torch::Tensor> readTensorFile(const std::string& path);
// The tensors of `path` as read-only views into its memory mapping, which lives while any of them
// does: nothing is copied, and a tensor's pages are read only when it is used (and may be given
// back once used: file->releasePages).
struct MappedTensorFile {
  std::shared_ptr<const SafetensorsFile> file;
  std::map<std::string, torch::Tensor> tensors;
};
MappedTensorFile mapTensorFile(const std::string& path);

}  // namespace traindeck
