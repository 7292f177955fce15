// The running ranks of one node: reaps the ones that exited, signals the live ones, and tears
// them all down (SIGTERM, a grace period, SIGKILL). Owned by the supervisor's thread.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <vector>

namespace traindeck {

struct RankMember {
  int rank = 0;
  pid_t pid = -1;
  std::int64_t logOffset = 0;  // where this run's part of the rank's log begins
  bool alive = true;
  int waitStatus = 0;  // from waitpid(), once reaped
};

class RankGroup {
 public:
  RankGroup() = default;
  // Whatever is still alive is killed and reaped: no rank outlives its group.
  ~RankGroup();
  RankGroup(const RankGroup&) = delete;
  RankGroup& operator=(const RankGroup&) = delete;

  void add(int rank, pid_t pid, std::int64_t logOffset);
  // Reaps the ranks that have exited since the last call, without blocking; returns their
  // indexes in members(), in rank order.
  std::vector<std::size_t> reapExited();
  bool anyAlive() const;
  void signalAlive(int signal);
  // SIGTERM to the live ranks, up to `graceSeconds` for them to exit, SIGKILL to the rest;
  // returns when every rank has been reaped.
  void terminate(double graceSeconds);

  // Live ranks that are stopped (state T in /proc: SIGSTOP, or a debugger): a hung job's cause.
  std::vector<int> stoppedRanks() const;

  const std::vector<RankMember>& members() const { return m_members; }
  std::vector<int> pids() const;

 private:
  void killAndReapAll();
  std::vector<RankMember> m_members;
};

}  // namespace traindeck
