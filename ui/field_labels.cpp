#include "field_labels.h"

#include <QCoreApplication>
#include <QHash>

namespace traindeck {

QString fieldLabel(const QString& path) {
  static const QHash<QString, const char*> labels = {
      {"name", QT_TRANSLATE_NOOP("FieldLabel", "Run name")},
      {"seed", QT_TRANSLATE_NOOP("FieldLabel", "Random seed")},
      {"runs_root", QT_TRANSLATE_NOOP("FieldLabel", "Runs folder")},
      {"model.preset", QT_TRANSLATE_NOOP("FieldLabel", "Model preset")},
      {"model.n_layer", QT_TRANSLATE_NOOP("FieldLabel", "Layers")},
      {"model.n_head", QT_TRANSLATE_NOOP("FieldLabel", "Attention heads")},
      {"model.n_embd", QT_TRANSLATE_NOOP("FieldLabel", "Embedding width")},
      {"model.n_positions", QT_TRANSLATE_NOOP("FieldLabel", "Positions (longest context)")},
      {"model.block_size", QT_TRANSLATE_NOOP("FieldLabel", "Context (tokens per sequence)")},
      {"model.vocab_size", QT_TRANSLATE_NOOP("FieldLabel", "Vocabulary (tokens)")},
      {"model.dropout", QT_TRANSLATE_NOOP("FieldLabel", "Dropout (fraction)")},
      {"model.init_from", QT_TRANSLATE_NOOP("FieldLabel", "Start from weights")},
      {"data.train", QT_TRANSLATE_NOOP("FieldLabel", "Training data")},
      {"data.val", QT_TRANSLATE_NOOP("FieldLabel", "Validation data")},
      {"data.tokenizer", QT_TRANSLATE_NOOP("FieldLabel", "Tokenizer")},
      {"data.vocab", QT_TRANSLATE_NOOP("FieldLabel", "GPT-2 vocabulary (encoder.json)")},
      {"data.merges", QT_TRANSLATE_NOOP("FieldLabel", "GPT-2 merges (vocab.bpe)")},
      {"strategy.kind", QT_TRANSLATE_NOOP("FieldLabel", "Parallelism")},
      {"strategy.device", QT_TRANSLATE_NOOP("FieldLabel", "Device")},
      {"strategy.nproc_per_node", QT_TRANSLATE_NOOP("FieldLabel", "Ranks per node")},
      {"strategy.nnodes", QT_TRANSLATE_NOOP("FieldLabel", "Nodes")},
      {"strategy.backend", QT_TRANSLATE_NOOP("FieldLabel", "Communication")},
      {"strategy.precision", QT_TRANSLATE_NOOP("FieldLabel", "Precision")},
      {"strategy.micro_batch", QT_TRANSLATE_NOOP("FieldLabel", "Micro-batch (sequences per rank)")},
      {"strategy.grad_accum", QT_TRANSLATE_NOOP("FieldLabel", "Gradient accumulation (micro-batches)")},
      {"strategy.activation_checkpointing", QT_TRANSLATE_NOOP("FieldLabel", "Recompute activations")},
      {"strategy.bucket_mb", QT_TRANSLATE_NOOP("FieldLabel", "Gradient bucket (MB)")},
      {"strategy.master_addr", QT_TRANSLATE_NOOP("FieldLabel", "Rendezvous address")},
      {"strategy.master_port", QT_TRANSLATE_NOOP("FieldLabel", "Rendezvous port")},
      {"strategy.rendezvous_timeout_s", QT_TRANSLATE_NOOP("FieldLabel", "Rendezvous timeout (s)")},
      {"strategy.collective_timeout_s", QT_TRANSLATE_NOOP("FieldLabel", "Collective timeout (s)")},
      {"optimizer.type", QT_TRANSLATE_NOOP("FieldLabel", "Optimizer")},
      {"optimizer.lr", QT_TRANSLATE_NOOP("FieldLabel", "Learning rate (peak)")},
      {"optimizer.betas", QT_TRANSLATE_NOOP("FieldLabel", "Adam betas")},
      {"optimizer.eps", QT_TRANSLATE_NOOP("FieldLabel", "Adam epsilon")},
      {"optimizer.weight_decay", QT_TRANSLATE_NOOP("FieldLabel", "Weight decay")},
      {"optimizer.grad_clip", QT_TRANSLATE_NOOP("FieldLabel", "Gradient clip (norm)")},
      {"schedule.warmup_steps", QT_TRANSLATE_NOOP("FieldLabel", "Warm-up (steps)")},
      {"schedule.decay", QT_TRANSLATE_NOOP("FieldLabel", "Decay")},
      {"schedule.min_lr", QT_TRANSLATE_NOOP("FieldLabel", "Final learning rate")},
      {"schedule.max_steps", QT_TRANSLATE_NOOP("FieldLabel", "Length (steps)")},
      {"schedule.max_tokens", QT_TRANSLATE_NOOP("FieldLabel", "Length (tokens)")},
      {"eval.every", QT_TRANSLATE_NOOP("FieldLabel", "Evaluate every (steps)")},
      {"eval.batches", QT_TRANSLATE_NOOP("FieldLabel", "Evaluation batches")},
      {"checkpoint.every", QT_TRANSLATE_NOOP("FieldLabel", "Checkpoint every (steps)")},
      {"checkpoint.keep", QT_TRANSLATE_NOOP("FieldLabel", "Checkpoints kept")},
      {"checkpoint.resume", QT_TRANSLATE_NOOP("FieldLabel", "Resume from the last checkpoint")},
      {"target.kind", QT_TRANSLATE_NOOP("FieldLabel", "Runs on")},
      {"target.host", QT_TRANSLATE_NOOP("FieldLabel", "SSH host")},
      {"target.user", QT_TRANSLATE_NOOP("FieldLabel", "SSH user")},
      {"target.port", QT_TRANSLATE_NOOP("FieldLabel", "SSH port")},
      {"target.identity", QT_TRANSLATE_NOOP("FieldLabel", "SSH key file")},
      {"target.proxy_command", QT_TRANSLATE_NOOP("FieldLabel", "ProxyCommand")},
      {"target.remote_dir", QT_TRANSLATE_NOOP("FieldLabel", "Work folder on the host")},
      {"target.hosts", QT_TRANSLATE_NOOP("FieldLabel", "Several hosts (one node each)")},
      {"target.node_address", QT_TRANSLATE_NOOP("FieldLabel", "Node 0's address for the nodes")},
  };
  const auto it = labels.constFind(path);
  return it == labels.constEnd() ? path.section('.', -1) : QCoreApplication::translate("FieldLabel", it.value());
}

}  // namespace traindeck
