// run.json is read, changed and written whole (writeRunInfo: temp file + rename).
#include "run_verdict.h"

namespace traindeck {

namespace {

RunInfo infoToMark(const RunPaths& paths, const RunIdentity& identity, bool* hadVerdict) {
  const RunInfoReadResult read = readRunInfo(paths);
  RunInfo info = read.info;  // what could be read, also from a damaged file
  *hadVerdict = read.ok() && !isLive(read.info.status) && read.info.status != RunStatus::Requeued;
  if (info.id.empty()) info.id = identity.id;
  if (info.name.empty()) info.name = identity.name;
  if (info.host.empty()) info.host = identity.host;
  if (info.created.empty()) info.created = isoTimeUtc(std::chrono::system_clock::now());
  return info;
}

}  // namespace

bool markRunKilled(const RunPaths& paths, const std::string& reason, const RunIdentity& identity, EndCause cause) {
  bool hadVerdict = false;
  RunInfo info = infoToMark(paths, identity, &hadVerdict);
  if (hadVerdict) return false;
  info.status = RunStatus::Killed;
  info.exitReason = reason;
  info.endCause = cause;
  return writeRunInfo(paths, info).empty();
}

std::string markRunFailed(const RunPaths& paths, const std::string& reason, const RunIdentity& identity,
                          int failedRank) {
  bool hadVerdict = false;
  RunInfo info = infoToMark(paths, identity, &hadVerdict);
  info.status = RunStatus::Failed;
  info.exitReason = reason;
  info.endCause = EndCause::None;
  info.failedRank = failedRank;
  return writeRunInfo(paths, info);
}

}  // namespace traindeck
