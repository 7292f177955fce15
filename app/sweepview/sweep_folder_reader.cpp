// Metric curves come from the run's own metrics.jsonl, by the names `traindeck --read` uses
// (val_loss is the eval column, loss and lr the train columns); a trial with no readable
// metrics still shows the value of its last rung result from sweep.json.
#include "sweep_folder_reader.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <cmath>
#include <map>

#include "runlog/json_value.h"
#include "runs/metric_series.h"
#include "sweep/sweep_state_file.h"

namespace traindeck {

namespace {

// What the runner adds to each trial of sweep.json beyond core/sweep's schema, by trial id: its
// latest metric and tokens trained, where it wrote them (read when the run's own metrics are not
// here, as for a remote trial not yet mirrored).
struct RunnerFigures {
  double metric = kNoValue;
  std::int64_t tokens = 0;
};
std::map<std::string, RunnerFigures> runnerFigures(const QString& statePath) {
  QFile file(statePath);
  std::map<std::string, RunnerFigures> out;
  if (!file.open(QIODevice::ReadOnly)) return out;
  const QByteArray bytes = file.readAll();
  const JsonParseResult parsed = parseJson(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())));
  const JsonValue* trials = parsed.ok() ? parsed.value.find("trials") : nullptr;
  if (trials == nullptr) return out;
  for (const JsonValue& trial : trials->items())
    out[trial.stringOr("id", "")] = {trial.numberOr("metric", kNoValue), trial.integerOr("tokens", 0)};
  return out;
}

QString fileStamp(const QString& path) {
  const QFileInfo info(path);
  return info.exists() ? QString::number(info.size()) + "@" + QString::number(info.lastModified().toMSecsSinceEpoch())
                       : QStringLiteral("-");
}
}  // namespace

QString SweepFolderReader::signature(const QString& sweepDir, const SweepView& last) const {
  QString out = fileStamp(QDir(sweepDir).filePath(kSweepStateFile)) + "|" + fileStamp(m_specPath);
  for (const SweepTrialView& trial : last.trials)
    if (!trial.runDir.isEmpty()) out += "|" + QString::number(QFileInfo(trial.runDir + "/metrics.jsonl").size());
  return out;
}

SweepView SweepFolderReader::read(const QString& sweepDir) {
  SweepView view;
  view.dir = QFileInfo(sweepDir).absoluteFilePath();
  const QString statePath = QDir(view.dir).filePath(kSweepStateFile);
  const SweepStateRead state = readSweepState(statePath.toStdString());
  view.missing = state.missing;
  if (state.missing)
    view.error = QObject::tr("%1 holds no sweep.json: not a sweep folder, or its sweep has not started")
                     .arg(QDir::toNativeSeparators(view.dir));
  else if (!state.ok())
    view.error = QString::fromStdString(state.error);
  if (!view.error.isEmpty()) return view;
  view.sweepFile = QString::fromStdString(state.state.sweepFile);
  readSpec(view.sweepFile.isEmpty() ? QString() : QDir(view.dir).absoluteFilePath(view.sweepFile), view);
  const std::map<std::string, RunnerFigures> figures = runnerFigures(statePath);
  for (const TrialRecord& record : state.state.trials) {
    SweepTrialView trial;
    trial.record = record;
    if (const auto it = figures.find(record.params.id); it != figures.end()) {
      if (std::isfinite(it->second.metric)) trial.metric = it->second.metric;
      trial.tokens = it->second.tokens;
    }
    fillTrial(trial, view);
    view.trials.push_back(std::move(trial));
  }
  view.axes = sweepAxes(view.spec, view.trials, view.metricName);
  view.best = bestTrial(view.trials, view.goal);
  return view;
}

void SweepFolderReader::readSpec(const QString& path, SweepView& view) {
  if (path.isEmpty()) {
    view.specProblem = QObject::tr("sweep.json names no sweep file");
    return;
  }
  const QDateTime time = QFileInfo(path).lastModified();
  if (!m_spec || path != m_specPath || time != m_specTime)
    m_spec = loadSweepSpecFile(path.toStdString());  // again only when sweep.yaml changed
  m_specPath = path;
  m_specTime = time;
  for (const Diagnostic& problem : m_spec->problems)
    if (problem.severity == Severity::Error) {
      view.specProblem = QString::fromStdString(problem.format(m_spec->source));
      return;
    }
  view.spec = m_spec->spec;
  view.metricName = QString::fromStdString(view.spec->metric.name);
  view.goal = view.spec->metric.goal;
  view.unit = view.spec->earlyStopping.unit;
}

void SweepFolderReader::fillTrial(SweepTrialView& trial, const SweepView& view) {
  const QString run = QString::fromStdString(trial.record.runFolder);
  // The run's metrics where they are here; else what the runner wrote; else the last rung's.
  if (!std::isfinite(trial.metric) && !trial.record.rungs.empty() && std::isfinite(trial.record.rungs.back().metric))
    trial.metric = trial.record.rungs.back().metric;
  if (run.isEmpty()) return;
  trial.runDir = QDir::cleanPath(QDir(view.dir).absoluteFilePath(run));
  trial.runMissing = !QFileInfo(trial.runDir).isDir();
  if (trial.runMissing) return;
  const MetricsStore& store = metricsOf(trial.runDir);
  const CompareX x = view.unit == ProgressUnit::Tokens ? CompareX::Tokens : CompareX::Step;
  const MetricSeries series = metricSeriesByName(store, {}, view.metricName, x);
  trial.x = series.x;
  trial.y = series.y;
  for (qsizetype i = series.y.size() - 1; i >= 0; --i)
    if (std::isfinite(series.y[i])) {
      trial.metric = series.y[i];
      break;
    }
  if (store.train().size() > 0) {
    trial.tokens = store.train().tokens.back();
    trial.steps = store.train().step.back();
  }
}

const MetricsStore& SweepFolderReader::metricsOf(const QString& runDir) {
  RunMetrics& run = m_runs[runDir];
  QFile file(runDir + "/metrics.jsonl");
  if (!file.open(QIODevice::ReadOnly)) return run.store;
  if (file.size() < run.parsedBytes) {  // replaced or truncated: from the start
    run.parsedBytes = 0;
    run.parser.reset();
    run.store.clear();
  }
  if (file.size() == run.parsedBytes || !file.seek(run.parsedBytes)) return run.store;
  const QByteArray bytes = file.readAll();
  run.parsedBytes += bytes.size();
  run.store.append(run.parser.feed(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size()))));
  return run.store;
}

}  // namespace traindeck
