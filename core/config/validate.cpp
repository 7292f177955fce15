// Cross-field validation. Each rule is a few lines in one function per section, and each
// message says what is wrong with the numbers in it and what to change. A slurm job is remote
// like an ssh one; its devices are the GPUs it asks for on each node.
#include "validate.h"

#include <glob.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <tuple>

#include "enum_names.h"
#include "model_presets.h"
#include "runlog/run_directory.h"
#include "suggest.h"

namespace traindeck {

namespace {

// The devices of a node the job runs on, where known. A slurm node has the GPUs the job asks
// for; whether they compute in bf16 is not known, so it is taken as yes (no false refusal).
std::optional<HostDevices> jobNodeDevices(const RunConfig& config, const ValidationContext& context) {
  switch (config.target.kind) {
    case TargetKind::Local:
      return context.host;
    case TargetKind::Ssh:
      return context.remoteHost;
    case TargetKind::Slurm:
      return HostDevices{static_cast<int>(std::clamp<std::int64_t>(config.target.slurm.gpus_per_node, 0, 1 << 20)),
                         true, false};
  }
  return std::nullopt;
}

// Where the job runs, for messages.
std::string jobPlaceText(const RunConfig& config) {
  switch (config.target.kind) {
    case TargetKind::Local:
      return "this machine";
    case TargetKind::Ssh:
      return config.target.host;
    case TargetKind::Slurm:
      return "each node of the Slurm job (target.gpus_per_node: " + std::to_string(config.target.slurm.gpus_per_node) +
             ")";
  }
  return "?";
}

class Checker {
 public:
  Checker(const RunConfig& config, const ValidationContext& context, const std::map<std::string, SourcePlace>& places,
          const std::string& baseDir)
      : c(config),
        m_context(context),
        m_host(jobNodeDevices(config, context)),
        m_where(jobPlaceText(config)),
        m_places(places),
        m_baseDir(baseDir) {}

  Diagnostics run() {
    checkModel();
    checkData();
    checkStrategy();
    checkSchedule();
    checkTarget();
    checkSlurm();
    return std::move(m_out);
  }

  Diagnostics partitionsOnly(const std::vector<SlurmPartition>& partitions) {
    if (slurm()) checkPartition(partitions);
    return std::move(m_out);
  }

 private:
  // Reports at the first of `paths` that the file has (the first one when none is there).
  void report(Severity severity, std::initializer_list<std::string> paths, std::string message, std::string hint = {}) {
    Diagnostic d;
    d.severity = severity;
    d.path = *paths.begin();
    for (const std::string& path : paths) {
      if (auto it = m_places.find(path); it != m_places.end()) {
        d.path = path;
        d.line = it->second.line;
        d.column = it->second.column;
        break;
      }
    }
    d.message = std::move(message);
    d.hint = std::move(hint);
    m_out.push_back(std::move(d));
  }
  void error(std::initializer_list<std::string> paths, std::string message, std::string hint = {}) {
    report(Severity::Error, paths, std::move(message), std::move(hint));
  }
  void warning(std::initializer_list<std::string> paths, std::string message, std::string hint = {}) {
    report(Severity::Warning, paths, std::move(message), std::move(hint));
  }

  static std::string num(std::int64_t v) { return std::to_string(v); }

  bool remote() const { return isRemote(c.target.kind); }
  bool slurm() const { return c.target.kind == TargetKind::Slurm; }
  bool usesCuda() const {
    if (c.strategy.device == DeviceKind::Cuda) return true;
    if (c.strategy.device == DeviceKind::Cpu) return false;
    return m_host && m_host->cudaDevices > 0;
  }
  bool knownCpuOnly() const {
    if (c.strategy.device == DeviceKind::Cpu) return true;
    return c.strategy.device == DeviceKind::Auto && m_host && m_host->cudaDevices == 0;
  }

  void checkModel() {
    const ModelConfig& m = c.model;
    if (m.n_head > 0 && m.n_embd % m.n_head != 0) {
      const std::int64_t lower = m.n_embd / m.n_head * m.n_head;
      const std::int64_t upper = lower + m.n_head;
      error({"model.n_embd", "model.n_head"},
            "n_embd (" + num(m.n_embd) + ") is not divisible by n_head (" + num(m.n_head) + ")",
            "each head gets n_embd / n_head channels: use n_embd " + (lower > 0 ? num(lower) + " or " : "") +
                num(upper) + ", or an n_head that divides " + num(m.n_embd));
    }
    if (m.block_size > m.n_positions)
      error(
          {"model.block_size", "model.n_positions"},
          "block_size (" + num(m.block_size) + ") is longer than the model's n_positions (" + num(m.n_positions) + ")",
          "the model has no position embedding past " + num(m.n_positions) + ": use block_size " + num(m.n_positions) +
              " or less");
    if (const ModelPreset* preset = findModelPreset(m.preset)) {
      const std::pair<const char*, std::pair<std::int64_t, std::int64_t>> sizes[] = {
          {"n_layer", {m.n_layer, preset->n_layer}},
          {"n_head", {m.n_head, preset->n_head}},
          {"n_embd", {m.n_embd, preset->n_embd}},
          {"n_positions", {m.n_positions, preset->n_positions}},
          {"vocab_size", {m.vocab_size, preset->vocab_size}}};
      for (const auto& [key, values] : sizes)
        if (values.first != values.second)
          warning({std::string("model.") + key},
                  std::string(key) + " " + num(values.first) + " differs from preset " + std::string(preset->name) +
                      "'s " + num(values.second) + "; the value given wins",
                  m.init_from.empty() ? "" : "weights from init_from must have these sizes");
    }
    const std::int64_t tokenizerVocab = c.data.tokenizer == TokenizerKind::Byte ? 257 : 50257;
    if (m.vocab_size < tokenizerVocab)
      error({"model.vocab_size", "data.tokenizer"},
            "vocab_size (" + num(m.vocab_size) + ") is smaller than the " + std::string(toString(c.data.tokenizer)) +
                " tokenizer's " + num(tokenizerVocab) + " tokens",
            "use vocab_size " + num(tokenizerVocab) + " (or a larger multiple of 64 for speed)");
    if (!m.init_from.empty()) checkPath({"model.init_from"}, m.init_from, "the model to start from");
  }

  void checkData() {
    if (c.data.train.empty())
      error({"data.train", "data"}, "data.train is required: the training tokens",
            "prepare them with `traindeck-train prepare --tokenizer " + std::string(toString(c.data.tokenizer)) +
                " --out DIR files...` and set data.train: DIR");
    else
      checkPath({"data.train"}, c.data.train, "the training data", true);
    if (!c.data.val.empty()) checkPath({"data.val"}, c.data.val, "the validation data", true);
    if (c.data.tokenizer == TokenizerKind::Gpt2) {
      if (c.data.vocab.empty())
        error({"data.vocab", "data.tokenizer"}, "data.vocab is required for the gpt2 tokenizer",
              "point it at GPT-2's encoder.json (vocab.json), or use tokenizer: byte");
      else
        checkPath({"data.vocab"}, c.data.vocab, "the GPT-2 vocabulary");
      if (c.data.merges.empty())
        error({"data.merges", "data.tokenizer"}, "data.merges is required for the gpt2 tokenizer",
              "point it at GPT-2's vocab.bpe (merges.txt), or use tokenizer: byte");
      else
        checkPath({"data.merges"}, c.data.merges, "the GPT-2 merges");
    }
  }

  // `tokens`: it must be what `prepare` makes: a folder with dataset.json, or a token shard.
  void checkPath(std::initializer_list<std::string> paths, const std::string& value, const std::string& what,
                 bool tokens = false) {
    // On an ssh or slurm target, remote:/path names data already there; every other path is here,
    // and is uploaded at the start.
    if (remote() && value.rfind("remote:", 0) == 0) return;
    const ExpandedPath expanded = expandPath(value, m_baseDir, m_context.env);
    if (!expanded.error.empty()) {
      error(paths, expanded.error, "set the variable, or write the path out");
      return;
    }
    if (isGlob(expanded.path)) {
      glob_t matches{};
      const int rc = ::glob(expanded.path.c_str(), 0, nullptr, &matches);
      const std::size_t count = rc == 0 ? matches.gl_pathc : 0;
      ::globfree(&matches);
      if (count == 0) error(paths, "matches no file: " + expanded.path, "check the pattern; it should match " + what);
      return;
    }
    std::error_code ec;
    if (!std::filesystem::exists(expanded.path, ec)) {
      error(paths, "does not exist: " + expanded.path,
            what == "the training data" ? "run `traindeck-train prepare` to make it, or fix the path"
                                        : "fix the path to " + what);
      return;
    }
    if (!tokens) return;
    const std::string hint = "point it at a folder `traindeck-train prepare --out DIR` made, or one of its .bin shards";
    if (std::filesystem::is_directory(expanded.path, ec)) {
      if (!std::filesystem::exists(std::filesystem::path(expanded.path) / "dataset.json", ec))
        error(paths, "is a folder but not a prepared dataset (it has no dataset.json): " + expanded.path, hint);
      return;
    }
    // A shard starts with the magic of core/trainer/data/shard_format.h.
    std::ifstream in(expanded.path, std::ios::binary);
    char magic[8] = {};
    if (!in.read(magic, sizeof magic) || std::string_view(magic, sizeof magic) != "TDTOKENS")
      error(paths, "is not prepared tokens (a token shard starts with TDTOKENS): " + expanded.path, hint);
  }

  void checkStrategy() {
    const StrategyConfig& s = c.strategy;
    const std::int64_t world = s.worldSize();
    if (s.kind == StrategyKind::Single && world > 1)
      error({"strategy.kind", "strategy.nproc_per_node", "strategy.nnodes"},
            "single runs one process, but nproc_per_node x nnodes is " + num(world),
            "use kind: ddp (or zero1) for " + num(world) + " ranks, or set nproc_per_node and nnodes to 1");
    if ((s.kind == StrategyKind::Zero1 || s.kind == StrategyKind::Zero2 || s.kind == StrategyKind::Zero3) && world < 2)
      error(
          {"strategy.kind", "strategy.nproc_per_node"},
          std::string(s.kind == StrategyKind::Zero1   ? "zero1 shards the optimizer state"
                      : s.kind == StrategyKind::Zero2 ? "zero2 shards the gradients and optimizer state"
                                                      : "zero3 shards the parameters, gradients and optimizer state") +
              " across ranks and needs at least 2; this job has 1",
          "set nproc_per_node: 2 or more, or use kind: single");
    if (s.kind == StrategyKind::Ddp && world < 2)
      warning({"strategy.kind", "strategy.nproc_per_node"}, "ddp with one rank trains like single",
              "raise nproc_per_node to use more devices");
    // A Slurm job's batch script picks one from the job id for every node (slurm_batch).
    if (s.nnodes > 1 && s.master_port == 0 && c.target.kind != TargetKind::Slurm)
      error({"strategy.master_port", "strategy.nnodes"},
            "master_port 0 picks a free port, which the other nodes cannot know; " + num(s.nnodes) +
                " nodes need a fixed one",
            "set strategy.master_port to a port free on the master node, for example 29500");
    if (s.master_addr.empty())
      error({"strategy.master_addr"}, "is empty",
            "use 127.0.0.1 on one machine, or the address of the node that runs rank 0");
    if (s.backend == Backend::Nccl && s.device == DeviceKind::Cpu)
      error({"strategy.backend"}, "nccl needs CUDA devices, but strategy.device is cpu",
            "use backend: gloo (or auto) on the CPU");
    else if (s.backend == Backend::Nccl && knownCpuOnly())
      error({"strategy.backend", "strategy.device"}, "nccl needs CUDA devices, and " + m_where + " has none",
            "use backend: gloo (or auto)");
    if (s.backend == Backend::Gloo && usesCuda())
      warning({"strategy.backend"}, "gloo on CUDA tensors is much slower than nccl", "use backend: auto");
    if (m_host) {
      const int gpus = m_host->cudaDevices;
      if (s.device == DeviceKind::Cuda && gpus == 0)
        error({"strategy.device"}, "is cuda, but " + m_where + " has no CUDA device that LibTorch can use",
              slurm() ? "ask for GPUs with target.gpus_per_node (usually strategy.nproc_per_node), or use device: cpu"
              : remote() ? "use device: cpu or auto there, or a host with a GPU (target.host)"
                         : "use device: cpu or auto here, or run the job on a GPU machine (target.kind: ssh)");
      else if (usesCuda() && s.nproc_per_node > 1 && m_host->colabRuntime)
        error({"strategy.nproc_per_node"},
              "asks for " + num(s.nproc_per_node) + " ranks, but " + m_where +
                  " is a Colab runtime, and every Colab runtime has exactly one GPU (Colab has no multi-GPU runtime)",
              "use nproc_per_node: 1 there; for several GPUs use Kaggle's T4 x2 or a cloud VM");
      else if (usesCuda() && s.nproc_per_node > gpus)
        error({"strategy.nproc_per_node"},
              "asks for " + num(s.nproc_per_node) + " ranks on CUDA, but " + m_where + " has " + num(gpus) +
                  " CUDA device" + (gpus == 1 ? "" : "s"),
              slurm() ? "one rank per GPU: set target.gpus_per_node: " + num(s.nproc_per_node) +
                            ", or nproc_per_node: " + num(gpus) + " or fewer"
                      : "use nproc_per_node: " + num(gpus) + " or fewer (one rank per GPU)");
      else if (slurm() && usesCuda() && s.nproc_per_node < gpus)
        warning({"target.gpus_per_node", "strategy.nproc_per_node"},
                "asks Slurm for " + num(gpus) + " GPUs per node but runs " + num(s.nproc_per_node) + " rank" +
                    (s.nproc_per_node == 1 ? "" : "s") + " per node: " + num(gpus - s.nproc_per_node) +
                    " of them would sit idle",
                "set target.gpus_per_node: " + num(s.nproc_per_node) + ", or strategy.nproc_per_node: " + num(gpus));
    }
    if (s.precision != Precision::Fp32) {
      const std::string name(toString(s.precision));
      if (knownCpuOnly())
        error({"strategy.precision", "strategy.device"},
              name + " runs on CUDA devices; on the CPU this trainer computes in fp32",
              slurm() && c.strategy.device == DeviceKind::Auto
                  ? "use precision: fp32 on the CPU, or ask Slurm for GPUs with target.gpus_per_node"
                  : "use precision: fp32 on the CPU");
      else if (s.precision == Precision::Bf16 && usesCuda() && m_host && m_host->cudaDevices > 0 && !m_host->bf16)
        error({"strategy.precision"},
              "bf16 needs CUDA compute capability 8.0 or newer (A100, L4, H100), which this GPU lacks",
              "use precision: fp16 on older GPUs such as the T4");
    }
  }

  void checkSchedule() {
    const ScheduleConfig& s = c.schedule;
    if (s.max_steps == 0 && s.max_tokens == 0)
      error({"schedule.max_steps", "schedule.max_tokens"}, "the job has no end: max_steps and max_tokens are both 0",
            "set max_steps (optimizer steps) or max_tokens");
    if (s.max_steps > 0 && s.warmup_steps >= s.max_steps)
      error({"schedule.warmup_steps", "schedule.max_steps"},
            "warmup_steps (" + num(s.warmup_steps) + ") is not below max_steps (" + num(s.max_steps) + ")",
            "warm up for a small part of the run, e.g. " + num(std::max<std::int64_t>(0, s.max_steps / 10)) + " steps");
    if (s.min_lr > c.optimizer.lr)
      error({"schedule.min_lr", "optimizer.lr"}, "min_lr is above the peak learning rate optimizer.lr",
            "min_lr is where decay ends; it is usually lr / 10");
  }

  void checkTarget() {
    const TargetConfig& t = c.target;
    const std::vector<std::string> hosts = nodeHosts(t);
    if (t.kind == TargetKind::Ssh && hosts.empty())
      error({"target.host", "target.kind"}, "target.host is required for an ssh target",
            "for example host: ubuntu@203.0.113.7 or an ~/.ssh/config alias");
    if (t.kind == TargetKind::Slurm && t.host.empty())
      error({"target.host", "target.kind"}, "target.host is required for a slurm target: the cluster's login node",
            "for example host: me@login.cluster.example or an ~/.ssh/config alias");
    if (t.hosts.empty()) return;
    if (t.kind == TargetKind::Slurm) {
      error({"target.hosts", "target.kind"}, "target.hosts names hosts, but Slurm picks the nodes of a slurm job",
            "leave target.hosts empty: target.host is the login node and strategy.nnodes the number of nodes");
      return;
    }
    if (t.kind != TargetKind::Ssh)
      error({"target.hosts", "target.kind"}, "target.hosts names hosts, but target.kind is local",
            "set target.kind: ssh, or leave target.hosts empty to run on this machine");
    if (!t.host.empty() && !hosts.empty() && t.host != hosts.front())
      error({"target.host", "target.hosts"},
            "target.host (" + t.host + ") is not the first of target.hosts (" + hosts.front() + "), node 0",
            "leave target.host empty, or make it " + hosts.front());
    for (std::size_t i = 0; i < hosts.size(); ++i)
      if (std::find(hosts.begin(), hosts.begin() + static_cast<std::ptrdiff_t>(i), hosts[i]) !=
          hosts.begin() + static_cast<std::ptrdiff_t>(i))
        error({"target.hosts"}, hosts[i] + " is named twice: each host is one node",
              "name each host once, and raise strategy.nproc_per_node for more ranks on one host");
    const auto count = static_cast<std::int64_t>(hosts.size());
    if (count > 1 && c.strategy.nnodes != count)
      error({"strategy.nnodes", "target.hosts"},
            "target.hosts names " + num(count) + " hosts, one node each, but strategy.nnodes is " +
                num(c.strategy.nnodes),
            "set strategy.nnodes: " + num(count));
  }

  void checkSlurm() {
    if (!slurm()) {
      warnIgnoredSlurmKeys();
      return;
    }
    if (m_context.slurmPartitions) checkPartition(*m_context.slurmPartitions);
  }

  // Slurm keys on an ssh or local target: set by hand, or left from a slurm job this one was
  // made from. Each is named, so that a form marks each.
  void warnIgnoredSlurmKeys() {
    const SlurmConfig& s = c.target.slurm;
    const SlurmConfig none;
    const std::pair<const char*, bool> keys[] = {{"target.partition", s.partition != none.partition},
                                                 {"target.account", s.account != none.account},
                                                 {"target.qos", s.qos != none.qos},
                                                 {"target.time_limit", s.time_limit != none.time_limit},
                                                 {"target.gpus_per_node", s.gpus_per_node != none.gpus_per_node},
                                                 {"target.cpus_per_task", s.cpus_per_task != none.cpus_per_task},
                                                 {"target.mem", s.mem != none.mem},
                                                 {"target.constraint", s.constraint != none.constraint},
                                                 {"target.sbatch_args", s.sbatch_args != none.sbatch_args},
                                                 {"target.build", s.build != none.build},
                                                 {"target.max_requeues", s.max_requeues != none.max_requeues}};
    for (const auto& [key, set] : keys)
      if (set)
        warning({key},
                std::string(key) + " is a Slurm setting, ignored because target.kind is " +
                    std::string(toString(c.target.kind)),
                "set target.kind: slurm to use it, or remove it");
  }

  // Whether the job fits the partition at all; a job that does not would wait in the queue for
  // ever (or be refused by sbatch only after the upload and build).
  void checkPartition(const std::vector<SlurmPartition>& partitions) {
    const SlurmConfig& s = c.target.slurm;
    std::vector<std::string> names;
    std::string listed;
    for (const SlurmPartition& p : partitions) {
      names.push_back(p.name);
      listed += (listed.empty() ? "" : ", ") + p.name + (p.isDefault ? " (the default)" : "");
    }
    const std::string cluster = c.target.host.empty() ? "the cluster" : c.target.host + "'s cluster";
    const std::string has = partitions.empty() ? cluster + " lists no partitions" : cluster + " has " + listed;
    const SlurmPartition* p = nullptr;
    if (s.partition.empty()) {
      const auto found =
          std::find_if(partitions.begin(), partitions.end(), [](const SlurmPartition& q) { return q.isDefault; });
      if (found == partitions.end()) {
        error({"target.partition", "target.kind"},
              "target.partition is empty and " + cluster + " has no default partition; " + has,
              partitions.empty() ? "check sinfo on the login node" : "set target.partition to one of them");
        return;
      }
      p = &*found;
    } else {
      const auto found = std::find_if(partitions.begin(), partitions.end(),
                                      [&s](const SlurmPartition& q) { return q.name == s.partition; });
      if (found == partitions.end()) {
        const auto guess = closestMatch(s.partition, names);
        error({"target.partition"}, "'" + s.partition + "' is not a partition: " + has,
              guess                ? "did you mean " + *guess + "?"
              : partitions.empty() ? "check sinfo on the login node"
                                   : "use one of them, or leave target.partition empty for the default");
        return;
      }
      p = &*found;
    }
    const std::string never = "this job can never run in partition " + p->name + ": ";
    if (c.strategy.nnodes > p->nodes)
      error({"strategy.nnodes", "target.partition"},
            never + "it asks for " + num(c.strategy.nnodes) + " nodes (strategy.nnodes) and " + p->name + " has " +
                num(p->nodes),
            "use strategy.nnodes: " + num(p->nodes) + " or fewer, or a larger partition");
    if (s.gpus_per_node > p->gpusPerNode)
      error({"target.gpus_per_node", "target.partition"},
            never + "it asks for " + num(s.gpus_per_node) + " GPUs per node (target.gpus_per_node) and " + p->name +
                (p->gpusPerNode == 0 ? "'s nodes have none" : "'s nodes have at most " + num(p->gpusPerNode)),
            p->gpusPerNode == 0 ? "use a partition with GPUs, or gpus_per_node: 0 with strategy.device: cpu"
                                : "use gpus_per_node: " + num(p->gpusPerNode) +
                                      " or fewer (as many ranks per node), or another partition");
    const auto minutes = slurmMinutes(s.time_limit);
    if (minutes && p->maxMinutes && *minutes > *p->maxMinutes)
      error({"target.time_limit", "target.partition"},
            never + "its time_limit " + s.time_limit + " (" + slurmDurationText(*minutes) + ") is above " + p->name +
                "'s limit of " + slurmDurationText(*p->maxMinutes),
            "use time_limit: " + slurmTimeText(*p->maxMinutes) +
                " or less; the job requeues itself at the limit and resumes (target.max_requeues)");
  }

  const RunConfig& c;
  const ValidationContext& m_context;
  const std::optional<HostDevices> m_host;  // unknown for a remote target not probed
  const std::string m_where;                // "this machine", or target.host
  const std::map<std::string, SourcePlace>& m_places;
  const std::string& m_baseDir;
  Diagnostics m_out;
};

}  // namespace

Diagnostics validateConfig(const RunConfig& config, const ValidationContext& context,
                           const std::map<std::string, SourcePlace>& places, const std::string& baseDir) {
  return Checker(config, context, places, baseDir).run();
}

Diagnostics slurmPartitionProblems(const RunConfig& config, const std::vector<SlurmPartition>& partitions) {
  return Checker(config, ValidationContext{}, {}, ".").partitionsOnly(partitions);
}

Diagnostics checkConfig(const LoadedConfig& loaded, const ValidationContext& context) {
  Diagnostics all = loaded.problems;
  const bool unreadable = std::any_of(all.begin(), all.end(), [](const Diagnostic& d) { return d.path.empty(); });
  if (unreadable) return all;  // the file as a whole is wrong; rules on defaults would only add noise
  Diagnostics rules = validateConfig(loaded.config, context, loaded.places, loaded.baseDir);
  all.insert(all.end(), rules.begin(), rules.end());
  // In file order, as a compiler lists them; problems with no place in the file come last.
  std::stable_sort(all.begin(), all.end(), [](const Diagnostic& a, const Diagnostic& b) {
    const auto key = [](const Diagnostic& d) { return std::make_tuple(d.line == 0, d.line, d.column); };
    return key(a) < key(b);
  });
  return all;
}

Diagnostics problemsIn(const Diagnostics& all, std::initializer_list<std::string_view> sections) {
  Diagnostics out;
  for (const Diagnostic& d : all) {
    const std::string section = d.section();
    if (d.path.empty() || std::find(sections.begin(), sections.end(), section) != sections.end()) out.push_back(d);
  }
  return out;
}

std::vector<std::pair<const char*, std::string*>> pathFields(RunConfig& config) {
  return {{"model.init_from", &config.model.init_from},
          {"data.train", &config.data.train},
          {"data.val", &config.data.val},
          {"data.vocab", &config.data.vocab},
          {"data.merges", &config.data.merges},
          {"runs_root", &config.runs_root},
          {"target.identity", &config.target.identity}};
}

RunConfig withExpandedPaths(const RunConfig& config, const std::string& baseDir, const EnvLookup& env) {
  RunConfig out = config;
  for (const auto& [key, path] : pathFields(out))
    if (!path->empty()) *path = expandPath(*path, baseDir, env).path;
  return out;
}

std::string slugify(const std::string& name) {
  return runSlug(name);
}

}  // namespace traindeck
