// The run directory contract (docs/design.md): how a run id is made (where each file lives is
// run_paths.h), and run.json, which is rewritten atomically whenever the run's status changes.
// Its writer (the trainer and its supervisor) and its reader (the app) are both here, with its keys.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runlog/run_paths.h"

namespace traindeck {

// Killed: its processes ended without a verdict of their own (SIGKILL, a crash of the
// supervisor); written once, by the job that killed it or by whoever finds it dead (run_verdict.h).
// Requeued: stopped under Slurm by a signal nobody asked for through stopRequest() (the time
// limit's SIGUSR2, a preemption's SIGTERM), every rank checkpointed; Slurm starts it again, and the
// same folder then says running with --resume.
enum class RunStatus { Starting, Running, Finished, Failed, Stopped, Killed, Requeued };
const char* toString(RunStatus status);
// "running" -> Running; nothing for any other text.
std::optional<RunStatus> runStatusFromString(std::string_view text);
// Why a run that did not finish stopped, when someone knows (run.json "end_cause"): asked by the
// user, the scheduler's time limit, a preemption or requeue, a cancel through the scheduler by
// someone else, a node that failed. None: not said (finished, failed, or an older writer).
enum class EndCause { None, Asked, TimeLimit, Preempted, Cancelled, NodeFailure };
const char* toString(EndCause cause);                // "asked", "time_limit", ...; "" for None
EndCause endCauseFromString(std::string_view text);  // None for any text it does not know
// In words, for the run list, the Monitor header and the rank logs: "asked by you", "time limit
// reached", "preempted, requeued", "cancelled through Slurm", "a node failed"; "" for None.
const char* endCauseWords(EndCause cause);

// Whether a run in this status may still have live processes.
inline bool isLive(RunStatus status) {
  return status == RunStatus::Starting || status == RunStatus::Running;
}

// run.json's keys.
namespace run_json {
inline constexpr const char* kId = "id";
inline constexpr const char* kName = "name";
inline constexpr const char* kCreated = "created";
inline constexpr const char* kHost = "host";
inline constexpr const char* kTrainerVersion = "trainer_version";
inline constexpr const char* kWorldSize = "world_size";
inline constexpr const char* kDevices = "devices";
inline constexpr const char* kStatus = "status";
inline constexpr const char* kExitReason = "exit_reason";
inline constexpr const char* kEndCause = "end_cause";
inline constexpr const char* kFailedRank = "failed_rank";
inline constexpr const char* kSupervisorPid = "supervisor_pid";
inline constexpr const char* kRankPids = "rank_pids";
inline constexpr const char* kStep = "step";
}  // namespace run_json

// "<UTC yyyymmdd-HHMMSS>-<slug>"
std::string makeRunId(std::chrono::system_clock::time_point when, const std::string& slug);

// The slug a run id ends with, from a run's name in any script: its letters and digits (ASCII
// lower-cased; others as written, "我的第一个模型"), every other run of characters one dash, at
// most kRunSlugBytes bytes cut at a character boundary. A name with nothing of that kind
// ("!!!", "🙂") gets "run-" and 8 hex digits of its hash; an empty name, an empty slug.
inline constexpr std::size_t kRunSlugBytes = 48;
std::string runSlug(std::string_view name);

struct RunInfo {
  std::string id;
  std::string name;
  std::string created;  // ISO 8601, UTC
  std::string host;
  std::string trainerVersion;
  int worldSize = 1;
  std::vector<std::string> devices;  // per rank: "cpu", "cuda:0"
  RunStatus status = RunStatus::Starting;
  std::string exitReason;  // empty while running
  EndCause endCause = EndCause::None;  // written only when not None
  int failedRank = -1;     // the rank whose failure ended the run; -1: none (or not a rank's)
  int supervisorPid = 0;
  std::vector<int> rankPids;
  std::int64_t step = 0;  // last completed step, for listings
};

std::string runInfoJson(const RunInfo& info);
// Atomically replaces run.json; returns an empty string or why it failed.
std::string writeRunInfo(const RunPaths& paths, const RunInfo& info);

struct RunInfoReadResult {
  RunInfo info;       // what could be read; defaults elsewhere
  std::string error;  // empty when run.json was a readable object with a known status
  bool ok() const { return error.empty(); }
};
// Reads what runInfoJson wrote. Tolerant: unknown keys are ignored, missing ones keep their
// defaults; an unreadable file, text that is not a JSON object or an unknown status is an error
// (with every field that could be read still filled in).
RunInfoReadResult parseRunInfo(std::string_view json);
RunInfoReadResult readRunInfo(const RunPaths& paths);

std::string isoTimeUtc(std::chrono::system_clock::time_point when);
double unixSeconds(std::chrono::system_clock::time_point when);
std::string hostName();

}  // namespace traindeck
