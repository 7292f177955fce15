// One supervised run of a node's ranks, from run.json "starting" to its final status; the
// object behind superviseRanks(). Lives on the caller's thread; the ranks are its children.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "line_tail.h"
#include "rank_group.h"
#include "step_follower.h"
#include "supervisor.h"

namespace traindeck {

class RankSupervisor {
 public:
  explicit RankSupervisor(const LaunchSpec& spec);
  LaunchResult run();

 private:
  std::string prepareRunDirectory();
  std::string startRanks(int masterPort);
  // Returns when every rank has exited, or as soon as one has failed (m_failed is then set).
  void watch();
  void followOutputs();
  void flushEcho();
  bool stopRequested() const { return (m_spec.stopRequested && *m_spec.stopRequested != 0) || m_markerSignal != 0; }
  void lookForMarkers();      // watchMarkers: a marker as the signal it stands for
  std::string where() const;  // "at step N" or "before the first step"
  void noteStopRequest();     // once, at the stop: which signal, and whether the user asked
  LaunchResult finishStopped();
  LaunchResult finish(RunStatus status, std::string reason, EndCause cause = EndCause::None);

  const LaunchSpec& m_spec;
  RunInfo m_info;
  RankGroup m_ranks;
  StepFollower m_steps;
  std::unique_ptr<LineTail> m_echo;  // the first local rank's log, when echoLog
  bool m_stopSent = false;
  bool m_anyStopped = false;
  bool m_stopNoted = false;
  int m_stopSignal = 0;                 // what the handler stored: the signal's number
  int m_markerSignal = 0;               // watchMarkers: SIGUSR2 for the stop marker, SIGTERM for the kill's
  std::chrono::steady_clock::time_point m_lastMarkerLook;
  bool m_stopAskedByUser = false;       // paths.stopRequest() was there when the stop came
  std::optional<std::size_t> m_failed;  // index in m_ranks.members() of the first failed rank
  std::chrono::steady_clock::time_point m_lastRunJsonWrite;
  std::int64_t m_stepInRunJson = 0;
};

}  // namespace traindeck
