// A runs root with hundreds of runs, offscreen. Prints figures; asserts nothing.
//   list ready: RunListModel over R runs (default 1,000) of N train records each (default
//   10,000): the first scan from cold (no summary index: each metrics.jsonl's ends read); the
//   summary index built for every run in its thread; the list ready again from the warm index
//   cache (no metrics parsed), and a rescan with nothing changed (what each second costs)
//   filter and sort: the run list's proxy filtering by name, sorting by last loss and by a
//   metric column ("val_loss min", from the index)
//   other tools' runs: the same root with R/10 llm.c logs beside, first scan and rescan (the
//   logs listed by name, unread), their entries read in the index's thread, and the warm start
//   Compare: C runs (default 200) until every store is loaded, then grouped into G groups
//   (default 10, by every config key but the seed): the grouped redraw (median of 5)
// Usage: bench_runs_root [runs] [records] [compared] [groups]
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QSortFilterProxyModel>
#include <QTemporaryDir>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "compare_chart.h"
#include "compare_page.h"
#include "event_loop_wait.h"
#include "runs/comparison.h"
#include "runs/comparison_sets.h"
#include "runs/run_list_model.h"
#include "runs/run_registry.h"

using namespace traindeck;
using traindeck::test_support::runEventsUntil;

namespace {

double msSince(const QElapsedTimer& clock) {
  return static_cast<double>(clock.nsecsElapsed()) / 1e6;
}

double medianOf(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// One run folder: run.json, config.yaml (a group and a seed) and `records` train records with an
// eval every 100 steps.
void writeRootRun(const QString& dir, int index, int groups, long records) {
  QDir().mkpath(dir);
  const int group = index % groups, seed = index / groups;
  QFile json(dir + "/run.json");
  json.open(QIODevice::WriteOnly);
  json.write(QString(R"({"id":"%1","name":"lr%2 seed%3","status":"finished","created":"2026-11-%4T10:00:00Z"})")
                 .arg(QDir(dir).dirName())
                 .arg(group)
                 .arg(seed)
                 .arg(1 + index % 28, 2, 10, QChar('0'))
                 .toUtf8());
  QFile config(dir + "/config.yaml");
  config.open(QIODevice::WriteOnly);
  config.write(QString("optimizer:\n  lr: %1e-4\nseed: %2\n").arg(group + 1).arg(seed).toUtf8());
  QByteArray text =
      "{\"kind\":\"header\",\"time\":1.7e9,\"schema\":1,\"total_steps\":" + QByteArray::number(records) + "}\n";
  text.reserve(static_cast<qsizetype>(records) * 150);
  char line[256];
  for (long s = 1; s <= records; ++s) {
    const double loss = 2 + 3 / std::sqrt(1.0 + s * (group + 1) / 50.0) + 0.05 * std::sin(s * 0.37 + seed);
    int n = std::snprintf(line, sizeof line,
                          "{\"kind\":\"train\",\"time\":%.1f,\"step\":%ld,\"tokens\":%ld,\"loss\":%.5f,\"lr\":0.0006,"
                          "\"grad_norm\":1.0,\"tokens_per_s\":20000}\n",
                          1.7e9 + 0.1 * s, s, 2048 * s, loss);
    text.append(line, n);
    if (s % 100 == 0) {
      n = std::snprintf(line, sizeof line,
                        "{\"kind\":\"eval\",\"time\":%.1f,\"step\":%ld,\"tokens\":%ld,\"val_loss\":%.5f}\n",
                        1.7e9 + 0.1 * s, s, 2048 * s, loss + 0.2);
      text.append(line, n);
    }
  }
  QFile metrics(dir + "/metrics.jsonl");
  metrics.open(QIODevice::WriteOnly);
  metrics.write(text);
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  const int runs = argc > 1 ? std::atoi(argv[1]) : 1000;
  const long records = argc > 2 ? std::atol(argv[2]) : 10000;
  const int compared = std::min(runs, argc > 3 ? std::atoi(argv[3]) : 200);
  const int groups = argc > 4 ? std::atoi(argv[4]) : 10;
  QTemporaryDir root;
  QElapsedTimer clock;
  clock.start();
  QStringList dirs;
  for (int i = 0; i < runs; ++i) {
    dirs << root.filePath(QString("20261201-%1-run").arg(i, 6, 10, QChar('0')));
    writeRootRun(dirs.back(), i, groups, records);
  }
  std::printf("wrote %d runs of %ld train records in %.1f s\n", runs, records, msSince(clock) / 1000);

  QTemporaryDir indexCache;  // the summary index's cache: empty, so the first list is a cold one
  RunListModel cold(nullptr, indexCache.path());
  clock.restart();
  cold.setRunsRoot(root.path());
  const double firstScan = msSince(clock);
  std::printf("run list of %d runs from cold: ready in %.0f ms (%.1f MB of metrics.jsonl ends read)\n", cold.rowCount(),
              firstScan, static_cast<double>(cold.metricsBytesRead()) / (1 << 20));
  clock.restart();
  runEventsUntil([&] { return cold.runIndex()->idle(); }, 600000);
  std::printf("summary index of %d runs x %ld records built in its thread in %.0f ms from the start (%.0f MB parsed)\n",
              cold.rowCount(), records, firstScan + msSince(clock),
              static_cast<double>(cold.runIndex()->bytesParsed()) / (1 << 20));
  RunListModel model(nullptr, indexCache.path());
  model.setMetricColumns({{.metric = "val_loss", .stat = MetricStat::Min}});
  clock.restart();
  model.setRunsRoot(root.path());
  const double warmScan = msSince(clock);
  std::vector<double> rescans;
  for (int i = 0; i < 5; ++i) {
    clock.restart();
    model.rescan();
    rescans.push_back(msSince(clock));
  }
  std::printf(
      "run list of %d runs from the warm index cache: ready in %.0f ms (%lld bytes of metrics read, %lld "
      "parsed); a rescan with nothing changed %.1f ms (median of 5)\n",
      model.rowCount(), warmScan, static_cast<long long>(model.metricsBytesRead()),
      static_cast<long long>(model.runIndex()->bytesParsed()), medianOf(rescans));

  QSortFilterProxyModel proxy;
  proxy.setSourceModel(&model);
  proxy.setFilterKeyColumn(RunListModel::NameColumn);
  clock.restart();
  proxy.setFilterFixedString(QStringLiteral("lr3 "));
  const double filterMs = msSince(clock);
  const int shown = proxy.rowCount();
  proxy.setFilterFixedString(QString());
  proxy.setSortRole(Qt::EditRole);
  clock.restart();
  proxy.sort(RunListModel::LastLossColumn);
  const double sortMs = msSince(clock);
  clock.restart();
  proxy.sort(model.firstMetricColumn());
  std::printf("filter by name: %d rows in %.1f ms; sort by last loss: %.1f ms; by val_loss min: %.1f ms\n", shown,
              filterMs, sortMs, msSince(clock));

  // Other tools' runs beside them: llm.c logs, read whole in the index's thread (they have no index
  // of their own).
  const int imported = std::max(1, runs / 10);
  for (int i = 0; i < imported; ++i) {
    QDir().mkpath(root.filePath(QString("llmc/run%1").arg(i)));
    QFile log(root.filePath(QString("llmc/run%1/main.log").arg(i)));
    log.open(QIODevice::WriteOnly);
    for (long s = 1; s <= records; ++s)
      log.write(QString("s:%1 trl:%2 lr:0.0006 norm:1.0\n").arg(s).arg(3.0 / std::sqrt(s)).toUtf8());
  }
  RunListModel withImports(nullptr, indexCache.path());
  clock.restart();
  QElapsedTimer sinceImportStart;
  sinceImportStart.start();
  withImports.setRunsRoot(root.path());
  const double importScan = msSince(clock);
  clock.restart();
  withImports.rescan();
  std::printf("the same root with %d llm.c logs of %ld steps: ready in %.0f ms (%d rows); a rescan %.1f ms\n", imported,
              records, importScan, withImports.rowCount(), msSince(clock));
  runEventsUntil([&] { return withImports.runIndex()->idle(); }, 600000);
  std::printf("their entries built in the index's thread in %.0f ms from the start (%d logs read)\n",
              msSince(sinceImportStart), withImports.runIndex()->importsRead());
  RunListModel importsWarm(nullptr, indexCache.path());
  clock.restart();
  importsWarm.setRunsRoot(root.path());
  std::printf("the same root again from the warm index cache: ready in %.0f ms (%d rows)\n", msSince(clock),
              importsWarm.rowCount());

  RunRegistry registry;
  Comparison comparison(registry);
  ComparisonSets sets(root.path());
  ComparePage page(&comparison, &sets);
  page.resize(1500, 950);
  page.show();
  clock.restart();
  comparison.setRuns(dirs.mid(0, compared));
  const auto loaded = [&] {
    for (int i = 0; i < comparison.size(); ++i)
      if (comparison.store(i).train().size() < static_cast<std::size_t>(records)) return false;
    return true;
  };
  runEventsUntil(loaded, 600000);
  std::printf("Compare on %d runs: every store loaded in %.0f ms\n", comparison.size(), msSince(clock));
  CompareGrouping grouping;
  grouping.by = {.kind = GroupBy::Kind::ConfigKeysExcept, .keys = {"seed"}, .pattern = {}};
  clock.restart();
  page.setGrouping(grouping);
  page.redrawNow();
  for (CompareChart* chart : page.overlayCharts()) chart->replot();
  const double firstGrouped = msSince(clock);
  std::vector<double> redraws;
  for (int i = 0; i < 5; ++i) {
    page.setSmoothing(0.5 + 0.05 * i);  // every line again
    clock.restart();
    page.redrawNow();
    for (CompareChart* chart : page.overlayCharts()) chart->replot();
    redraws.push_back(msSince(clock));
  }
  std::printf("grouped into %d groups: first chart %.0f ms; a redraw with replots %.0f ms (median of 5)\n",
              static_cast<int>(page.groups().size()), firstGrouped, medianOf(redraws));
  return 0;
}
