// Layout of `traindeck-train plan`: figures aligned in one column, memory as a table with a
// share of the device for each kind, the verdict last.
#include "plan_report.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "config/enum_names.h"
#include "config/kind_fits.h"
#include "runlog/json_writer.h"

namespace traindeck {

namespace {

std::string fixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

std::string flops(double value) {
  const char* units[] = {"", "K", "M", "G", "T", "P", "E"};
  int unit = 0;
  while (value >= 1000 && unit < 6) {
    value /= 1000;
    ++unit;
  }
  return fixed(value, value < 10 ? 2 : 1) + " " + units[unit] + "FLOP";
}

std::string readableDuration(double seconds) {
  if (seconds <= 0) return "unknown";
  if (seconds < 1) return fixed(seconds * 1000, 0) + " ms";
  if (seconds < 120) return fixed(seconds, 2) + " s";
  if (seconds < 7200) return fixed(seconds / 60, 1) + " min";
  if (seconds < 2 * 86400) return fixed(seconds / 3600, 1) + " h";
  return fixed(seconds / 86400, 1) + " days";
}

std::string row(const std::string& label, const std::string& value) {
  std::string padded = "  " + label;
  padded.resize(std::max<std::size_t>(padded.size() + 1, 18), ' ');
  return padded + value + "\n";
}

std::string memoryRow(const std::string& label, std::int64_t bytes, std::int64_t available, const std::string& note = {}) {
  std::string size = formatBytes(bytes);
  size.insert(0, size.size() < 11 ? 11 - size.size() : 0, ' ');
  const double share = available > 0 ? 100.0 * static_cast<double>(bytes) / static_cast<double>(available) : 0;
  std::string pct = fixed(share, 1) + "%";
  pct.insert(0, pct.size() < 7 ? 7 - pct.size() : 0, ' ');
  return row(label, size + pct + (note.empty() ? "" : "   " + note));
}

// One row a kind: its per-rank memory at the config's micro_batch, whether that fits, and the
// largest micro_batch that does; the config's own kind marked.
std::string kindsFitText(const RunConfig& c, const Plan& p) {
  std::string text = "Which kinds fit (per rank, at micro_batch " + std::to_string(c.strategy.micro_batch) + ", of " +
                     formatBytes(p.memoryAvailable) + ")\n";
  for (const KindFit& fit : planEachKind(c, p.device)) {
    std::string size = formatBytes(fit.perRankBytes);
    size.insert(0, size.size() < 11 ? 11 - size.size() : 0, ' ');
    const std::string largest = fit.largestMicroBatch > 0
                                    ? "largest micro_batch " + std::to_string(fit.largestMicroBatch)
                                    : "not even micro_batch 1";
    text += row(std::string(toString(fit.kind)) + (fit.kind == c.strategy.kind ? " *" : ""),
                size + (fit.fits ? "   fits          " : "   does not fit  ") + largest);
  }
  return text;
}

}  // namespace

std::string planText(const RunConfig& c, const Plan& p) {
  const ModelConfig& m = c.model;
  const StrategyConfig& s = c.strategy;
  std::ostringstream out;
  out << "Plan for " << c.name << " on " << p.device.name << " (" << p.device.description << ")\n";
  out << row("model", "GPT-2" + (m.preset.empty() ? std::string() : " (" + m.preset + ")") + ", " +
                          std::to_string(m.n_layer) + " layers, " + std::to_string(m.n_head) + " heads, " +
                          std::to_string(m.n_embd) + " wide, " + std::to_string(m.block_size) + " tokens of context, " +
                          "vocabulary " + std::to_string(m.vocab_size));
  out << row("parameters", formatThousands(p.parameters));
  out << row("strategy", std::string(toString(s.kind)) + ", " + std::to_string(p.worldSize) + " rank" +
                             (p.worldSize == 1 ? "" : "s") + " (" + std::to_string(s.nnodes) + " node" +
                             (s.nnodes == 1 ? "" : "s") + " x " + std::to_string(s.nproc_per_node) + "), " +
                             std::string(toString(s.precision)) +
                             (s.activation_checkpointing ? ", activation checkpointing" : ""));
  out << row("batch", "micro_batch " + std::to_string(s.micro_batch) + " x grad_accum " + std::to_string(s.grad_accum) +
                          " x " + std::to_string(p.worldSize) + " rank" + (p.worldSize == 1 ? "" : "s"));
  out << row("tokens/step", formatThousands(p.tokensPerStep));
  out << row("FLOPs/token", flops(p.flopsPerToken) + " (6N + 12LCT, forward and backward)");

  const MemoryBreakdown& mem = p.memory;
  out << "Memory per rank (of " << formatBytes(p.memoryAvailable) << ")\n";
  const bool sharded =
      (s.kind == StrategyKind::Zero1 || s.kind == StrategyKind::Zero2 || s.kind == StrategyKind::Zero3) &&
      p.worldSize > 1;
  const std::string perRank =
      ", 1/" + std::to_string(p.worldSize) + " per rank (" + std::string(toString(s.kind)) + ")";
  const bool zero3 = s.kind == StrategyKind::Zero3 && sharded;
  out << memoryRow("weights", mem.weights, p.memoryAvailable,
                   zero3 ? "fp32" + perRank + " + two gathered units" : "fp32");
  out << memoryRow("gradients", mem.gradients, p.memoryAvailable,
                   (s.kind == StrategyKind::Zero2 || zero3) && sharded ? "fp32" + perRank : "fp32");
  out << memoryRow("optimizer", mem.optimizer, p.memoryAvailable,
                   sharded ? "AdamW moments" + perRank : "AdamW moments");
  if (mem.mixedPrecision > 0)
    out << memoryRow("mixed precision", mem.mixedPrecision, p.memoryAvailable,
                     std::string(toString(s.precision)) + " weight copies");
  out << memoryRow("activations", mem.activations, p.memoryAvailable,
                   std::to_string(s.micro_batch) + " x " + formatBytes(p.activationBytesPerSequence) + " per sequence");
  out << memoryRow("overhead", mem.overhead, p.memoryAvailable, "runtime and communication buffers");
  out << memoryRow("total", mem.total(), p.memoryAvailable,
                   p.fits ? "fits" : "DOES NOT FIT");
  out << "Speed\n";
  const double peak = p.device.peakFor(s.precision);
  if (p.stepSeconds > 0) {
    out << row("assumed", fixed(p.utilization * 100, 0) + "% of " + flops(peak) + "/s " +
                              std::string(toString(s.precision)) + " per device");
    out << row("step time", readableDuration(p.stepSeconds));
    out << row("tokens/s", formatThousands(std::llround(p.tokensPerSecond)) + " (all ranks)");
    if (c.schedule.max_steps > 0)
      out << row("full run", readableDuration(p.stepSeconds * static_cast<double>(c.schedule.max_steps)) + " for " +
                                 formatThousands(c.schedule.max_steps) + " steps");
  } else {
    out << row("step time", "unknown");
  }
  out << row("largest micro_batch", std::to_string(p.largestMicroBatch) + " fits");
  out << kindsFitText(c, p);
  if (!p.notes.empty()) {
    out << "Notes\n";
    for (const std::string& note : p.notes) out << "  - " << note << "\n";
  }
  return out.str();
}

std::string planJson(const RunConfig& c, const Plan& p) {
  JsonWriter j;
  j.beginObject();
  j.field("name", c.name);
  j.key("device").beginObject();
  j.field("name", p.device.name).field("description", p.device.description);
  j.field("memory_bytes", p.device.memoryBytes).field("peak_flops", p.device.peakFor(c.strategy.precision));
  j.endObject();
  j.field("parameters", p.parameters);
  j.field("world_size", p.worldSize);
  j.field("tokens_per_step", p.tokensPerStep);
  j.field("flops_per_token", p.flopsPerToken);
  j.key("memory_per_rank").beginObject();
  j.field("weights", p.memory.weights).field("gradients", p.memory.gradients);
  j.field("optimizer", p.memory.optimizer).field("mixed_precision", p.memory.mixedPrecision);
  j.field("activations", p.memory.activations).field("overhead", p.memory.overhead);
  j.field("total", p.memory.total()).field("available", p.memoryAvailable);
  j.endObject();
  j.field("activation_bytes_per_sequence", p.activationBytesPerSequence);
  j.field("utilization", p.utilization);
  if (p.stepSeconds > 0)
    j.field("step_seconds", p.stepSeconds).field("tokens_per_second", p.tokensPerSecond);
  else
    j.key("step_seconds").null().key("tokens_per_second").null();
  j.field("fits", p.fits);
  j.field("largest_micro_batch", p.largestMicroBatch);
  j.key("kinds").beginArray();
  for (const KindFit& fit : planEachKind(c, p.device)) {
    j.beginObject().field("kind", std::string(toString(fit.kind))).field("memory_per_rank", fit.perRankBytes);
    j.field("fits", fit.fits).field("largest_micro_batch", fit.largestMicroBatch).endObject();
  }
  j.endArray();
  j.key("notes").beginArray();
  for (const std::string& note : p.notes) j.value(note);
  j.endArray();
  j.endObject();
  return j.str() + "\n";
}

}  // namespace traindeck
