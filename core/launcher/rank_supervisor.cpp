// The watch loop polls (waitpid WNOHANG, then the logs) every 25 ms: simple, immune to EINTR,
// and fast enough that a failed rank's peers get SIGTERM within a poll interval.
#include "rank_supervisor.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <system_error>
#include <thread>

#include "error_line.h"
#include "rank_environment.h"
#include "rank_exit.h"
#include "rank_process.h"
#include "signal_names.h"

extern char** environ;

namespace traindeck {

namespace {

constexpr auto kSuperviseInterval = std::chrono::milliseconds(25);
constexpr auto kMarkerInterval = std::chrono::milliseconds(1000);  // watchMarkers: a stat a second
constexpr auto kRunJsonInterval = std::chrono::seconds(2);

std::string checkSpec(const LaunchSpec& spec) {
  if (spec.workerArgv.empty() || spec.workerArgv[0].empty()) return "no worker program was given";
  if (spec.nprocPerNode < 1) return "nproc_per_node must be at least 1";
  if (spec.nnodes < 1) return "nnodes must be at least 1";
  if (spec.nodeRank < 0 || spec.nodeRank >= spec.nnodes) {
    return "node rank " + std::to_string(spec.nodeRank) + " is outside 0.." + std::to_string(spec.nnodes - 1);
  }
  if (spec.masterPort < 0 || spec.masterPort > 65535) return "master port must be between 1 and 65535";
  if (spec.masterPort == 0 && spec.nnodes > 1) {
    return "a run on " + std::to_string(spec.nnodes) + " nodes needs a master port that every node is given";
  }
  if (spec.graceSeconds < 0) return "the grace period must not be negative";
  return {};
}

}  // namespace

RankSupervisor::RankSupervisor(const LaunchSpec& spec)
    : m_spec(spec), m_info(spec.info), m_steps(spec.paths.metrics()) {}

LaunchResult RankSupervisor::run() {
  if (m_spec.paths.root.empty()) return {RunStatus::Failed, "no run directory was given"};
  m_info.worldSize = m_spec.nnodes * m_spec.nprocPerNode;
  m_info.status = RunStatus::Starting;
  m_info.exitReason.clear();
  m_info.supervisorPid = static_cast<int>(::getpid());
  m_info.rankPids.clear();
  if (std::string error = prepareRunDirectory(); !error.empty()) return {RunStatus::Failed, error};
  if (std::string error = checkSpec(m_spec); !error.empty()) return finish(RunStatus::Failed, error);

  int port = m_spec.masterPort;
  if (port == 0) port = pickFreePort(m_spec.masterAddr);
  if (port == 0) {
    return finish(RunStatus::Failed, "no free TCP port could be bound on " + m_spec.masterAddr +
                                         "; check the master address or give a master port");
  }
  if (std::string error = startRanks(port); !error.empty()) {
    m_ranks.terminate(m_spec.graceSeconds);
    return finish(RunStatus::Failed, error);
  }
  m_info.status = RunStatus::Running;
  m_info.rankPids = m_ranks.pids();
  writeRunInfo(m_spec.paths, m_info);  // a failure here shows again, and is reported, at the end
  m_lastRunJsonWrite = std::chrono::steady_clock::now();
  m_stepInRunJson = m_info.step;

  watch();
  if (m_failed) {
    m_steps.update();
    const RankMember& failed = m_ranks.members()[*m_failed];
    std::string reason = describeRankFailure(failed.rank, failed.waitStatus, where(),
                                             lastErrorLine(m_spec.paths.rankLog(failed.rank), failed.logOffset),
                                             RunPaths::rankLogName(failed.rank));
    for (int rank : m_ranks.stoppedRanks())
      reason += "; rank " + std::to_string(rank) + " was stopped (SIGSTOP or a debugger) and hung the job";
    m_ranks.terminate(m_spec.graceSeconds);
    followOutputs();
    flushEcho();
    m_info.failedRank = failed.rank;
    return finish(RunStatus::Failed, reason);
  }
  followOutputs();
  flushEcho();
  // Every rank exited 0: the run is finished, even when a stop came after its last step (a
  // Slurm job must not be requeued for nothing).
  if (m_anyStopped) return finishStopped();
  const std::int64_t steps = m_steps.sawTrainRecord() ? m_steps.lastStep() : m_info.step;
  return finish(RunStatus::Finished, "finished " + std::to_string(steps) + " steps");
}

std::string RankSupervisor::prepareRunDirectory() {
  std::error_code ec;
  std::filesystem::create_directories(m_spec.paths.logs(), ec);
  if (ec) {
    return "could not create " + m_spec.paths.logs() + ": " + ec.message() +
           "; check that the run directory is writable";
  }
  if (!stopRequested() && !m_spec.watchMarkers) {  // an earlier attempt's markers
    std::filesystem::remove(m_spec.paths.stopRequest(), ec);
    std::filesystem::remove(m_spec.paths.killRequest(), ec);
  }
  m_steps.update();  // a resumed run starts at the step its metrics reached
  if (m_steps.sawTrainRecord()) m_info.step = m_steps.lastStep();
  if (std::string error = writeRunInfo(m_spec.paths, m_info); !error.empty()) {
    return error + "; check that the run directory is writable";
  }
  return {};
}

std::string RankSupervisor::startRanks(int masterPort) {
  const int firstRank = m_spec.nodeRank * m_spec.nprocPerNode;
  for (int local = 0; local < m_spec.nprocPerNode; ++local) {
    RankIdentity id;
    id.rank = firstRank + local;
    id.localRank = local;
    id.worldSize = m_info.worldSize;
    id.localWorldSize = m_spec.nprocPerNode;
    id.groupRank = m_spec.nodeRank;
    id.masterAddr = m_spec.masterAddr;
    id.masterPort = masterPort;

    RankCommand command;
    command.argv = m_spec.workerArgv;
    command.environment = mergeEnvironment(environ, rankVariables(id, m_spec.extraEnv));
    command.logPath = m_spec.paths.rankLog(id.rank);
    const StartedRank started = startRank(command);
    if (started.pid < 0) {
      return "rank " + std::to_string(id.rank) + " could not be started (" + started.error +
             "); check the worker program and the run directory";
    }
    m_ranks.add(id.rank, started.pid, started.logOffset);
    if (local == 0 && m_spec.echoLog) m_echo = std::make_unique<LineTail>(command.logPath, started.logOffset);
  }
  return {};
}

void RankSupervisor::watch() {
  while (m_ranks.anyAlive()) {
    lookForMarkers();
    if (!m_stopSent && stopRequested()) {
      noteStopRequest();
      m_ranks.signalAlive(SIGTERM);  // once: the ranks save a checkpoint and exit kWorkerStopped
      m_stopSent = true;
    }
    for (const std::size_t index : m_ranks.reapExited()) {
      const RankMember& member = m_ranks.members()[index];
      switch (classifyRankExit(member.waitStatus, m_stopSent || stopRequested())) {
        case RankOutcome::Finished:
          break;
        case RankOutcome::Stopped:
          m_anyStopped = true;
          break;
        case RankOutcome::Failed:
          if (!m_failed) m_failed = index;
          break;
      }
    }
    if (m_failed) return;
    followOutputs();
    if (m_ranks.anyAlive()) std::this_thread::sleep_for(kSuperviseInterval);
  }
}

void RankSupervisor::lookForMarkers() {
  if (!m_spec.watchMarkers || m_markerSignal != 0) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - m_lastMarkerLook < kMarkerInterval) return;
  m_lastMarkerLook = now;
  std::error_code ec;
  if (std::filesystem::exists(m_spec.paths.killRequest(), ec))
    m_markerSignal = SIGTERM;  // as scancel's: the ranks end, the run says it was killed from TrainDeck
  else if (std::filesystem::exists(m_spec.paths.stopRequest(), ec))
    m_markerSignal = SIGUSR2;
}

void RankSupervisor::followOutputs() {
  if (m_echo) {
    for (const std::string& line : m_echo->readNewLines()) {
      const std::string text = line + "\n";
      std::fwrite(text.data(), 1, text.size(), stderr);
    }
  }
  m_steps.update();
  if (!m_steps.sawTrainRecord()) return;
  m_info.step = m_steps.lastStep();
  const auto now = std::chrono::steady_clock::now();
  if (m_info.step != m_stepInRunJson && now - m_lastRunJsonWrite >= kRunJsonInterval) {
    writeRunInfo(m_spec.paths, m_info);  // best effort while running; the final write is checked
    m_lastRunJsonWrite = now;
    m_stepInRunJson = m_info.step;
  }
}

void RankSupervisor::flushEcho() {
  if (!m_echo) return;
  const std::string rest = m_echo->takePartialLine();
  if (rest.empty()) return;
  const std::string text = rest + "\n";
  std::fwrite(text.data(), 1, text.size(), stderr);
}

std::string RankSupervisor::where() const {
  if (!m_steps.sawTrainRecord()) return "before the first step";
  return "at step " + std::to_string(m_steps.lastStep());
}

void RankSupervisor::noteStopRequest() {
  if (m_stopNoted) return;
  m_stopNoted = true;
  m_stopSignal = m_markerSignal != 0 ? m_markerSignal : static_cast<int>(*m_spec.stopRequested);
  std::error_code ec;
  m_stopAskedByUser = std::filesystem::exists(m_spec.paths.stopRequest(), ec);
}

// A stop the ranks took: on request (a signal), or on their own (--stop-at). Under Slurm, a
// signal the user did not ask for through the marker came from Slurm: the run is requeued. The
// marker is looked for again now too, in case the app wrote it just after its signal.
LaunchResult RankSupervisor::finishStopped() {
  if (!m_stopSent && !stopRequested()) return finish(RunStatus::Stopped, "stopped " + where() + "; --resume continues");
  noteStopRequest();  // a signal that came after the ranks had stopped on their own
  std::error_code ec;
  const bool askedByUser = m_stopAskedByUser || std::filesystem::exists(m_spec.paths.stopRequest(), ec);
  if (m_spec.underSlurm && std::filesystem::exists(m_spec.paths.killRequest(), ec))
    return finish(RunStatus::Killed,
                  "killed from TrainDeck " + where() +
                      ": its Slurm job was cancelled; --resume continues from the "
                      "newest checkpoint",
                  EndCause::Asked);
  if (!m_spec.underSlurm || askedByUser || m_stopSignal == SIGINT)
    return finish(RunStatus::Stopped, "stopped " + where() + " on request; --resume continues", EndCause::Asked);
  if (m_stopSignal == SIGUSR2 && m_spec.requeuesLeft == 0)
    return finish(RunStatus::Stopped,
                  "stopped " + where() +
                      " at Slurm's time limit, every rank checkpointed; no requeue is left "
                      "(target.max_requeues): --resume continues",
                  EndCause::TimeLimit);
  std::string cause;
  if (m_stopSignal == SIGUSR2)
    cause = "Slurm's time limit is near (SIGUSR2)";
  else if (m_stopSignal == SIGTERM)
    cause = "Slurm preempted the job or its time ran out (SIGTERM)";
  else
    cause = "Slurm stopped the job (" + signalName(m_stopSignal) + ")";
  const std::string what = m_steps.sawTrainRecord()
                               ? "every rank checkpointed " + where() + "; Slurm starts it again from there"
                               : "stopped " + where() + "; Slurm starts it again";
  // A cancel (scancel) also sends SIGTERM: the app, which sees the job leave the queue instead
  // of coming back, then writes the verdict (app/jobs/run_end_rule.h).
  return finish(RunStatus::Requeued, cause + ": " + what,
                m_stopSignal == SIGUSR2 ? EndCause::TimeLimit : EndCause::Preempted);
}

LaunchResult RankSupervisor::finish(RunStatus status, std::string reason, EndCause cause) {
  m_info.status = status;
  m_info.exitReason = reason;
  m_info.endCause = cause;
  if (m_steps.sawTrainRecord()) m_info.step = m_steps.lastStep();
  if (std::string error = writeRunInfo(m_spec.paths, m_info); !error.empty()) {
    reason += "; run.json could not be updated: " + error;
  }
  return {status, reason};
}

}  // namespace traindeck
