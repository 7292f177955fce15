// The run directory contract (docs/design.md): where each file lives, how a run id is made,
// and run.json, which is rewritten atomically whenever the run's status changes.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace traindeck {

enum class RunStatus { Starting, Running, Finished, Failed, Stopped };
const char* toString(RunStatus status);

// "<UTC yyyymmdd-HHMMSS>-<slug>"
std::string makeRunId(std::chrono::system_clock::time_point when, const std::string& slug);

struct RunPaths {
  std::string root;  // the run directory itself
  std::string config() const { return root + "/config.yaml"; }
  std::string runJson() const { return root + "/run.json"; }
  std::string metrics() const { return root + "/metrics.jsonl"; }
  std::string logs() const { return root + "/logs"; }
  std::string rankLog(int rank) const { return logs() + "/rank-" + std::to_string(rank) + ".log"; }
  std::string checkpoints() const { return root + "/checkpoints"; }
  std::string exportDir() const { return root + "/export"; }
};

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
  int supervisorPid = 0;
  std::vector<int> rankPids;
  std::int64_t step = 0;  // last completed step, for listings
};

std::string runInfoJson(const RunInfo& info);
// Atomically replaces run.json; returns an empty string or why it failed.
std::string writeRunInfo(const RunPaths& paths, const RunInfo& info);

std::string isoTimeUtc(std::chrono::system_clock::time_point when);
double unixSeconds(std::chrono::system_clock::time_point when);
std::string hostName();

}  // namespace traindeck
