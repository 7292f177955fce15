#include "comparison.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <algorithm>

#include "metric_series.h"
#include "metric_summary.h"
#include "run_registry.h"
#include "run_session.h"
#include "runlog/run_paths.h"

namespace traindeck {

namespace {

FlatConfig readConfig(const QString& runDir) {
  QFile file(QDir(runDir).filePath(run_file::kConfig));
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

ComparedRun readComparedRun(const QString& runDir, int colorSlot) {
  ComparedRun run;
  run.runDir = runDir;
  run.colorSlot = colorSlot;
  run.summary = readRunSummary(runDir);
  run.label = labelOf(run.summary);
  run.config = readConfig(runDir);
  return run;
}

}  // namespace

Comparison::Comparison(RunRegistry& registry, QObject* parent) : QObject(parent), m_registry(registry) {
  m_refresh.setInterval(1000);
  connect(&m_refresh, &QTimer::timeout, this, &Comparison::refreshLiveSummaries);
  m_refresh.start();
  // Before any page hears of the growth: a run's value of the colouring metric, or an imported
  // run's config read again, may change the colours.
  connect(this, &Comparison::metricsChanged, this, [this](int index) {
    if (m_colourBy.kind == ColourBy::Kind::Metric) refreshColourMetric(index);
    if (refreshColours()) emit coloursChanged();
  });
}

Comparison::~Comparison() = default;

QString Comparison::setRuns(const QStringList& runDirs) {
  QStringList leftOut;
  std::vector<Entry> next;
  QStringList wanted;
  for (const QString& dir : runDirs) {
    const QString path = QFileInfo(dir).absoluteFilePath();
    if (wanted.contains(path)) continue;
    if (!QFileInfo::exists(QDir(path).filePath(run_file::kRunJson)) && !importedRunSource(path)) {
      leftOut << tr("%1 (no run.json, and no run of another tool there: not a run folder)").arg(dir);
      continue;
    }
    wanted << path;
  }
  std::vector<bool> slotTaken(static_cast<std::size_t>(wanted.size()) + 1, false);
  // Keep what is already here, with its colour.
  for (const QString& path : std::as_const(wanted)) {
    auto it = std::find_if(m_entries.begin(), m_entries.end(), [&](const Entry& e) { return e.run.runDir == path; });
    if (it != m_entries.end()) {
      if (static_cast<std::size_t>(it->run.colorSlot) < slotTaken.size())
        slotTaken[static_cast<std::size_t>(it->run.colorSlot)] = true;
      next.push_back(std::move(*it));
      m_entries.erase(it);
    } else {
      Entry fresh;
      fresh.run.runDir = path;
      next.push_back(std::move(fresh));
    }
  }
  const auto freeSlot = [&slotTaken] {
    const auto it = std::find(slotTaken.begin(), slotTaken.end(), false);
    *it = true;  // slotTaken has one slot more than there are runs: one is always free
    return static_cast<int>(it - slotTaken.begin());
  };
  for (Entry& entry : next) {
    if (entry.session) continue;
    const QString runDir = entry.run.runDir;
    entry.session = m_registry.session(runDir, RunRegistry::Follow::MetricsOnly);
    if (entry.session->isImported()) {
      entry.run.colorSlot = freeSlot();
      takeImported(entry.run, *entry.session);  // a session the Monitor holds has read it already
    } else {
      entry.run = readComparedRun(runDir, freeSlot());
    }
    connect(entry.session.get(), &RunSession::metricsChanged, this, [this, runDir] {
      const int index = indexOf(runDir);
      if (index < 0) return;
      Entry& changed = m_entries[static_cast<std::size_t>(index)];
      if (changed.session->isImported()) {  // read again whole: its name, step and config may have changed
        const QString label = changed.run.label;
        const FlatConfig config = changed.run.config;
        takeImported(changed.run, *changed.session);
        // Its first read (or a new name or config): the pages take the runs anew, as when it came.
        if (changed.run.label != label || changed.run.config.entries != config.entries) {
          refreshColours();
          emit runsChanged();
          return;
        }
        emit summaryChanged(index);
      }
      emit metricsChanged(index);
    });
  }
  // Runs no longer wanted are let go here (their followers stop unless another page shows them).
  for (Entry& gone : m_entries)
    if (gone.session) disconnect(gone.session.get(), nullptr, this, nullptr);
  m_entries = std::move(next);
  for (int i = 0; i < size(); ++i) refreshColourMetric(i);
  refreshColours();  // announced by runsChanged
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

QStringList Comparison::metricNames() const {
  QVector<QStringList> perRun;
  for (int i = 0; i < size(); ++i) perRun << metricNamesOf(store(i), scalars(i));
  return unionOfMetricNames(perRun);
}

void Comparison::takeImported(ComparedRun& run, const RunSession& session) {
  run.summary = session.summary();
  run.label = run.summary.name.isEmpty() ? run.summary.id : run.summary.name;
  run.config = session.importedConfig();
  run.source = session.sourceBadge();
}

void Comparison::setColourBy(const ColourBy& by) {
  if (by == m_colourBy) return;
  m_colourBy = by;
  for (int i = 0; i < size(); ++i) refreshColourMetric(i);
  if (refreshColours()) emit coloursChanged();
}

void Comparison::setHandColour(const QString& runDir, const QColor& colour) {
  if (colour.isValid())
    m_handColours.insert(runDir, colour);
  else
    m_handColours.remove(runDir);
  if (refreshColours()) emit coloursChanged();
}

void Comparison::refreshColourMetric(int index) {
  Entry& entry = m_entries.at(static_cast<std::size_t>(index));
  entry.colourMetric = NAN;
  if (m_colourBy.kind != ColourBy::Kind::Metric) return;
  const MetricSeries series = metricSeriesByName(store(index), scalars(index), m_colourBy.key, CompareX::Step);
  MetricSummary summary;  // the run list's last and min, over the same points
  for (qsizetype i = 0; i < series.y.size(); ++i) summary.add(static_cast<qint64>(series.x[i]), series.y[i]);
  entry.colourMetric = m_colourBy.statistic == ColourBy::Statistic::Min ? summary.min : summary.last;
}

bool Comparison::refreshColours() {
  QVector<ColourableRun> runs;
  for (const Entry& entry : m_entries) {
    ColourableRun run{
        .slot = entry.run.colorSlot, .metric = entry.colourMetric, .byHand = m_handColours.value(entry.run.runDir)};
    if (m_colourBy.kind == ColourBy::Kind::ConfigKey)
      for (const auto& [key, value] : entry.run.config.entries)
        if (QString::fromStdString(key) == m_colourBy.key) run.configValue = QString::fromStdString(value);
    runs.push_back(std::move(run));
  }
  RunColours colours = assignRunColours(runs, m_colourBy);
  if (colours == m_colours) return false;
  m_colours = std::move(colours);
  return true;
}

int Comparison::indexOf(const QString& runDir) const {
  for (std::size_t i = 0; i < m_entries.size(); ++i)
    if (m_entries[i].run.runDir == runDir) return static_cast<int>(i);
  return -1;
}

RunFigures Comparison::figures(int index) const {
  const ComparedRun& r = run(index);
  // Another tool's run has no status of ours: the table says where it comes from, or why it
  // cannot be read.
  const QString importError = m_entries.at(static_cast<std::size_t>(index)).session->importError();
  const QString status = r.source.isEmpty()      ? r.summary.statusName()
                         : importError.isEmpty() ? tr("%1 (read-only)").arg(r.source)
                                                 : tr("%1 (cannot be read: %2)").arg(r.source, importError);
  return summarizeRun(store(index), status, r.config);
}

void Comparison::refreshLiveSummaries() {
  for (std::size_t i = 0; i < m_entries.size(); ++i) {
    ComparedRun& run = m_entries[i].run;
    if (!run.summary.isLive()) continue;  // another tool's run: its session says when it changed
    RunSummary fresh = readRunSummary(run.runDir);
    if (fresh.sameContent(run.summary)) continue;
    run.summary = std::move(fresh);
    run.label = labelOf(run.summary);
    emit summaryChanged(static_cast<int>(i));
  }
}

}  // namespace traindeck
