#include "multi_host_job.h"

#include <QDir>
#include <QFileInfo>

#include "runlog/run_directory.h"
#include "runlog/run_exit.h"
#include "runlog/run_verdict.h"

namespace traindeck {

namespace {

RunInfoReadResult runInfoOf(const QString& dir) {
  return readRunInfo(RunPaths{dir.toStdString()});
}

}  // namespace

MultiHostJob::MultiHostJob(std::vector<std::unique_ptr<RemoteJob>> nodes, QObject* parent) : Job(parent) {
  for (auto& job : nodes) {
    Node n;
    n.job = std::move(job);
    m_nodes.push_back(std::move(n));
  }
  m_judge.setSingleShot(true);
  connect(&m_judge, &QTimer::timeout, this, &MultiHostJob::takeDown);
  for (int r = 0; r < nodeCount(); ++r) follow(r);
}

MultiHostJob::~MultiHostJob() = default;

QString MultiHostJob::nodeDir(const QString& runDir, int node) {
  return QDir(runDir).filePath(QStringLiteral("%1/node-%2").arg(run_file::kNodes).arg(node));
}

int MultiHostJob::nodeCountOf(const QString& runDir) {
  int count = 1;
  while (QFileInfo::exists(QDir(nodeDir(runDir, count)).filePath(run_file::kRemoteRecord))) ++count;
  return count;
}

void MultiHostJob::follow(int r) {
  RemoteJob* job = node(r);
  connect(job, &Job::stateChanged, this, &MultiHostJob::updateState);
  connect(job, &Job::linkTextChanged, this, [this] { emit linkTextChanged(linkText()); });
  connect(job, &Job::stepStarted, this,
          [this, r](int, const QString& step, const QString& detail) { emit stepStarted(r, step, detail); });
  connect(job, &Job::outputLine, this, [this, r](int, const QString& line) { emit outputLine(r, line); });
  connect(job, &Job::transferProgress, this,
          [this, r](int, qint64 done, qint64 total) { emit transferProgress(r, done, total); });
  connect(job, &RemoteJob::readyToLaunch, this, [this, r] {
    m_nodes[static_cast<std::size_t>(r)].ready = true;
    releaseWhenAllReady();
  });
  connect(job, &Job::failedToStart, this,
          [this, r](const QString& why) { m_nodes[static_cast<std::size_t>(r)].startFailure = why; });
  connect(job, &Job::finished, this, [this, r](int exitCode) { nodeEnded(r, exitCode); });
}

void MultiHostJob::start(const QVector<RemoteLaunch>& launches, int ranksPerNode) {
  if (m_state != State::Idle || launches.size() != nodeCount()) return;
  m_runDir = launches.front().localRunDir;
  m_ranksPerNode = std::max(1, ranksPerNode);
  setState(State::Starting);
  for (int r = 0; r < nodeCount(); ++r) {
    node(r)->setHoldBeforeLaunch(true);
    node(r)->start(launches[r]);
  }
}

QString MultiHostJob::attach(const QString& runDir, bool batch) {
  if (m_state != State::Idle) return tr("this job is already in use");
  m_runDir = runDir;
  const RunInfoReadResult first = runInfoOf(runDir);
  m_ranksPerNode = first.ok() && !first.info.devices.empty() ? static_cast<int>(first.info.devices.size()) : 1;
  QString firstWhy;
  for (int r = 0; r < nodeCount(); ++r) {
    const QString dir = r == 0 ? runDir : nodeDir(runDir, r);
    const QString why = node(r)->attach(dir, batch);
    if (why.isEmpty()) continue;
    if (r == 0) firstWhy = why;
    // Over already: as it ended, so that a failure there takes the others down.
    Node& n = m_nodes[static_cast<std::size_t>(r)];
    const RunInfoReadResult read = runInfoOf(dir);
    n.ended = true;
    n.endOrder = ++m_ended;
    n.exitCode = jobExitCode(read.ok() ? std::optional(read.info.status) : std::nullopt);
  }
  if (m_ended == nodeCount()) {
    m_ended = 0;
    return firstWhy.isEmpty() ? tr("no node of the run is running") : firstWhy;
  }
  setState(State::Starting);
  updateState();
  for (int r = 0; r < nodeCount(); ++r)
    if (m_nodes[static_cast<std::size_t>(r)].ended && m_nodes[static_cast<std::size_t>(r)].exitCode != 0) {
      takeDown();
      break;
    }
  return {};
}

void MultiHostJob::releaseWhenAllReady() {
  for (const Node& n : m_nodes)
    if (!n.ready) return;
  // Node 0 first: its ranks serve the rendezvous the others look for (they wait for it).
  for (int r = 0; r < nodeCount(); ++r) node(r)->releaseLaunch();
}

void MultiHostJob::nodeEnded(int r, int exitCode) {
  Node& n = m_nodes[static_cast<std::size_t>(r)];
  if (n.ended) return;
  n.ended = true;
  n.exitCode = exitCode;
  n.endOrder = ++m_ended;
  if (m_ended == nodeCount()) return finish();
  if (exitCode == 0 || m_takingDown) return;
  // Stopping (every node saves a checkpoint): a node's own verdict does not cut the others' saves.
  if (m_stopAsked && exitCode != -1) return;
  // Killed outright (no verdict of its own), or not started: nothing to wait for. A verdict may
  // be another node's loss reported first: the others get a moment to say theirs.
  if (exitCode == -1 || !n.startFailure.isEmpty() || !m_started)
    takeDown();
  else if (!m_judge.isActive())
    m_judge.start(kJudgeMs);
}

void MultiHostJob::takeDown() {
  m_judge.stop();
  if (m_takingDown) return;
  m_takingDown = true;
  for (Node& n : m_nodes) {
    if (n.ended) continue;
    n.killedByUs = true;
    if (n.job->state() == State::Starting)
      n.job->stop();  // its start is cancelled (a launch under way is stopped once it is known)
    else
      n.job->kill();
  }
}

int MultiHostJob::culprit() const {
  int found = -1;
  for (int r = 0; r < nodeCount(); ++r) {
    const Node& n = m_nodes[static_cast<std::size_t>(r)];
    if (!n.ended || n.exitCode == 0 || n.killedByUs) continue;
    if (found < 0) {
      found = r;
      continue;
    }
    const Node& best = m_nodes[static_cast<std::size_t>(found)];
    const bool killed = n.exitCode == -1 && n.startFailure.isEmpty();
    const bool bestKilled = best.exitCode == -1 && best.startFailure.isEmpty();
    if ((killed && !bestKilled) || (killed == bestKilled && n.endOrder < best.endOrder)) found = r;
  }
  return found;
}

QString MultiHostJob::nodeName(int r) const {
  return tr("node %1 on %2").arg(r).arg(node(r)->spec());
}

QString MultiHostJob::ranksOf(int r) const {
  const int first = r * m_ranksPerNode;
  return m_ranksPerNode == 1 ? tr("rank %1").arg(first) : tr("ranks %1-%2").arg(first).arg(first + m_ranksPerNode - 1);
}

void MultiHostJob::finish() {
  m_judge.stop();
  const int bad = culprit();
  int exitCode = m_nodes.front().exitCode;
  if (bad >= 0) {
    const Node& n = m_nodes[static_cast<std::size_t>(bad)];
    const QString dir = bad == 0 ? m_runDir : nodeDir(m_runDir, bad);
    const RunInfoReadResult own = runInfoOf(dir);
    const int others = nodeCount() - 1;
    const QString rest =
        others == 1 ? tr("the other node was stopped") : tr("the other %1 nodes were stopped").arg(others);
    QString reason;
    int failedRank = bad * m_ranksPerNode;
    if (!n.startFailure.isEmpty()) {
      reason = tr("%1 could not start: %2; %3").arg(nodeName(bad), n.startFailure, rest);
      failedRank = -1;  // no rank ran
    } else if (n.exitCode == -1 || !own.ok() || own.info.exitReason.empty())
      reason =
          tr("%1 was killed (%2: its supervisor ended without a verdict); %3").arg(nodeName(bad), ranksOf(bad), rest);
    else {
      if (own.info.failedRank >= 0) failedRank = own.info.failedRank;
      reason =
          tr("%1 failed (%2): %3; %4")
              .arg(nodeName(bad), tr("rank %1").arg(failedRank), QString::fromStdString(own.info.exitReason), rest);
    }
    // The run's own record (node 0's mirror, no longer written by anyone) says why it ended.
    markRunFailed(RunPaths{m_runDir.toStdString()}, reason.toStdString(),
                  {.id = QFileInfo(m_runDir).fileName().toStdString(), .name = {}, .host = {}}, failedRank);
    exitCode = 1;
  }
  const bool failedToStartNow = !m_started;
  setState(State::Finished);
  if (failedToStartNow && exitCode != 0)
    emit failedToStart(QString::fromStdString(runInfoOf(m_runDir).info.exitReason));
  emit finished(exitCode);
}

void MultiHostJob::updateState() {
  if (m_state == State::Finished || m_state == State::Idle) return;
  bool allRunning = true;
  for (const Node& n : m_nodes)
    if (!n.ended && n.job->state() != State::Running && n.job->state() != State::Stopping) allRunning = false;
  if (allRunning) m_started = true;
  if (m_killAsked || m_takingDown) return setState(m_started ? State::Stopping : State::Starting);
  bool stopping = false;
  for (const Node& n : m_nodes) stopping = stopping || (!n.ended && n.job->state() == State::Stopping);
  setState(!m_started ? State::Starting : stopping ? State::Stopping : State::Running);
}

void MultiHostJob::setState(State state) {
  if (m_state == state) return;
  m_state = state;
  emit stateChanged(state);
}

void MultiHostJob::stop() {
  if (m_started) m_stopAsked = true;
  for (Node& n : m_nodes) {
    if (n.ended) continue;
    if (n.job->state() == State::Starting) n.killedByUs = true;  // a cancelled start is nobody's failure
    n.job->stop();
  }
  updateState();
}

void MultiHostJob::kill() {
  m_killAsked = true;
  for (Node& n : m_nodes)
    if (!n.ended) {
      n.killedByUs = true;
      n.job->kill();
    }
  updateState();
}

QStringList MultiHostJob::recentOutput() {
  QStringList lines;
  for (int r = 0; r < nodeCount(); ++r)
    for (const QString& line : node(r)->recentOutput()) lines << QStringLiteral("[node %1] %2").arg(r).arg(line);
  return lines;
}

QString MultiHostJob::linkText() const {
  // Of the nodes still followed (one that had ended before an attach has none).
  QStringList texts, parts;
  for (int r = 0; r < nodeCount(); ++r) {
    if (m_nodes[static_cast<std::size_t>(r)].ended && node(r)->state() == State::Idle) continue;
    texts << node(r)->linkText();
    parts << QStringLiteral("node %1: %2").arg(r).arg(texts.back());
  }
  texts.removeDuplicates();
  return texts.size() <= 1 ? texts.value(0) : parts.join(QStringLiteral(" · "));
}

Job::Link MultiHostJob::link() const {
  // Of the nodes still followed, as linkText() says it.
  QList<Link> links;
  for (int r = 0; r < nodeCount(); ++r)
    if (!(m_nodes[static_cast<std::size_t>(r)].ended && node(r)->state() == State::Idle)) links << node(r)->link();
  for (const Link worst : {Link::Unreachable, Link::Reconnecting, Link::Connecting, Link::Following})
    if (links.contains(worst)) return worst;
  return Link::Ended;
}

QStringList MultiHostJob::hosts() const {
  QStringList specs;
  for (int r = 0; r < nodeCount(); ++r) specs << node(r)->spec();
  return specs;
}

QVector<HostStart> MultiHostJob::startSteps() const {
  QVector<HostStart> starts;
  for (int r = 0; r < nodeCount(); ++r) starts += node(r)->startSteps();
  return starts;
}

}  // namespace traindeck
