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

namespace traindeck {

namespace fs = std::filesystem;

namespace {

void syncFolder(const fs::path& folder) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw CheckpointError("cannot open " + folder.string() + " to flush it");
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

void LoadedCheckpoint::releasePages(const torch::Tensor& tensor) const {
  for (const auto& file : files) file->releasePages(tensor.data_ptr(), static_cast<std::size_t>(tensor.nbytes()));
}

void LoadedCheckpoint::releasePages() const {
  for (const auto* tensors : {&model, &optimizer})
    for (const auto& [name, tensor] : *tensors) releasePages(tensor);
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
  // A failure is thrown only once every tensor is produced: producing may be a collective.
  std::string failure = ec ? "cannot create " + temp.string() + ": " + ec.message() : "";
  for (const auto& [file, tensors] :
       {std::pair{"model.safetensors", &contents.model}, std::pair{"optim.safetensors", &contents.optimizer}}) {
    if (!failure.empty()) {
      produceInFileOrder(*tensors);
      continue;
    }
    try {
      writeStreamedTensorFile((temp / file).string(), *tensors);
    } catch (const std::exception& e) {
      failure = e.what();
    }
  }
  if (!failure.empty()) throw CheckpointError(failure);
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

void Checkpointer::produceWithoutWriting(const CheckpointContents& contents) {
  produceInFileOrder(contents.model);
  produceInFileOrder(contents.optimizer);
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
    for (const auto& [file, tensors] :
         {std::pair{"/model.safetensors", &loaded.model}, std::pair{"/optim.safetensors", &loaded.optimizer}}) {
      MappedTensorFile mapped = mapTensorFile(dir + file);
      *tensors = std::move(mapped.tensors);
      loaded.files.push_back(std::move(mapped.file));
    }
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
