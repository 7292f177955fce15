// The trainer's state across processes and time: building the model and optimizer (and, with
// several ranks, the communicator, gradient sync and zero1 shards), saving checkpoints, and
// resuming. With several ranks, rank 0 alone reads and writes checkpoint files and hands what
// it read to the others through collectives, so nodes need no shared file system.
#include <fstream>

#include "config/devices.h"
#include "config/enum_names.h"
#include "config/planner.h"
#include "trainer.h"
#include "trainer/model/hf_weights.h"

namespace traindeck {

namespace {

std::chrono::milliseconds milliseconds(double seconds) {
  return std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000));
}

std::string rngKey(int rank) {
  return rank == 0 ? "rng/cpu" : "rng/cpu/rank-" + std::to_string(rank);
}

void setCpuRngState(const torch::Tensor& state) {
  at::Generator generator = at::detail::getDefaultCPUGenerator();  // a handle to the global one
  std::lock_guard<std::mutex> lock(generator.mutex());
  generator.set_state(state);
}

}  // namespace

// The peak FLOP/s of every device the job uses, for MFU; 0 when this device is not one we know
// (then train records carry no mfu).
double Trainer::jobPeakFlops() const {
  const int world = m_options.dist.worldSize;
  if (m_device.is_cpu()) {  // the ranks of a node share its CPU, which computes in fp32
    const int nodes = std::max(1, world / std::max(1, m_options.dist.localWorldSize));
    return thisMachineCpu().peakFor(Precision::Fp32) * nodes;
  }
  const std::string name = compat::cudaDeviceName(m_device.index());
  for (const DeviceSpec& known : knownDevices()) {
    const std::string model = known.name.substr(0, known.name.find('-'));  // "A100-80GB" -> "A100"
    if (name.find(model) != std::string::npos) return known.peakFor(m_config.strategy.precision) * world;
  }
  return 0;
}

void Trainer::setUpDistributed() {
  const DistEnv& env = m_options.dist;
  CommunicatorOptions options;
  options.backend = m_config.strategy.backend;
  options.rendezvousTimeout = milliseconds(m_config.strategy.rendezvous_timeout_s);
  options.collectiveTimeout = milliseconds(m_config.strategy.collective_timeout_s);
  m_log.info("rank " + std::to_string(env.rank) + " of " + std::to_string(env.worldSize) + ": meeting the others at " +
             env.masterAddr + ":" + std::to_string(env.masterPort));
  m_comm = std::make_unique<Communicator>(env, m_device, options);
  m_log.info("all " + std::to_string(env.worldSize) + " ranks arrived; backend " + m_comm->backendName());
}

void Trainer::setUpModelAndOptimizer() {
  torch::manual_seed(static_cast<std::uint64_t>(m_config.seed));
  m_model = Gpt2(m_config.model);
  if (!m_config.model.init_from.empty() && isRank0()) {  // the others get the weights by broadcast
    loadHuggingFaceWeights(m_model, m_config.model.init_from);
    m_log.info("weights from " + m_config.model.init_from);
  }
  m_model->setActivationCheckpointing(m_config.strategy.activation_checkpointing);
  m_model->to(m_device);
  const AdamWSettings settings{m_config.optimizer.betas[0], m_config.optimizer.betas[1], m_config.optimizer.eps,
                               m_config.optimizer.weight_decay};
  if (m_config.strategy.precision == Precision::Fp16) m_scaler = std::make_unique<LossScaler>(m_device);
  if (!distributed()) {
    m_optimizer = std::make_unique<AdamW>(AdamW::withDecayOn2dWeights(m_model->namedWeights()), settings);
    return;
  }
  broadcastParameters();
  m_sync = std::make_unique<GradientSync>(*m_comm, makeFlatLayout(m_model->namedWeights(), m_comm->worldSize()),
                                          m_config.strategy.bucket_mb, m_device);
  std::int64_t stateBytes = 0;
  if (m_config.strategy.kind == StrategyKind::Zero1) {
    m_sharded = std::make_unique<ShardedAdamW>(*m_comm, m_sync->layout(), m_sync->flatGradients(), settings);
    stateBytes = m_sharded->stateBytes();
  } else {
    m_optimizer = std::make_unique<AdamW>(AdamW::withDecayOn2dWeights(m_model->namedWeights()), settings);
    stateBytes = m_optimizer->stateBytes();
  }
  m_log.info("optimizer state on this rank: " + std::to_string(stateBytes) + " bytes (" +
             std::string(toString(m_config.strategy.kind)) + ", " + std::to_string(m_sync->bucketCount()) +
             " gradient buckets)");
  // Rank 0 keeps the seed's stream (a one-rank run's dropout masks); the others draw their own.
  if (!isRank0())
    torch::manual_seed(static_cast<std::uint64_t>(m_config.seed) +
                       1000003ull * static_cast<std::uint64_t>(m_options.dist.rank));
}

void Trainer::broadcastParameters() {
  torch::NoGradGuard noGrad;
  std::vector<torch::Tensor> pieces;
  for (const auto& p : m_model->parameters()) pieces.push_back(p.detach().reshape(-1));
  auto flat = torch::cat(pieces);
  m_comm->broadcast(flat);
  std::int64_t offset = 0;
  for (auto& p : m_model->parameters()) {
    p.detach().copy_(flat.narrow(0, offset, p.numel()).view(p.sizes()));
    offset += p.numel();
  }
}

NamedTensors Trainer::optimizerState() {
  return m_sharded ? m_sharded->gatherState() : m_optimizer->state();
}

void Trainer::saveCheckpoint() {
  CheckpointContents contents;
  contents.optimizer = optimizerState();  // a collective under zero1
  if (m_scaler)
    for (auto& named : m_scaler->state()) contents.optimizer.push_back(std::move(named));
  const torch::Tensor rng = at::detail::getDefaultCPUGenerator().get_state();
  if (distributed()) {
    std::vector<torch::Tensor> states;
    for (int r = 0; r < m_comm->worldSize(); ++r) states.push_back(torch::empty_like(rng));
    auto mine = rng.clone();
    m_comm->allgather(states, mine);
    for (int r = 0; r < m_comm->worldSize(); ++r)
      contents.optimizer.emplace_back(rngKey(r), states[static_cast<std::size_t>(r)]);
  } else {
    contents.optimizer.emplace_back(rngKey(0), rng);
  }
  m_lastCheckpointStep = m_step;
  if (!isRank0()) return;
  contents.model = m_model->namedWeights();
  JsonWriter state;
  state.beginObject().field("schema", 1).field("step", m_step).field("tokens", m_tokens);
  state.field("world_size", m_options.dist.worldSize);
  state.key("train_cursor").raw(m_data.train->cursorJson()).endObject();
  contents.stateJson = state.str();
  const std::string dir = m_checkpointer.save(m_step, contents);
  event("info", "checkpoint saved: " + dir, m_step);
  m_log.info("checkpoint saved: " + dir);
}

void Trainer::resumeFromCheckpoint() {
  // Rank 0 reads the checkpoint and applies it to itself first, so a bad one fails on every
  // rank with rank 0's message instead of leaving the others waiting in a broadcast.
  std::optional<LoadedCheckpoint> loaded;
  std::string verdict;  // "" no checkpoint, "ok", or the error
  if (isRank0()) {
    try {
      if (const auto latest = m_checkpointer.latestComplete()) {
        loaded = Checkpointer::load(*latest);
        copyWeights(m_model, loaded->model, "checkpoint " + *latest);
        if (m_sharded)
          m_sharded->loadState(loaded->optimizer);
        else
          m_optimizer->loadState(loaded->optimizer);
        if (m_scaler) m_scaler->loadState(loaded->optimizer);
        verdict = "ok";
      } else {
        m_log.info("no complete checkpoint in " + m_options.paths.checkpoints() + ": starting from step 0");
      }
    } catch (const std::exception& e) {
      verdict = e.what();
    }
  }
  if (distributed()) m_comm->broadcastText(verdict);
  if (verdict.empty()) return;
  if (verdict != "ok") throw std::runtime_error(verdict);
  if (distributed()) shareCheckpoint(loaded);

  if (const auto rng = loaded->optimizer.find(rngKey(m_options.dist.rank)); rng != loaded->optimizer.end())
    setCpuRngState(rng->second);
  else if (!isRank0())
    m_log.warn("the checkpoint holds no random state for rank " + std::to_string(m_options.dist.rank) +
               " (it was written by fewer ranks): dropout masks differ from an uninterrupted run");
  const JsonValue& state = loaded->state;
  m_step = state.integerOr("step", 0);
  m_tokens = state.integerOr("tokens", 0);
  if (const JsonValue* cursor = state.find("train_cursor")) m_data.train->restoreCursor(*cursor);
  m_lastCheckpointStep = m_step;
  const std::int64_t savedWorld = state.integerOr("world_size", 1);
  if (savedWorld != m_options.dist.worldSize) {
    const std::string note = "resumed with " + std::to_string(m_options.dist.worldSize) +
                             " ranks from a checkpoint of " + std::to_string(savedWorld) +
                             ": the data continues where it was, but batches are cut differently";
    m_log.warn(note);
    event("warn", note, m_step);
  }
  m_log.info("resumed from " + loaded->dir + " at step " + std::to_string(m_step));
  event("info", "resumed from step " + std::to_string(m_step), m_step);
}

void Trainer::shareCheckpoint(std::optional<LoadedCheckpoint>& loaded) {
  torch::NoGradGuard noGrad;
  if (!loaded) loaded.emplace();
  m_comm->broadcastText(loaded->dir);
  m_comm->broadcastText(loaded->stateText);
  if (!isRank0()) {
    const JsonParseResult state = parseJson(loaded->stateText);
    if (!state.ok()) throw std::runtime_error("rank 0 sent an unreadable state.json: " + state.error);
    loaded->state = state.value;
  }
  broadcastParameters();
  if (m_optimizer) {  // ddp: every rank holds the whole state; rank 0 has loaded it
    for (auto& [name, tensor] : m_optimizer->state()) m_comm->broadcast(tensor);
  } else {  // zero1: each rank takes its shard out of the whole state
    std::map<std::string, torch::Tensor> whole;
    for (const FlatSlot& slot : m_sync->layout().slots)
      for (const std::string moment : {"exp_avg/", "exp_avg_sq/"}) {
        const std::string key = moment + slot.name;
        auto tensor = isRank0() ? loaded->optimizer.at(key).to(m_device, torch::kFloat).contiguous()
                                : torch::empty(slot.parameter.sizes(), slot.parameter.options());
        m_comm->broadcast(tensor);
        whole[key] = tensor;
      }
    auto step = isRank0() ? loaded->optimizer.at("step").to(m_device, torch::kFloat).contiguous()
                          : torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat).device(m_device));
    m_comm->broadcast(step);
    whole["step"] = step;
    if (!isRank0()) m_sharded->loadState(whole);
  }
  if (m_scaler)  // the same on every rank: its updates follow the all-reduced gradients
    for (torch::Tensor& live : m_scaler->liveTensors()) m_comm->broadcast(live);
  // Each rank's random state, where the checkpoint has one for it.
  const torch::Tensor ownRng = at::detail::getDefaultCPUGenerator().get_state();
  for (int r = 1; r < m_comm->worldSize(); ++r) {
    std::string present = isRank0() && loaded->optimizer.count(rngKey(r)) ? "1" : "";
    m_comm->broadcastText(present);
    if (present.empty()) continue;
    auto rng = isRank0() ? loaded->optimizer.at(rngKey(r)).contiguous() : torch::empty_like(ownRng);
    m_comm->broadcast(rng);
    if (m_options.dist.rank == r) loaded->optimizer[rngKey(r)] = rng;
  }
}

}  // namespace traindeck
