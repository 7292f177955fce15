#include "metric_series.h"

#include <QCoreApplication>
#include <algorithm>
#include <cmath>

#include "run_pauses.h"

namespace traindeck {

namespace {

template <class Columns>
double xOf(const Columns& c, std::size_t i, CompareX axis, double start) {
  return axisValue(axis, c.step[i], c.tokens[i], c.time[i], start);
}

// On a time axis, a point with no value between two records a pause lies between: the line
// breaks there instead of joining the records across the stopped time.
template <class Columns>
void breakAtPause(MetricSeries& s, const Columns& c, std::size_t i, CompareX axis, double start,
                  const std::vector<Pause>& pauses) {
  if (i == 0 || pauses.empty()) return;
  if (!pauseBetween(pauses, c.time[i - 1], c.time[i])) return;
  s.x.push_back((xOf(c, i - 1, axis, start) + xOf(c, i, axis, start)) / 2);
  s.y.push_back(std::nan(""));
}

}  // namespace

double axisValue(CompareX axis, std::int64_t step, std::int64_t tokens, double time, double start) {
  switch (axis) {
    case CompareX::Step:
      return static_cast<double>(step);
    case CompareX::Tokens:
      return static_cast<double>(tokens);
    case CompareX::Elapsed:
      return time - start;
    case CompareX::WallClock:
      return time;
  }
  return 0;
}

double runStartTime(const MetricsStore& store) {
  if (store.hasHeader() && store.header().time > 0) return store.header().time;
  double first = INFINITY;
  if (store.train().size()) first = std::min(first, store.train().time.front());
  if (store.eval().size()) first = std::min(first, store.eval().time.front());
  return std::isfinite(first) ? first : std::nan("");
}

namespace {

struct NamedColumn {
  const char* name;
  const char* title;
  bool smoothed;
  std::vector<float> TrainColumns::*column;  // null: the eval records' val loss
};

// The mapped names first (other tools' runs have these too), then TrainDeck's own.
const NamedColumn kNamedColumns[] = {
    {"loss", QT_TRANSLATE_NOOP("MetricSeries", "Train loss"), true, &TrainColumns::loss},
    {"val_loss", QT_TRANSLATE_NOOP("MetricSeries", "Val loss"), false, nullptr},
    {"lr", QT_TRANSLATE_NOOP("MetricSeries", "Learning rate"), false, &TrainColumns::lr},
    {"grad_norm", QT_TRANSLATE_NOOP("MetricSeries", "Gradient norm"), true, &TrainColumns::gradNorm},
    {"tokens_per_s", QT_TRANSLATE_NOOP("MetricSeries", "Throughput"), true, &TrainColumns::tokensPerSecond},
    {"step_ms", QT_TRANSLATE_NOOP("MetricSeries", "Step time (ms)"), true, &TrainColumns::stepMs},
    {"mfu", QT_TRANSLATE_NOOP("MetricSeries", "MFU"), true, &TrainColumns::mfu},
};

const NamedColumn* namedColumn(const QString& name) {
  for (const NamedColumn& c : kNamedColumns)
    if (name == QLatin1String(c.name)) return &c;
  return nullptr;
}

bool countsTokens(const MetricsStore& store) {
  const auto positive = [](std::int64_t t) { return t > 0; };
  return std::any_of(store.train().tokens.begin(), store.train().tokens.end(), positive) ||
         std::any_of(store.eval().tokens.begin(), store.eval().tokens.end(), positive);
}

template <class Columns, class Values>
MetricSeries columnSeries(const Columns& c, const Values& values, CompareX axis, double start,
                          const std::vector<Pause>& pauses) {
  MetricSeries s;
  s.x.reserve(static_cast<qsizetype>(c.size()));
  s.y.reserve(static_cast<qsizetype>(c.size()));
  for (std::size_t i = 0; i < c.size(); ++i) {
    breakAtPause(s, c, i, axis, start, pauses);
    s.x.push_back(xOf(c, i, axis, start));
    s.y.push_back(values[i]);
  }
  return s;
}

MetricSeries scalarSeries(const ScalarSeries& scalar, CompareX axis, double start) {
  MetricSeries s;
  if (axis == CompareX::Tokens) return s;
  s.x.reserve(static_cast<qsizetype>(scalar.size()));
  s.y.reserve(static_cast<qsizetype>(scalar.size()));
  for (std::size_t i = 0; i < scalar.size(); ++i) {
    s.x.push_back(axisValue(axis, scalar.step[i], 0, scalar.time[i], start));
    s.y.push_back(scalar.value[i]);
  }
  return s;
}

}  // namespace

MetricSeries metricSeries(const MetricsStore& store, CompareMetric metric, CompareX axis) {
  return metricSeriesByName(store, {}, metricName(metric), axis);
}

QString metricName(CompareMetric metric) {
  switch (metric) {
    case CompareMetric::TrainLoss:
      return QStringLiteral("loss");
    case CompareMetric::ValLoss:
      return QStringLiteral("val_loss");
    case CompareMetric::LearningRate:
      return QStringLiteral("lr");
    case CompareMetric::TokensPerSecond:
      return QStringLiteral("tokens_per_s");
    case CompareMetric::GradNorm:
      return QStringLiteral("grad_norm");
  }
  return {};
}

QStringList metricNamesOf(const MetricsStore& store, const std::vector<ScalarSeries>& scalars) {
  QStringList names;
  const auto anyFinite = [](const auto& values) {
    return std::any_of(values.begin(), values.end(), [](auto v) { return std::isfinite(v); });
  };
  for (const NamedColumn& c : kNamedColumns)
    if (c.column ? anyFinite(store.train().*c.column) : anyFinite(store.eval().valLoss)) names << c.name;
  for (const ScalarSeries& scalar : scalars)
    if (const QString name = QString::fromStdString(scalar.name); !names.contains(name)) names << name;
  return names;
}

QStringList unionOfMetricNames(const QVector<QStringList>& perRun) {
  QStringList known, others;
  for (const QStringList& names : perRun)
    for (const QString& name : names) {
      QStringList& into = namedColumn(name) ? known : others;
      if (!into.contains(name)) into << name;
    }
  std::sort(known.begin(), known.end(),
            [](const QString& a, const QString& b) { return namedColumn(a) < namedColumn(b); });
  return known + others;
}

QString metricTitle(const QString& name) {
  const NamedColumn* c = namedColumn(name);
  return c ? QCoreApplication::translate("MetricSeries", c->title) : name;
}

bool metricIsSmoothed(const QString& name) {
  const NamedColumn* c = namedColumn(name);
  if (c) return c->smoothed;
  // Schedules and evaluations are not noisy per-step values.
  const QString lower = name.toLower();
  return !lower.contains(QLatin1String("lr")) && !lower.contains(QLatin1String("learning_rate")) &&
         !lower.contains(QLatin1String("eval")) && !lower.contains(QLatin1String("val"));
}

MetricSeries metricSeriesByName(const MetricsStore& store, const std::vector<ScalarSeries>& scalars,
                                const QString& name, CompareX axis) {
  double start = runStartTime(store);
  const bool timeAxis = axis == CompareX::Elapsed || axis == CompareX::WallClock;
  if (const NamedColumn* c = namedColumn(name)) {
    if (axis == CompareX::Tokens && !countsTokens(store)) return {};
    const std::vector<Pause> pauses = timeAxis ? runPauses(store.train(), store.eval()) : std::vector<Pause>{};
    if (!c->column) return columnSeries(store.eval(), store.eval().valLoss, axis, start, pauses);
    return columnSeries(store.train(), store.train().*c->column, axis, start, pauses);
  }
  const std::string wanted = name.toStdString();
  for (const ScalarSeries& scalar : scalars) {
    if (scalar.name != wanted) continue;
    if (std::isnan(start) && timeAxis)  // a run of scalars alone starts at its first time
      for (const ScalarSeries& other : scalars)
        for (double t : other.time)
          if (std::isfinite(t) && !(t >= start)) start = t;
    return scalarSeries(scalar, axis, start);
  }
  return {};
}

}  // namespace traindeck
