// The trainer's parts, built once before the first step: the model and the one optimizer the
// strategy calls for (and, with several ranks, the communicator, the gradient sync and the
// shards of zero1, zero2 and zero3), and the peak the job's devices could reach, for MFU.
#include "trainer.h"

#include "config/devices.h"
#include "config/enum_names.h"
#include "config/planner.h"
#include "optim/adamw.h"
#include "trainer/dist/gradient_sync.h"
#include "trainer/dist/sharded_adamw.h"
#include "trainer/model/hf_weights.h"

namespace traindeck {

namespace {

std::chrono::milliseconds milliseconds(double seconds) {
  return std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000));
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
  for (const DeviceSpec& known : knownDevices())  // "A100" of "A100-80GB", or the entry's cudaName
    if (cudaNameMatches(known, name)) return known.peakFor(m_config.strategy.precision) * world;
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
  m_reporter.setCommunicator(m_comm.get());
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
  if (m_config.strategy.precision == Precision::Fp16) {
    m_scaler = std::make_unique<LossScaler>(m_device);
    m_reporter.setLossScaler(m_scaler.get());
  }
  if (!distributed()) {
    m_optimizer = std::make_unique<AdamW>(AdamW::withDecayOn2dWeights(m_model->namedWeights()), settings);
    return;
  }
  m_comm->broadcastInPlace(m_model->parameters());
  const StrategyKind kind = m_config.strategy.kind;
  const double bucketMb = m_config.strategy.bucket_mb;
  if (kind == StrategyKind::Zero3) {
    setUpZero3(settings);
  } else {
    auto sync = kind == StrategyKind::Zero2
                    ? std::make_unique<GradientSync>(
                          *m_comm, makeBucketedShardLayout(m_model->namedWeights(), m_comm->worldSize(), bucketMb),
                          bucketMb, m_device, GradientReduction::ReduceScatter)
                    : std::make_unique<GradientSync>(
                          *m_comm, makeFlatLayout(m_model->namedWeights(), m_comm->worldSize()), bucketMb, m_device);
    if (kind == StrategyKind::Zero1 || kind == StrategyKind::Zero2)
      m_optimizer = std::make_unique<ShardedAdamW>(*m_comm, sync->layout(), sync->shardSpans(), settings);
    else
      m_optimizer = std::make_unique<AdamW>(AdamW::withDecayOn2dWeights(m_model->namedWeights()), settings);
    m_log.info("optimizer state on this rank: " + std::to_string(m_optimizer->stateBytes()) + " bytes (" +
               std::string(toString(m_config.strategy.kind)) + ", " + std::to_string(sync->bucketCount()) +
               " gradient buckets)");
    m_sync = std::move(sync);
  }
  // Rank 0 keeps the seed's stream (a one-rank run's dropout masks); the others draw their own.
  if (!isRank0())
    torch::manual_seed(static_cast<std::uint64_t>(m_config.seed) +
                       1000003ull * static_cast<std::uint64_t>(m_options.dist.rank));
}

// zero3: the weights (the same on every rank after the broadcast) move into this rank's shard of
// each unit and the model keeps placeholders; the optimizer updates the shard in place.
void Trainer::setUpZero3(const AdamWSettings& settings) {
  auto units = std::make_unique<ShardedUnits>(*m_comm, ShardedGpt2::units(m_model), m_device);
  m_units = units.get();
  m_shardedModel = std::make_unique<ShardedGpt2>(m_model, *m_units, m_device, m_config.strategy.precision);
  m_optimizer = std::make_unique<ShardedAdamW>(*m_comm, m_units->layout(), m_units->shardSpans(),
                                               m_units->parameterShard(), settings);
  m_log.info("optimizer state on this rank: " + std::to_string(m_optimizer->stateBytes()) + " bytes (zero3, " +
             std::to_string(m_units->unitCount()) + " units; parameters on this rank: " +
             std::to_string(m_units->parameterShard().numel()) + " of " + std::to_string(m_units->layout().total) +
             ", the largest unit gathered " + std::to_string(m_units->largestUnitElements()) + ")");
  m_log.info("zero3 gathers each unit again in backward and recomputes it there, as activation checkpointing does" +
             std::string(m_config.strategy.activation_checkpointing ? ": activation_checkpointing adds nothing" : ""));
  if (!m_shardedModel->prefetches())
    m_log.info("zero3 prefetches nothing (TRAINDECK_ZERO3_PREFETCH=0): every gather waits for its whole all-gather");
  m_sync = std::move(units);
}

}  // namespace traindeck
