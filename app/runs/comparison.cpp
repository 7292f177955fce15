#include "comparison.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <algorithm>

#include "run_registry.h"
#include "run_session.h"

namespace traindeck {

namespace {

// Ten hues, then the same hues lighter: neighbours in the list differ in hue first.
const QColor kColors[Comparison::kMaxRuns] = {{31, 119, 180},  {255, 127, 14},  {44, 160, 44},   {214, 39, 40},
                                              {148, 103, 189}, {140, 86, 75},   {227, 119, 194}, {127, 127, 127},
                                              {188, 189, 34},  {23, 190, 207},  {120, 170, 220}, {255, 175, 100},
                                              {130, 210, 110}, {245, 130, 130}, {190, 160, 220}, {190, 140, 120},
                                              {245, 170, 215}, {185, 185, 185}, {215, 215, 120}, {120, 220, 230}};

FlatConfig readConfig(const QString& runDir) {
  QFile file(QDir(runDir).filePath(QStringLiteral("config.yaml")));
  if (!file.open(QIODevice::ReadOnly)) {
    FlatConfig missing;
    missing.error = "no config.yaml in " + runDir.toStdString();
    return missing;
  }
  return flattenYaml(file.readAll().toStdString());
}

QString labelOf(const RunSummary& summary) {
  return summary.name.isEmpty() ? summary.id : summary.name;
}

ComparedRun readRun(const QString& runDir, int colorSlot) {
  ComparedRun run;
  run.runDir = runDir;
  run.colorSlot = colorSlot;
  run.summary = readRunSummary(runDir);
  run.label = labelOf(run.summary);
  run.config = readConfig(runDir);
  return run;
}

}  // namespace

QColor comparisonColor(int slot) {
  return kColors[((slot % Comparison::kMaxRuns) + Comparison::kMaxRuns) % Comparison::kMaxRuns];
}

Comparison::Comparison(RunRegistry& registry, QObject* parent) : QObject(parent), m_registry(registry) {
  m_refresh.setInterval(1000);
  connect(&m_refresh, &QTimer::timeout, this, &Comparison::refreshLiveSummaries);
  m_refresh.start();
}

Comparison::~Comparison() = default;

QString Comparison::setRuns(const QStringList& runDirs) {
  QStringList leftOut;
  std::vector<Entry> next;
  std::vector<bool> slotTaken(kMaxRuns, false);
  QStringList wanted;
  for (const QString& dir : runDirs) {
    const QString path = QFileInfo(dir).absoluteFilePath();
    if (wanted.contains(path)) continue;
    if (!QFileInfo::exists(QDir(path).filePath(QStringLiteral("run.json")))) {
      leftOut << tr("%1 (no run.json: not a run folder)").arg(dir);
      continue;
    }
    if (wanted.size() == kMaxRuns) {
      leftOut << tr("%1 (at most %2 runs are compared at once)").arg(dir).arg(kMaxRuns);
      continue;
    }
    wanted << path;
  }
  // Keep what is already here, with its colour.
  for (const QString& path : wanted) {
    auto it = std::find_if(m_entries.begin(), m_entries.end(), [&](const Entry& e) { return e.run.runDir == path; });
    if (it != m_entries.end()) {
      slotTaken[static_cast<std::size_t>(it->run.colorSlot)] = true;
      next.push_back(std::move(*it));
      m_entries.erase(it);
    } else {
      next.push_back(Entry{ComparedRun{path, {}, -1, {}, {}}, nullptr});
    }
  }
  for (Entry& entry : next) {
    if (entry.session) continue;
    const int slot = static_cast<int>(std::find(slotTaken.begin(), slotTaken.end(), false) - slotTaken.begin());
    slotTaken[static_cast<std::size_t>(slot)] = true;
    entry.run = readRun(entry.run.runDir, slot);
    entry.session = m_registry.session(entry.run.runDir, RunRegistry::Follow::MetricsOnly);
    const QString runDir = entry.run.runDir;
    connect(entry.session.get(), &RunSession::metricsChanged, this, [this, runDir] {
      if (const int index = indexOf(runDir); index >= 0) emit metricsChanged(index);
    });
  }
  // Runs no longer wanted are let go here (their followers stop unless another page shows them).
  for (Entry& gone : m_entries) disconnect(gone.session.get(), nullptr, this, nullptr);
  m_entries = std::move(next);
  emit runsChanged();
  return leftOut.isEmpty() ? QString() : tr("Left out: %1").arg(leftOut.join(QStringLiteral("; ")));
}

QStringList Comparison::runDirs() const {
  QStringList dirs;
  for (const Entry& entry : m_entries) dirs << entry.run.runDir;
  return dirs;
}

const MetricsStore& Comparison::store(int index) const {
  return m_entries.at(static_cast<std::size_t>(index)).session->metrics();
}

int Comparison::indexOf(const QString& runDir) const {
  for (std::size_t i = 0; i < m_entries.size(); ++i)
    if (m_entries[i].run.runDir == runDir) return static_cast<int>(i);
  return -1;
}

RunFigures Comparison::figures(int index) const {
  const ComparedRun& r = run(index);
  return summarizeRun(store(index), r.summary.statusName(), r.config);
}

void Comparison::refreshLiveSummaries() {
  for (std::size_t i = 0; i < m_entries.size(); ++i) {
    ComparedRun& run = m_entries[i].run;
    if (!run.summary.isLive()) continue;
    RunSummary fresh = readRunSummary(run.runDir);
    if (fresh.sameContent(run.summary)) continue;
    run.summary = std::move(fresh);
    run.label = labelOf(run.summary);
    emit summaryChanged(static_cast<int>(i));
  }
}

}  // namespace traindeck
