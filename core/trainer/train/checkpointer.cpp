// Crash safety: files are written into step-N.tmp-<pid>/ (each fsynced by its writer), COMPLETE
// is written there last, the folder is fsynced and renamed to step-N, and the parent fsynced.
// A kill at any moment leaves either a complete step-N or a temporary folder that is ignored
// (and removed by the next save).
#include "checkpointer.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "runlog/atomic_file.h"
#include "runlog/checkpoint_names.h"
#include "runlog/run_paths.h"
#include "trainer/safetensors/safetensors_file.h"
#include "trainer/safetensors/safetensors_writer.h"

namespace traindeck {

namespace fs = std::filesystem;

namespace {

TensorDType dtypeOf(const torch::Tensor& t) {
  switch (t.scalar_type()) {
    case torch::kFloat:
      return TensorDType::F32;
    case torch::kBFloat16:
      return TensorDType::BF16;
    case torch::kHalf:
      return TensorDType::F16;
    case torch::kLong:
      return TensorDType::I64;
    case torch::kInt:
      return TensorDType::I32;
    case torch::kByte:
      return TensorDType::U8;
    default:
      throw CheckpointError(std::string("cannot store tensors of type ") + c10::toString(t.scalar_type()));
  }
}

torch::ScalarType scalarTypeOf(TensorDType dtype) {
  switch (dtype) {
    case TensorDType::F32:
      return torch::kFloat;
    case TensorDType::BF16:
      return torch::kBFloat16;
    case TensorDType::F16:
      return torch::kHalf;
    case TensorDType::I64:
      return torch::kLong;
    case TensorDType::I32:
      return torch::kInt;
    case TensorDType::U8:
      return torch::kByte;
  }
  return torch::kFloat;
}

void syncFolder(const fs::path& folder) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw CheckpointError("cannot open " + folder.string() + " to flush it");
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

void writeTensorFile(const std::string& path, const NamedTensors& tensors) {
  std::vector<torch::Tensor> host;  // keeps the bytes alive while writing
  std::vector<TensorView> views;
  for (const auto& [name, tensor] : tensors) {
    host.push_back(tensor.detach().to(torch::kCPU).contiguous());
    const torch::Tensor& t = host.back();
    views.push_back({name, dtypeOf(t), t.sizes().vec(), t.data_ptr(), static_cast<std::size_t>(t.nbytes())});
  }
  writeSafetensors(path, views, {{"format", "pt"}});
}

std::map<std::string, torch::Tensor> readTensorFile(const std::string& path) {
  const SafetensorsFile file = SafetensorsFile::open(path);
  std::map<std::string, torch::Tensor> out;
  for (const TensorView& view : file.tensors()) {
    const auto options = torch::TensorOptions().dtype(scalarTypeOf(view.dtype));
    out[view.name] = torch::from_blob(const_cast<void*>(view.data), view.shape, options).clone();
  }
  return out;
}

Checkpointer::Checkpointer(std::string checkpointsDir, int keep) : m_dir(std::move(checkpointsDir)), m_keep(keep) {}

std::string Checkpointer::folderName(std::int64_t step) {
  return checkpointName(step);
}

std::string Checkpointer::save(std::int64_t step, const CheckpointContents& contents) {
  const fs::path root(m_dir);
  const fs::path final = root / folderName(step);
  const fs::path temp = root / (folderName(step) + ".tmp-" + std::to_string(::getpid()));
  std::error_code ec;
  fs::create_directories(root, ec);
  for (const auto& entry : fs::directory_iterator(root, ec))  // left by a writer that was killed
    if (entry.path().filename().string().find(".tmp-") != std::string::npos) fs::remove_all(entry.path(), ec);
  fs::create_directories(temp, ec);
  if (ec) throw CheckpointError("cannot create " + temp.string() + ": " + ec.message());

  writeTensorFile((temp / "model.safetensors").string(), contents.model);
  writeTensorFile((temp / "optim.safetensors").string(), contents.optimizer);
  for (const auto& [file, text] :
       {std::pair{"state.json", contents.stateJson + "\n"}, std::pair{run_file::kCheckpointComplete, std::string()}})
    if (const std::string why = writeFileAtomically((temp / file).string(), text); !why.empty())
      throw CheckpointError(why);
  syncFolder(temp);

  if (fs::exists(final, ec)) {  // saved again at the same step (after a resume): replace it
    const fs::path old = root / (folderName(step) + ".old-tmp-" + std::to_string(::getpid()));
    fs::rename(final, old, ec);
    fs::rename(temp, final, ec);
    fs::remove_all(old);
  } else {
    fs::rename(temp, final, ec);
  }
  if (ec) throw CheckpointError("cannot rename " + temp.string() + " to " + final.string() + ": " + ec.message());
  syncFolder(root);

  const std::vector<std::string> complete = completeFolders();
  for (std::size_t i = 0; i + static_cast<std::size_t>(m_keep) < complete.size(); ++i)
    fs::remove_all(root / complete[i], ec);
  return final.string();
}

std::vector<std::string> Checkpointer::completeFolders() const {
  return completeCheckpoints(m_dir);  // the rule every reader of checkpoints/ shares
}

std::optional<std::string> Checkpointer::latestComplete() const {
  const std::vector<std::string> complete = completeFolders();
  if (complete.empty()) return std::nullopt;
  return (fs::path(m_dir) / complete.back()).string();
}

LoadedCheckpoint Checkpointer::load(const std::string& dir) {
  std::error_code ec;
  if (!fs::exists(fs::path(dir) / run_file::kCheckpointComplete, ec))
    throw CheckpointError(dir + " is not a complete checkpoint (no COMPLETE file): it was cut off while being written");
  LoadedCheckpoint loaded;
  loaded.dir = dir;
  try {
    loaded.model = readTensorFile(dir + "/model.safetensors");
    loaded.optimizer = readTensorFile(dir + "/optim.safetensors");
  } catch (const std::exception& e) {
    throw CheckpointError("checkpoint " + dir + " cannot be read: " + e.what());
  }
  std::ifstream in(dir + "/state.json");
  std::stringstream text;
  text << in.rdbuf();
  const JsonParseResult state = parseJson(text.str());
  if (!state.ok() || !state.value.isObject())
    throw CheckpointError("checkpoint " + dir + " has no readable state.json" +
                          (state.ok() ? std::string() : ": " + state.error));
  loaded.state = state.value;
  loaded.stateText = text.str();
  return loaded;
}

}  // namespace traindeck
