// Every rank's part in a checkpoint. The optimizer state travels named as AdamW names it; each
// rank keeps what its optimizer holds of it (all of it under ddp, its shard under zero1). Saving
// streams: each tensor is summed into rank 0 (zero1/2/3's moments, zero3's weights) when its turn
// in the file comes, written and dropped, so rank 0 never holds the whole state at once.
#include "training_checkpoints.h"

#include <map>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "runlog/json_writer.h"
#include "trainer/model/hf_weights.h"

namespace traindeck {

namespace {

std::string rngKey(int rank) {
  return rank == 0 ? "rng/cpu" : "rng/cpu/rank-" + std::to_string(rank);
}

void setCpuRngState(const torch::Tensor& state) {
  at::Generator generator = at::detail::getDefaultCPUGenerator();  // a handle to the global one
  std::lock_guard<std::mutex> lock(generator.mutex());
  generator.set_state(state);
}

}  // namespace

TrainingCheckpoints::TrainingCheckpoints(Checkpointer files, Communicator* comm, int rank, int worldSize, RankLog& log,
                                         TrainReporter& reporter)
    : m_files(std::move(files)), m_comm(comm), m_rank(rank), m_worldSize(worldSize), m_log(log), m_reporter(reporter) {}

void TrainingCheckpoints::save(const TrainingParts& parts, std::int64_t step, std::int64_t tokens) {
  CheckpointContents contents;
  contents.optimizer = parts.optimizer.wholeStateTensors();  // under zero1/2/3, summed into rank 0 as written
  if (parts.scaler)
    for (auto& named : parts.scaler->state()) contents.optimizer.push_back(streamedAtHand(named.first, named.second));
  const torch::Tensor rng = at::detail::getDefaultCPUGenerator().get_state();
  if (m_comm) {
    std::vector<torch::Tensor> states;
    for (int r = 0; r < m_worldSize; ++r) states.push_back(torch::empty_like(rng));
    auto mine = rng.clone();
    m_comm->allgather(states, mine);
    for (int r = 0; r < m_worldSize; ++r)
      contents.optimizer.push_back(streamedAtHand(rngKey(r), states[static_cast<std::size_t>(r)]));
  } else {
    contents.optimizer.push_back(streamedAtHand(rngKey(0), rng));
  }
  contents.model = parts.units ? parts.units->weightTensors() : streamedAtHand(parts.model->namedWeights());
  if (!isRank0()) return Checkpointer::produceWithoutWriting(contents);  // the collectives rank 0 writes from
  JsonWriter state;
  state.beginObject().field("schema", 1).field("step", step).field("tokens", tokens);
  state.field("world_size", m_worldSize);
  state.key("train_cursor").raw(parts.trainData.cursorJson()).endObject();
  contents.stateJson = state.str();
  const std::string dir = m_files.save(step, contents);
  m_reporter.event("info", "checkpoint saved: " + dir, step);
  m_log.info("checkpoint saved: " + dir);
}

std::optional<ResumePoint> TrainingCheckpoints::resume(const TrainingParts& parts, const torch::Device& device,
                                                       const std::string& cause) {
  const std::string lead = cause.empty() ? "" : cause + ": ";
  std::optional<LoadedCheckpoint> loaded;
  std::string verdict;  // "" no checkpoint, "ok", or the error
  if (isRank0()) {
    try {
      if (const auto latest = m_files.latestComplete()) {
        loaded = Checkpointer::load(*latest);
        if (parts.units)  // zero3: share() scatters them
          checkWeights(parts.model, loaded->model, "checkpoint " + *latest);
        else
          copyWeights(parts.model, loaded->model, "checkpoint " + *latest);
        parts.optimizer.loadWholeState(loaded->optimizer);
        for (const StreamedTensor& t : parts.optimizer.wholeStateTensors())  // all of it, for share()
          if (!loaded->optimizer.count(t.name))
            throw CheckpointError("checkpoint " + *latest + " has no optimizer state tensor " + t.name);
        if (parts.scaler) parts.scaler->loadState(loaded->optimizer);
        loaded->releasePages();  // read again, one tensor at a time, as share() sends them
        verdict = "ok";
      } else {
        m_log.info(lead + "no complete checkpoint in " + m_files.dir() + ": starting from step 0");
        if (!cause.empty()) m_reporter.event("info", lead + "no complete checkpoint, starting from step 0", 0);
      }
    } catch (const std::exception& e) {
      verdict = e.what();
    }
  }
  if (m_comm) m_comm->broadcastText(verdict);
  if (verdict.empty()) return std::nullopt;
  if (verdict != "ok") throw std::runtime_error(verdict);
  if (!loaded) loaded.emplace();
  if (m_comm) share(parts, *loaded, device);

  if (const auto rng = loaded->optimizer.find(rngKey(m_rank)); rng != loaded->optimizer.end())
    setCpuRngState(rng->second);
  else if (!isRank0())
    m_log.warn("the checkpoint holds no random state for rank " + std::to_string(m_rank) +
               " (it was written by fewer ranks): dropout masks differ from an uninterrupted run");
  const JsonValue& state = loaded->state;
  ResumePoint point{state.integerOr("step", 0), state.integerOr("tokens", 0)};
  if (const JsonValue* cursor = state.find("train_cursor")) parts.trainData.restoreCursor(*cursor);
  const std::int64_t savedWorld = state.integerOr("world_size", 1);
  if (savedWorld != m_worldSize) {
    const std::string note = "resumed with " + std::to_string(m_worldSize) + " ranks from a checkpoint of " +
                             std::to_string(savedWorld) +
                             ": the data continues where it was, but batches are cut differently";
    m_log.warn(note);
    m_reporter.event("warn", note, point.step);
  }
  m_log.info(lead + "resumed from " + loaded->dir + " at step " + std::to_string(point.step));
  m_reporter.event("info", lead + "resumed from step " + std::to_string(point.step), point.step);
  return point;
}

// Rank 0 has applied the checkpoint; the others take weights, optimizer state, loss scale and
// their random state from it, tensor by tensor. Every rank knows the whole state's names and
// shapes from its optimizer. Rank 0's tensors are views into the files' mappings (read-only):
// what is broadcast is a copy of one.
void TrainingCheckpoints::share(const TrainingParts& parts, LoadedCheckpoint& loaded, const torch::Device& device) {
  torch::NoGradGuard noGrad;
  m_comm->broadcastText(loaded.dir);
  m_comm->broadcastText(loaded.stateText);
  if (!isRank0()) {
    const JsonParseResult state = parseJson(loaded.stateText);
    if (!state.ok()) throw std::runtime_error("rank 0 sent an unreadable state.json: " + state.error);
    loaded.state = state.value;
  }
  if (parts.units)
    parts.units->scatterWeights(loaded.model, [&](const torch::Tensor& sent) { loaded.releasePages(sent); });
  else
    m_comm->broadcastInPlace(parts.model->parameters());

  // The optimizer state tensor by tensor: each rank takes its part of one and drops it.
  const auto floats = torch::TensorOptions().dtype(torch::kFloat).device(device);
  for (const StreamedTensor& t : parts.optimizer.wholeStateTensors()) {
    auto tensor = isRank0() ? loaded.optimizer.at(t.name).to(device, torch::kFloat, false, /*copy=*/true)
                            : torch::empty(t.shape, floats);
    m_comm->broadcast(tensor);
    if (isRank0())
      loaded.releasePages(loaded.optimizer.at(t.name));
    else
      parts.optimizer.loadWholeStateTensor(t.name, tensor);
  }

  if (parts.scaler)  // the same on every rank: its updates follow the all-reduced gradients
    for (torch::Tensor& live : parts.scaler->liveTensors()) m_comm->broadcast(live);
  // Each rank's random state, where the checkpoint has one for it.
  const torch::Tensor ownRng = at::detail::getDefaultCPUGenerator().get_state();
  for (int r = 1; r < m_worldSize; ++r) {
    std::string present = isRank0() && loaded.optimizer.count(rngKey(r)) ? "1" : "";
    m_comm->broadcastText(present);
    if (present.empty()) continue;
    auto rng = isRank0() ? loaded.optimizer.at(rngKey(r)).clone() : torch::empty_like(ownRng);
    m_comm->broadcast(rng);
    if (m_rank == r) loaded.optimizer[rngKey(r)] = rng;
  }
}

}  // namespace traindeck
