// Ranks are found by listing logs/ on each poll (cheap: one entry per rank). Bytes are split
// into lines per rank (LineSplitter); a partial last line waits for its newline.
#include "log_follower.h"

#include <QDir>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QRegularExpression>
#include <QTimer>

#include "app_metatypes.h"
#include "runlog/file_tail.h"
#include "runlog/run_paths.h"

namespace traindeck {

LogFollower::LogFollower(const QString& runDir, QObject* parent)
    : QObject(parent), m_runDir(runDir), m_logsDir(QDir(runDir).filePath(run_file::kLogs)) {
  registerAppMetaTypes();
}

LogFollower::~LogFollower() = default;

void LogFollower::start() {
  if (m_timer) return;
  m_watcher = new QFileSystemWatcher(this);
  m_watcher->addPath(QFileInfo(m_logsDir).absolutePath());
  if (QFileInfo::exists(m_logsDir)) m_watcher->addPath(m_logsDir);
  connect(m_watcher, &QFileSystemWatcher::directoryChanged, this, [this] {
    if (!m_watcher->directories().contains(m_logsDir) && QFileInfo::exists(m_logsDir)) m_watcher->addPath(m_logsDir);
    poll();
  });
  connect(m_watcher, &QFileSystemWatcher::fileChanged, this, &LogFollower::poll);
  m_timer = new QTimer(this);
  m_timer->setInterval(kPollMs);
  connect(m_timer, &QTimer::timeout, this, &LogFollower::poll);
  m_timer->start();
  poll();
}

void LogFollower::stop() {
  delete m_timer;
  m_timer = nullptr;
  delete m_watcher;
  m_watcher = nullptr;
}

void LogFollower::discoverRanks() {
  static const QRegularExpression kName(QStringLiteral("^rank-(\\d{1,6})\\.log$"));
  QStringList dirs{m_logsDir};
  for (const QString& node :
       QDir(QDir(m_runDir).filePath(run_file::kNodes)).entryList({QStringLiteral("node-*")}, QDir::Dirs))
    dirs << QDir(m_runDir).filePath(QStringLiteral("%1/%2/%3").arg(run_file::kNodes, node, run_file::kLogs));
  // The scheduler's output (slurm-<id>.out, mirrored home with a Slurm run): one "rank" each,
  // numbered as they appear.
  static const QRegularExpression kJobOutput(QStringLiteral("^slurm-\\d+\\.out$"));
  for (const QString& name : QDir(m_runDir).entryList({QStringLiteral("slurm-*.out")}, QDir::Files, QDir::Name)) {
    if (!kJobOutput.match(name).hasMatch() || m_jobOutputs.count(name)) continue;
    const int rank = kJobOutputRank + static_cast<int>(m_jobOutputs.size());
    m_jobOutputs[name] = rank;
    const QString path = QDir(m_runDir).filePath(name);
    m_ranks[rank].tail = std::make_unique<FileTail>(path.toStdString());
    if (m_watcher) m_watcher->addPath(path);
  }
  for (const QString& dir : dirs)
    for (const QString& name : QDir(dir).entryList({QStringLiteral("rank-*.log")}, QDir::Files)) {
      const auto match = kName.match(name);
      if (!match.hasMatch()) continue;
      const int rank = match.captured(1).toInt();
      if (m_ranks.count(rank)) continue;  // rank numbers are the job's: one node has each
      const QString path = QDir(dir).filePath(name);
      m_ranks[rank].tail = std::make_unique<FileTail>(path.toStdString());
      if (m_watcher) m_watcher->addPath(path);
    }
}

void LogFollower::poll() {
  discoverRanks();
  QVector<LogLine> lines;
  bool more = false;
  for (auto& [rank, log] : m_ranks) {
    FileTail::Chunk chunk = log.tail->read(kMaxBytesPerPoll);
    if (chunk.restart) {
      log.lines.reset();
      emit logRestarted(rank);
    }
    log.lines.feed(chunk.bytes, [&](std::string_view line, bool) {
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      LogLine out;
      out.rank = rank;
      out.level = logLevelOf(line);
      out.text = QString::fromUtf8(line.data(), static_cast<qsizetype>(line.size()));
      lines.push_back(std::move(out));
    });
    more = more || chunk.more;
  }
  if (more) QMetaObject::invokeMethod(this, &LogFollower::poll, Qt::QueuedConnection);
  if (!lines.isEmpty()) emit linesAvailable(lines);
}

}  // namespace traindeck
