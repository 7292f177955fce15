// metrics.jsonl's record kinds and field names (schema 1, docs/design.md): the trainer writes
// them, the app reads them, both through these constants.
#pragma once

#include <string_view>

namespace traindeck::metrics_kind {
inline constexpr std::string_view kHeader = "header";
inline constexpr std::string_view kTrain = "train";
inline constexpr std::string_view kEval = "eval";
inline constexpr std::string_view kSystem = "system";
inline constexpr std::string_view kEvent = "event";
}  // namespace traindeck::metrics_kind

namespace traindeck::metrics_key {
// Every record.
inline constexpr std::string_view kKind = "kind";
inline constexpr std::string_view kTime = "time";
// header
inline constexpr std::string_view kSchema = "schema";
inline constexpr std::string_view kRunId = "run_id";
inline constexpr std::string_view kParameters = "parameters";
inline constexpr std::string_view kWorldSize = "world_size";
inline constexpr std::string_view kTokensPerStep = "tokens_per_step";
inline constexpr std::string_view kTotalSteps = "total_steps";
inline constexpr std::string_view kStartStep = "start_step";
// train and eval
inline constexpr std::string_view kStep = "step";
inline constexpr std::string_view kTokens = "tokens";
inline constexpr std::string_view kLoss = "loss";
inline constexpr std::string_view kLr = "lr";
inline constexpr std::string_view kGradNorm = "grad_norm";
inline constexpr std::string_view kTokensPerSecond = "tokens_per_s";
inline constexpr std::string_view kStepMs = "step_ms";
inline constexpr std::string_view kMfu = "mfu";
inline constexpr std::string_view kCommMs = "comm_ms";
inline constexpr std::string_view kCommOverlapMs = "comm_overlap_ms";
inline constexpr std::string_view kGatherMs = "gather_ms";
inline constexpr std::string_view kGatherWaitMs = "gather_wait_ms";
inline constexpr std::string_view kValLoss = "val_loss";
// system
inline constexpr std::string_view kRank = "rank";
inline constexpr std::string_view kDevice = "device";
inline constexpr std::string_view kUtil = "util";
inline constexpr std::string_view kMemUsed = "mem_used";
inline constexpr std::string_view kMemTotal = "mem_total";
inline constexpr std::string_view kPowerW = "power_w";
inline constexpr std::string_view kTempC = "temp_c";
inline constexpr std::string_view kCpuUtil = "cpu_util";
inline constexpr std::string_view kRss = "rss";
inline constexpr std::string_view kMemPeak = "mem_peak";
// event (and kRank, kStep)
inline constexpr std::string_view kLevel = "level";
inline constexpr std::string_view kMsg = "msg";
}  // namespace traindeck::metrics_key
