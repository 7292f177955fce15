#include "comparison.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <algorithm>
#include <optional>

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
  std::vector<std::optional<RunSource>> sources;  // other tools' runs, found once here
  for (const QString& dir : runDirs) {
    const QString path = QFileInfo(dir).absoluteFilePath();
    if (wanted.contains(path)) continue;
    std::optional<RunSource> source;
    if (!QFileInfo::exists(QDir(path).filePath(run_file::kRunJson)) && !(source = importedRunSource(path))) {
      leftOut << tr("%1 (no run.json, and no run of another tool there: not a run folder)").arg(dir);
      continue;
    }
    wanted << path;
    sources.push_back(std::move(source));
  }
  std::vector<bool> slotTaken(static_cast<std::size_t>(wanted.size()) + 1, false);
  // Keep what is already here, with its colour.
  for (qsizetype w = 0; w < wanted.size(); ++w) {
    const QString& path = wanted[w];
    auto it = std::find_if(m_entries.begin(), m_entries.end(), [&](const Entry& e) { return e.run.runDir == path; });
    if (it != m_entries.end()) {
      if (static_cast<std::size_t>(it->run.colorSlot) < slotTaken.size())
        slotTaken[static_cast<std::size_t>(it->run.colorSlot)] = true;
      next.push_back(std::move(*it));
      m_entries.erase(it);
    } else {
      Entry fresh;
      fresh.run.runDir = path;
      fresh.run.colorSlot = -1;
      if (auto& source = sources[static_cast<std::size_t>(w)])
        fresh.imported = std::make_unique<Imported>(Imported{std::move(*source), {}, {}, {}});
      next.push_back(std::move(fresh));
    }
  }
  const auto freeSlot = [&slotTaken] {
    const auto it = std::find(slotTaken.begin(), slotTaken.end(), false);
    *it = true;  // slotTaken has one slot more than there are runs: one is always free
    return static_cast<int>(it - slotTaken.begin());
  };
  for (auto entry = next.begin(); entry != next.end();) {
    if (entry->session || (entry->imported && entry->run.colorSlot >= 0)) {
      ++entry;
      continue;
    }
    if (entry->imported) {
      QString error;
      const int slot = freeSlot();
      if (!readImported(*entry, slot, error)) {
        slotTaken[static_cast<std::size_t>(slot)] = false;
        leftOut << error;
        entry = next.erase(entry);
        continue;
      }
      ++entry;
      continue;
    }
    entry->run = readComparedRun(entry->run.runDir, freeSlot());
    entry->session = m_registry.session(entry->run.runDir, RunRegistry::Follow::MetricsOnly);
    const QString runDir = entry->run.runDir;
    connect(entry->session.get(), &RunSession::metricsChanged, this, [this, runDir] {
      if (const int index = indexOf(runDir); index >= 0) emit metricsChanged(index);
    });
    ++entry;
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
  const Entry& entry = m_entries.at(static_cast<std::size_t>(index));
  return entry.imported ? entry.imported->store : entry.session->metrics();
}

const std::vector<ScalarSeries>& Comparison::scalars(int index) const {
  static const std::vector<ScalarSeries> none;
  const Entry& entry = m_entries.at(static_cast<std::size_t>(index));
  return entry.imported ? entry.imported->scalars : none;
}

QStringList Comparison::metricNames() const {
  QVector<QStringList> perRun;
  for (int i = 0; i < size(); ++i) perRun << metricNamesOf(store(i), scalars(i));
  return unionOfMetricNames(perRun);
}

bool Comparison::readImported(Entry& entry, int colorSlot, QString& error) {
  Imported& imported = *entry.imported;
  const ImportSignature signature = importSignature(QString::fromStdString(imported.source.path.string()));
  try {
    ImportedRun run = traindeck::readRun(imported.source);
    imported.store.clear();
    imported.store.append(run.metrics);
    imported.scalars = std::move(run.scalars);
    imported.signature = signature;
    const QString name = QString::fromStdString(imported.source.name);
    entry.run.summary = importedRunSummary(run, entry.run.runDir, name);
    entry.run.label = entry.run.summary.name.isEmpty() ? name : entry.run.summary.name;
    entry.run.config = importedRunConfig(run);
    entry.run.source = sourceBadge(imported.source.kind);
    entry.run.colorSlot = colorSlot;
    return true;
  } catch (const std::exception& e) {
    error = tr("%1 (cannot be read: %2)").arg(entry.run.runDir, QString::fromUtf8(e.what()));
    return false;
  }
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
  // Another tool's run has no status of ours: the table says where it comes from.
  const QString status = r.source.isEmpty() ? r.summary.statusName() : tr("%1 (read-only)").arg(r.source);
  return summarizeRun(store(index), status, r.config);
}

void Comparison::refreshLiveSummaries() {
  for (std::size_t i = 0; i < m_entries.size(); ++i) {
    ComparedRun& run = m_entries[i].run;
    if (Imported* imported = m_entries[i].imported.get()) {  // another tool's run: re-read as it grows
      if (importSignature(QString::fromStdString(imported->source.path.string())) == imported->signature) continue;
      QString error;
      if (readImported(m_entries[i], run.colorSlot, error)) {
        emit summaryChanged(static_cast<int>(i));
        emit metricsChanged(static_cast<int>(i));
      }
      continue;
    }
    if (!run.summary.isLive()) continue;
    RunSummary fresh = readRunSummary(run.runDir);
    if (fresh.sameContent(run.summary)) continue;
    run.summary = std::move(fresh);
    run.label = labelOf(run.summary);
    emit summaryChanged(static_cast<int>(i));
  }
}

}  // namespace traindeck
