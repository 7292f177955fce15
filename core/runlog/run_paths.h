// Every name inside a run directory (docs/design.md, "The run directory"), written once: the
// trainer, its supervisor, the app and its mirror build their paths from these. The helper script
// on a host (packaging/remote/traindeck-remote.sh) and the exported scripts' writer
// (resources/exports/run_writer.py) keep copies; tests/runlog's run_paths_test reads them and
// checks that their names are these.
#pragma once

#include <string>

namespace traindeck {

namespace run_file {
inline constexpr const char* kConfig = "config.yaml";  // the fully resolved config
inline constexpr const char* kRunJson = "run.json";
inline constexpr const char* kMetrics = "metrics.jsonl";
inline constexpr const char* kLogs = "logs";  // logs/rank-<r>.log
inline constexpr const char* kSupervisorLog = "supervisor.log";
inline constexpr const char* kCheckpoints = "checkpoints";      // checkpoints/step-<N>/ (checkpoint_names.h)
inline constexpr const char* kCheckpointComplete = "COMPLETE";  // in a checkpoint folder, written last
// Hugging Face exports of the run's weights, each a folder: <checkpoint>-hf from a checkpoint
// (the helper script's export, run by Fetch HF export), newest-hf from an exported script.
inline constexpr const char* kExports = "exports";
inline constexpr const char* kHfSuffix = "-hf";
inline constexpr const char* kStopRequest = "stop-requested";
inline constexpr const char* kKillRequest = "kill-requested";
// The app's mirror of a run on other hosts only: how to reach it, and node n's own mirror.
inline constexpr const char* kRemoteRecord = "remote.json";
inline constexpr const char* kNodes = "nodes";  // nodes/node-<n>/
// The helper script's own records in a run folder on a host (it alone writes and reads them):
// what `launch` started, what `submit` submitted, and sbatch's complaints.
inline constexpr const char* kLaunchRecord = "launch.env";
inline constexpr const char* kSlurmRecord = "slurm.env";
inline constexpr const char* kSbatchErrors = "sbatch.err";
// The top-level names above, for checks that a name is one of them.
inline constexpr const char* kAll[] = {kConfig,      kRunJson,      kMetrics,     kLogs,        kSupervisorLog,
                                       kCheckpoints, kExports,      kStopRequest, kKillRequest, kRemoteRecord,
                                       kNodes,       kLaunchRecord, kSlurmRecord, kSbatchErrors};
}  // namespace run_file

struct RunPaths {
  std::string root;  // the run directory itself; empty: the current folder
  std::string file(const std::string& name) const { return root.empty() ? name : root + "/" + name; }
  std::string config() const { return file(run_file::kConfig); }
  std::string runJson() const { return file(run_file::kRunJson); }
  std::string metrics() const { return file(run_file::kMetrics); }
  std::string logs() const { return file(run_file::kLogs); }
  std::string rankLog(int rank) const { return file(rankLogName(rank)); }
  std::string supervisorLog() const { return file(run_file::kSupervisorLog); }
  std::string checkpoints() const { return file(run_file::kCheckpoints); }
  std::string exports() const { return file(run_file::kExports); }
  // exports/<checkpoint>-hf: where the Hugging Face export of that checkpoint goes.
  std::string hfExport(const std::string& checkpoint) const {
    return exports() + "/" + checkpoint + run_file::kHfSuffix;
  }
  // A marker that the user asked for the stop a signal brings (the app writes it before it
  // signals): a run under Slurm then ends stopped, not requeued. The supervisor removes it when it
  // starts, so that each stop is judged afresh.
  std::string stopRequest() const { return file(run_file::kStopRequest); }
  // The same for a Kill of a Slurm job (the helper's `cancel` writes it before scancel, whose
  // SIGTERM would otherwise read as a preemption): the run ends killed, asked by the user.
  std::string killRequest() const { return file(run_file::kKillRequest); }
  std::string remoteRecord() const { return file(run_file::kRemoteRecord); }

  // "logs/rank-3.log": a rank's log relative to the run directory, as the mirror and reasons name it.
  static std::string rankLogName(int rank) {
    return std::string(run_file::kLogs) + "/rank-" + std::to_string(rank) + ".log";
  }
};

}  // namespace traindeck
