// RunConfig: every setting of a training job, as plain values. Defaults live here and only
// here; config_fields.cpp names each field for YAML, docs and validation.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace traindeck {

enum class StrategyKind { Single, Ddp, Zero1, Zero2, Zero3 };
enum class DeviceKind { Auto, Cpu, Cuda };
enum class Backend { Auto, Gloo, Nccl };
enum class Precision { Fp32, Bf16, Fp16 };
enum class Decay { Cosine, Linear, Constant };
enum class TokenizerKind { Byte, Gpt2 };
enum class OptimizerKind { AdamW };
enum class TargetKind { Local, Ssh, Slurm };
enum class SlurmBuild { Login, Job };

struct ModelConfig {
  std::string preset;  // empty: the sizes below as written; else a name from model_presets.h
  std::int64_t n_layer = 12;
  std::int64_t n_head = 12;
  std::int64_t n_embd = 768;
  std::int64_t n_positions = 1024;  // learned position embeddings the model has
  std::int64_t block_size = 1024;   // training context, at most n_positions
  std::int64_t vocab_size = 50257;
  double dropout = 0.0;
  std::string init_from;  // a Hugging Face GPT-2 model.safetensors (or its folder) to start from
  bool operator==(const ModelConfig&) const = default;
};

struct DataConfig {
  std::string train;  // a folder written by `prepare`, a shard file, or a glob of shards
  std::string val;    // empty: the val split of the folder in `train`
  TokenizerKind tokenizer = TokenizerKind::Gpt2;
  std::string vocab;   // gpt2: encoder.json / vocab.json
  std::string merges;  // gpt2: vocab.bpe / merges.txt
  bool operator==(const DataConfig&) const = default;
};

struct StrategyConfig {
  StrategyKind kind = StrategyKind::Single;
  DeviceKind device = DeviceKind::Auto;
  std::int64_t nproc_per_node = 1;
  std::int64_t nnodes = 1;
  Backend backend = Backend::Auto;
  Precision precision = Precision::Fp32;
  std::int64_t micro_batch = 4;
  std::int64_t grad_accum = 1;
  bool activation_checkpointing = false;
  double bucket_mb = 25.0;                // gradient all-reduce bucket size
  std::string master_addr = "127.0.0.1";  // where rank 0's rendezvous store listens
  std::int64_t master_port = 0;           // 0: a free port (one node only)
  double rendezvous_timeout_s = 300;      // every rank must arrive within this
  double collective_timeout_s = 600;      // a collective waiting longer fails the job
  bool operator==(const StrategyConfig&) const = default;
  std::int64_t worldSize() const { return nproc_per_node * nnodes; }
};

struct OptimizerConfig {
  OptimizerKind type = OptimizerKind::AdamW;
  double lr = 6e-4;
  std::array<double, 2> betas{0.9, 0.95};
  double eps = 1e-8;
  double weight_decay = 0.1;
  double grad_clip = 1.0;  // global gradient norm; 0 turns clipping off
  bool operator==(const OptimizerConfig&) const = default;
};

struct ScheduleConfig {
  std::int64_t warmup_steps = 100;
  Decay decay = Decay::Cosine;
  double min_lr = 6e-5;
  std::int64_t max_steps = 1000;  // 0: no step limit
  std::int64_t max_tokens = 0;    // 0: no token limit; with both set, the first reached stops
  bool operator==(const ScheduleConfig&) const = default;
};

struct EvalConfig {
  std::int64_t every = 100;  // 0: never
  std::int64_t batches = 20;
  bool operator==(const EvalConfig&) const = default;
};

struct CheckpointConfig {
  std::int64_t every = 500;  // 0: only at the end and when stopped
  std::int64_t keep = 3;
  bool resume = false;
  bool operator==(const CheckpointConfig&) const = default;
};

// target.kind: slurm. The YAML keys are flat under target (target.partition, ...); target.host is
// the login node and target.remote_dir a folder on the cluster's shared file system.
struct SlurmConfig {
  std::string partition;                 // empty: the cluster's default partition
  std::string account;                   // empty: the user's default
  std::string qos;                       // empty: the default
  std::string time_limit;                // Slurm's forms (slurmMinutes); empty: the partition's default
  std::int64_t gpus_per_node = 0;        // 0: none asked for
  std::int64_t cpus_per_task = 0;        // 0: Slurm's default
  std::string mem;                       // per node: digits with an optional K, M, G or T; empty: default
  std::string constraint;                // node features, as sbatch --constraint takes them
  std::vector<std::string> sbatch_args;  // more sbatch options, each one line starting with "--"
  SlurmBuild build = SlurmBuild::Login;  // where the trainer is built: the login node or a job
  std::int64_t max_requeues = 3;         // times the job requeues itself at the time-limit signal
  bool operator==(const SlurmConfig&) const = default;
};

struct TargetConfig {
  TargetKind kind = TargetKind::Local;
  std::string host;  // user@host:port or an alias from ~/.ssh/config
  std::string user;
  std::int64_t port = 22;
  std::string identity;
  std::string proxy_command;
  std::string remote_dir = "~/traindeck";
  std::string login_shell = "bash -l";  // the host's profile: modules, sbatch on PATH; "none": plain sh
  std::string hosts;         // several nodes: "a, b" ([user@]host[:port] each), node 0 first
  std::string node_address;  // the address the nodes reach node 0 at; empty: node 0's host as given
  SlurmConfig slurm;         // kind slurm only
  bool operator==(const TargetConfig&) const = default;
};

// Whether the job runs somewhere other than this machine (ssh and slurm): its devices are not
// this machine's, and its paths may be remote ones.
inline bool isRemote(TargetKind kind) {
  return kind != TargetKind::Local;
}

// The hosts an ssh target runs on, node 0 first: target.hosts split at commas, else target.host
// alone. None for a local target, nor for a slurm one, whose nodes Slurm picks when the job starts.
std::vector<std::string> nodeHosts(const TargetConfig& target);

struct RunConfig {
  std::string name = "run";
  std::int64_t seed = 1337;
  ModelConfig model;
  DataConfig data;
  StrategyConfig strategy;
  OptimizerConfig optimizer;
  ScheduleConfig schedule;
  EvalConfig eval;
  CheckpointConfig checkpoint;
  TargetConfig target;
  std::string runs_root = "${TRAINDECK_DATA}/runs";
  bool operator==(const RunConfig&) const = default;
};

}  // namespace traindeck
