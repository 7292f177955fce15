// waitpid() is asked per pid, never with -1: the caller's other children are not ours to reap.
#include "rank_group.h"

#include <signal.h>
#include <sys/wait.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>

namespace traindeck {

namespace {
constexpr auto kReapInterval = std::chrono::milliseconds(10);
}

RankGroup::~RankGroup() {
  killAndReapAll();
}

void RankGroup::add(int rank, pid_t pid, std::int64_t logOffset) {
  m_members.push_back(RankMember{rank, pid, logOffset, true, 0});
}

std::vector<std::size_t> RankGroup::reapExited() {
  std::vector<std::size_t> exited;
  for (std::size_t i = 0; i < m_members.size(); ++i) {
    RankMember& m = m_members[i];
    if (!m.alive) continue;
    int status = 0;
    pid_t got;
    do {
      got = ::waitpid(m.pid, &status, WNOHANG);
    } while (got < 0 && errno == EINTR);
    if (got == m.pid) {
      m.alive = false;
      m.waitStatus = status;
      exited.push_back(i);
    } else if (got < 0) {  // ECHILD: someone else reaped it; count it as gone
      m.alive = false;
      m.waitStatus = 0;
      exited.push_back(i);
    }
  }
  return exited;
}

bool RankGroup::anyAlive() const {
  for (const RankMember& m : m_members) {
    if (m.alive) return true;
  }
  return false;
}

void RankGroup::signalAlive(int signal) {
  for (const RankMember& m : m_members) {
    if (m.alive) ::kill(m.pid, signal);
  }
}

void RankGroup::terminate(double graceSeconds) {
  signalAlive(SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(graceSeconds);
  while (anyAlive() && std::chrono::steady_clock::now() < deadline) {
    reapExited();
    if (anyAlive()) std::this_thread::sleep_for(kReapInterval);
  }
  killAndReapAll();
}

void RankGroup::killAndReapAll() {
  signalAlive(SIGKILL);
  for (RankMember& m : m_members) {
    if (!m.alive) continue;
    int status = 0;
    pid_t got;
    do {
      got = ::waitpid(m.pid, &status, 0);
    } while (got < 0 && errno == EINTR);
    m.alive = false;
    m.waitStatus = status;
  }
}

std::vector<int> RankGroup::pids() const {
  std::vector<int> out;
  for (const RankMember& m : m_members) out.push_back(static_cast<int>(m.pid));
  return out;
}

std::vector<int> RankGroup::stoppedRanks() const {
  std::vector<int> stopped;
  for (const RankMember& m : m_members) {
    if (!m.alive) continue;
    std::ifstream stat("/proc/" + std::to_string(m.pid) + "/stat");
    std::string text;
    std::getline(stat, text);
    const auto close = text.rfind(')');  // the state follows the command name in parentheses
    if (close != std::string::npos && close + 2 < text.size() && (text[close + 2] == 'T' || text[close + 2] == 't'))
      stopped.push_back(m.rank);
  }
  return stopped;
}

}  // namespace traindeck
