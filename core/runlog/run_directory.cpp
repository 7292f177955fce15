// run.json is small and rewritten whole (temp file + rename), so a reader never sees half.
#include "run_directory.h"

#include <unistd.h>

#include <ctime>

#include "atomic_file.h"
#include "json_writer.h"

namespace traindeck {

const char* toString(RunStatus status) {
  switch (status) {
    case RunStatus::Starting: return "starting";
    case RunStatus::Running: return "running";
    case RunStatus::Finished: return "finished";
    case RunStatus::Failed: return "failed";
    case RunStatus::Stopped: return "stopped";
  }
  return "unknown";
}

namespace {
std::tm utc(std::chrono::system_clock::time_point when) {
  const std::time_t t = std::chrono::system_clock::to_time_t(when);
  std::tm out{};
  gmtime_r(&t, &out);
  return out;
}
}  // namespace

std::string makeRunId(std::chrono::system_clock::time_point when, const std::string& slug) {
  const std::tm tm = utc(when);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y%m%d-%H%M%S", &tm);
  return slug.empty() ? std::string(buffer) : std::string(buffer) + "-" + slug;
}

std::string isoTimeUtc(std::chrono::system_clock::time_point when) {
  const std::tm tm = utc(when);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

double unixSeconds(std::chrono::system_clock::time_point when) {
  return std::chrono::duration<double>(when.time_since_epoch()).count();
}

std::string hostName() {
  char buffer[256] = {};
  if (::gethostname(buffer, sizeof buffer - 1) != 0) return "unknown";
  return buffer;
}

std::string runInfoJson(const RunInfo& info) {
  JsonWriter j;
  j.beginObject();
  j.field("id", info.id).field("name", info.name).field("created", info.created).field("host", info.host);
  j.field("trainer_version", info.trainerVersion).field("world_size", info.worldSize);
  j.key("devices").beginArray();
  for (const std::string& d : info.devices) j.value(d);
  j.endArray();
  j.field("status", toString(info.status)).field("exit_reason", info.exitReason);
  j.field("supervisor_pid", info.supervisorPid);
  j.key("rank_pids").beginArray();
  for (const int pid : info.rankPids) j.value(pid);
  j.endArray();
  j.field("step", info.step);
  j.endObject();
  return j.str() + "\n";
}

std::string writeRunInfo(const RunPaths& paths, const RunInfo& info) {
  return writeFileAtomically(paths.runJson(), runInfoJson(info));
}

}  // namespace traindeck
