// The Monitor page under load, offscreen. Prints figures; asserts nothing.
//   opening a run of N train records (default 1,000,000) as the app does (a RunSession follows
//   it, the page draws what it stores), cold (no metrics cache: a preview, then every record)
//   and warm (from the metrics cache the cold opening wrote), median of 5 each (and the
//   process's first opening apart)
//   first paint: that run read, parsed, stored and drawn by hand, step by step
//   replot: one chart with 10 such runs (median of 5 replots)
//   event-loop latency (p50, p99) while a fresh run appends 1,000 records/s, and while a long run
//   (N records already) appends 100 records/s, the page following each
//   memory per stored train point (the store), and per drawn point (the charts)
//   the Compare page on 20 runs of M records each (default 50,000): until every line is drawn,
//   a redraw (median of 5), and the threads the followers add
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QThread>
#include <QTimer>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <thread>

#include <unistd.h>

#include "compare_chart.h"
#include "compare_page.h"
#include "event_loop_wait.h"
#include "metric_chart.h"
#include "monitor_page.h"
#include "runlog/metrics_jsonl_parser.h"
#include "runs/comparison.h"
#include "runs/comparison_sets.h"
#include "runs/metrics_cache.h"
#include "runs/metrics_store.h"
#include "runs/run_registry.h"
#include "runs/run_session.h"

using namespace traindeck;
using traindeck::test_support::runEventsUntil;

namespace {

QByteArray trainRecord(long step) {
  char line[320];
  const int n =
      std::snprintf(line, sizeof line,
                    "{\"kind\":\"train\",\"time\":%.3f,\"step\":%ld,\"tokens\":%ld,\"loss\":%.6f,\"lr\":0.0006,"
                    "\"grad_norm\":%.4f,\"tokens_per_s\":%.1f,\"step_ms\":%.2f}\n",
                    1.7e9 + 0.1 * step, step, 2048 * step, 5.0 / std::sqrt(1.0 + step) + 0.01 * std::sin(step),
                    1.0 + 0.1 * std::cos(step), 20000.0 + 100 * std::sin(step / 10.0), 102.4);
  return QByteArray(line, n);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// A metrics.jsonl of a header and `records` train records.
void writeMetrics(const QString& path, long records) {
  QFile out(path);
  out.open(QIODevice::WriteOnly);
  out.write("{\"kind\":\"header\",\"time\":1.7e9,\"schema\":1,\"total_steps\":2000000,\"tokens_per_step\":2048}\n");
  for (long s = 1; s <= records; ++s) out.write(trainRecord(s));
}

// Event-loop lateness (p50, p99) over 5 s while a run directory that starts with `prefill`
// train records gains `perTick` records every 10 ms, followed and drawn by a Monitor page.
void liveLatency(QApplication& app, const QString& runDir, long prefill, int perTick) {
  QDir().mkpath(runDir);
  writeMetrics(runDir + "/metrics.jsonl", prefill);
  MonitorPage livePage;
  livePage.resize(1400, 900);
  livePage.show();
  RunRegistry registry;
  const std::shared_ptr<const RunSession> session = registry.session(runDir, RunRegistry::Follow::MetricsOnly);
  QObject::connect(session.get(), &RunSession::metricsChanged, &livePage, [&] {
    MetricsView v;
    v.train = &session->metrics().train();
    v.header = session->metrics().header();
    livePage.showMetrics(v);
  });
  // Let the page read and draw what is there before the clock starts.
  runEventsUntil([&] { return livePage.charts().front()->pointCount() >= static_cast<std::size_t>(prefill); }, 60000);

  std::atomic<bool> writing{true};
  std::thread writer([&] {
    QFile out(runDir + "/metrics.jsonl");
    out.open(QIODevice::Append);
    long step = prefill + 1;
    while (writing) {
      QByteArray chunk;
      for (int i = 0; i < perTick; ++i) chunk += trainRecord(step++);
      out.write(chunk);
      out.flush();
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
  std::vector<double> lateness;
  QElapsedTimer since;
  since.start();
  qint64 expected = 5;
  QTimer tick;
  tick.setTimerType(Qt::PreciseTimer);
  QObject::connect(&tick, &QTimer::timeout, [&] {
    const qint64 now = since.elapsed();
    lateness.push_back(static_cast<double>(std::max<qint64>(0, now - expected)));
    expected = now + 5;
  });
  tick.start(5);
  QTimer::singleShot(5000, &app, &QApplication::quit);
  app.exec();
  writing = false;
  writer.join();
  std::sort(lateness.begin(), lateness.end());
  if (std::getenv("BENCH_VERBOSE"))
    for (std::size_t i = lateness.size() > 15 ? lateness.size() - 15 : 0; i < lateness.size(); ++i)
      std::printf("  late %.0f ms (of %zu ticks)\n", lateness[i], lateness.size());
  // A blocked loop misses ticks rather than queueing them, so the percentiles undercount long
  // stalls: the time spent late says how much of the 5 s the page held the loop.
  double lateTotal = 0;
  for (double late : lateness) lateTotal += late;
  std::printf(
      "event-loop latency over 5 s, %ld records stored first, %d records/s arriving (%zu stored, %zu drawn at "
      "the end): p50 %.1f ms, p99 %.1f ms, max %.0f ms, late %.0f%% of the time\n",
      prefill, perTick * 100, session->metrics().train().size(), livePage.charts().front()->pointCount(),
      lateness[lateness.size() / 2], lateness[lateness.size() * 99 / 100], lateness.back(), lateTotal / 50.0);
}

// Opens the run at `runDir` as the app does, on a fresh page and registry: when the loss chart
// first shows points (and how many), and when it shows all `records`, each drawn (grabbed).
struct Opened {
  double firstMs = 0, allMs = 0;
  std::size_t firstPoints = 0;
};
Opened openRun(const QString& runDir, const MetricsCache& cache, long records) {
  MonitorPage page;
  page.resize(1400, 900);
  page.show();
  QElapsedTimer clock;
  clock.start();
  RunRegistry registry(nullptr, cache);
  const std::shared_ptr<const RunSession> session = registry.session(runDir, RunRegistry::Follow::MetricsOnly);
  QObject::connect(session.get(), &RunSession::metricsChanged, &page,
                   [&] { page.showMetrics(metricsViewOf(session->metrics())); });
  MetricChart* loss = page.charts().front();
  Opened o;
  runEventsUntil([&] { return loss->pointCount() > 0; }, 60000, 1);
  QCoreApplication::processEvents();  // the replots the redraw queued
  page.grab();
  o.firstMs = static_cast<double>(clock.nsecsElapsed()) / 1e6;
  o.firstPoints = loss->pointCount();
  runEventsUntil([&] { return loss->pointCount() >= static_cast<std::size_t>(records); }, 60000, 1);
  QCoreApplication::processEvents();
  page.grab();
  o.allMs = static_cast<double>(clock.nsecsElapsed()) / 1e6;
  return o;
}

int threadCount() {
  return static_cast<int>(QDir("/proc/self/task").entryList(QDir::Dirs | QDir::NoDotAndDotDot).size());
}

// The Compare page on 20 finished runs of `records` train records each.
void compareFigures(const QString& root, long records) {
  QStringList runs;
  for (int r = 0; r < Comparison::kColorCount; ++r) {
    const QString dir = QDir(root).filePath(QString("run-%1").arg(r, 2, 10, QChar('0')));
    QDir().mkpath(dir);
    writeMetrics(dir + "/metrics.jsonl", records);
    QFile json(dir + "/run.json");
    json.open(QIODevice::WriteOnly);
    json.write(QString(R"({"id":"run-%1","name":"lr %1","status":"finished","step":%2})").arg(r).arg(records).toUtf8());
    QFile config(dir + "/config.yaml");
    config.open(QIODevice::WriteOnly);
    config.write(QString("optimizer:\n  lr: %1e-4\n").arg(r + 1).toUtf8());
    runs << dir;
  }
  const int threadsBefore = threadCount();
  RunRegistry registry;
  Comparison comparison(registry);
  ComparisonSets sets(root);
  ComparePage page(&comparison, &sets);
  page.resize(1400, 900);
  page.show();
  QElapsedTimer clock;
  clock.start();
  page.compareRuns(runs);
  const auto allStored = [&] {
    for (int i = 0; i < comparison.size(); ++i)
      if (comparison.store(i).train().size() < static_cast<std::size_t>(records)) return false;
    return comparison.size() == runs.size();
  };
  runEventsUntil(allStored, 120000);
  page.redrawNow();
  page.grab();
  const double loadMs = static_cast<double>(clock.elapsed());
  const int threads = threadCount() - threadsBefore;
  std::vector<double> redraws;
  for (int i = 0; i < 6; ++i) {
    clock.restart();
    page.redrawNow();
    page.grab();
    if (i > 0) redraws.push_back(static_cast<double>(clock.nsecsElapsed()) / 1e6);
  }
  std::printf(
      "compare, 20 runs x %ld records: every line drawn after %.0f ms; redraw %.1f ms (median of 5); "
      "%d threads added while following them\n",
      records, loadMs, median(redraws), threads);
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  const long records = argc > 1 ? std::atol(argv[1]) : 1000000;
  const long compareRecords = argc > 2 ? std::atol(argv[2]) : 50000;
  QTemporaryDir dir;
  const QString path = dir.filePath("metrics.jsonl");
  writeMetrics(path, records);
  ::sync();  // the 170 MB just written, on disk: their writeback is not the openings' to pay

  // The app's path: a RunSession follows the file, and a page draws the store whenever it
  // changes. Cold: no metrics cache (the file itself is in the OS page cache, just written), so
  // a long history is previewed first, from a sample of its lines, then drawn whole; the cache
  // is written meanwhile. Warm: opened again, from the cache the cold opening wrote. First, as
  // an app opens a run: before the sections below fill the process with other pages' points.
  // The process's first opening is apart: the memory every later one reuses is fresh then
  // (its page faults, Qt's first paint of each chart), as when the app opens its first run.
  const MetricsCache cache(dir.filePath("cache"));
  std::vector<double> coldPreview, coldAll, warmFirst, warmAll;
  std::size_t previewPoints = 0;
  double firstOpening = 0;
  for (int i = 0; i < 6; ++i) {
    QDir(cache.dir()).removeRecursively();
    const Opened cold = openRun(dir.path(), cache, records);
    if (i == 0) {
      firstOpening = cold.allMs;
      continue;
    }
    coldPreview.push_back(cold.firstMs);
    coldAll.push_back(cold.allMs);
    previewPoints = cold.firstPoints;
  }
  for (int i = 0; i < 5; ++i) {
    const Opened warm = openRun(dir.path(), cache, records);
    warmFirst.push_back(warm.firstMs);
    warmAll.push_back(warm.allMs);
  }
  std::printf(
      "open as the app follows the run, cold (no metrics cache; median of 5): first paint %.0f ms (a preview of %zu "
      "records), every record drawn after %.0f ms (the process's first opening: %.0f ms)\n",
      median(coldPreview), previewPoints, median(coldAll), firstOpening);
  std::printf(
      "open again, warm (from the metrics cache; median of 5): first paint %.0f ms, every record drawn after %.0f "
      "ms\n",
      median(warmFirst), median(warmAll));
  if (std::getenv("BENCH_OPEN_ONLY")) return 0;  // for a profile of the openings alone

  // First paint: read, parse, store, draw.
  MonitorPage page;
  page.resize(1400, 900);
  page.show();
  QElapsedTimer clock;
  clock.start();
  MetricsStore store;
  double readMs = 0, parseMs = 0;
  {
    QFile in(path);
    in.open(QIODevice::ReadOnly);
    const QByteArray bytes = in.readAll();
    readMs = static_cast<double>(clock.nsecsElapsed()) / 1e6;
    MetricsJsonlParser parser;
    MetricsBatch batch = parser.feed(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())));
    parseMs = static_cast<double>(clock.nsecsElapsed()) / 1e6 - readMs;
    store.append(batch);
  }
  const double parsedMs = static_cast<double>(clock.elapsed());
  page.showMetrics(metricsViewOf(store));
  runEventsUntil([&] { return page.charts().front()->pointCount() >= static_cast<std::size_t>(records); }, 60000);
  page.grab();
  const double firstPaintMs = static_cast<double>(clock.elapsed());
  std::printf("first paint, %ld train records: %.0f ms (read %.0f ms, parse %.0f ms, store %.0f ms, draw %.0f ms)\n",
              records, firstPaintMs, readMs, parseMs, parsedMs - readMs - parseMs, firstPaintMs - parsedMs);
  page.hide();

  // Replot: 10 runs of `records` points on one chart.
  MetricChart chart("Loss", "nats");
  chart.resize(900, 500);
  chart.show();
  QVector<double> x(static_cast<int>(records)), y(static_cast<int>(records));
  for (long i = 0; i < records; ++i) {
    x[static_cast<int>(i)] = static_cast<double>(i);
    y[static_cast<int>(i)] = store.train().loss[static_cast<std::size_t>(i)];
  }
  QVector<QString> names;
  QVector<QVector<double>> xs, ys;
  for (int run = 0; run < 10; ++run) {
    names << QString("run %1").arg(run);
    xs << x;
    QVector<double> shifted = y;
    for (double& v : shifted) v += 0.05 * run;
    ys << shifted;
  }
  chart.setExtraLines(names, xs, ys);
  chart.fitIfFollowing();
  std::vector<double> replots;
  for (int i = 0; i < 6; ++i) {
    clock.restart();
    chart.replot(QCustomPlot::rpImmediateRefresh);
    if (i > 0) replots.push_back(static_cast<double>(clock.nsecsElapsed()) / 1e6);
  }
  // The same while panning: each replot shows another range, so the points are picked anew.
  std::vector<double> pans;
  const QCPRange full = chart.xAxis->range();
  for (int i = 0; i < 6; ++i) {
    chart.xAxis->setRange(full.lower + full.size() * 0.01 * i, full.upper - full.size() * 0.3 + full.size() * 0.01 * i);
    clock.restart();
    chart.replot(QCustomPlot::rpImmediateRefresh);
    if (i > 0) pans.push_back(static_cast<double>(clock.nsecsElapsed()) / 1e6);
  }
  chart.xAxis->setRange(full);
  std::printf("replot, 10 runs x %ld points on one chart: %.1f ms (median of 5); panning: %.1f ms (median of 5)\n",
              records, median(replots), median(pans));

  // Event-loop latency while a run grows, followed by a RunSession (the big charts above are
  // hidden, so their repaints do not count): a fresh run at 1,000 records/s, and a long run
  // (`records` already written) that gains 100 records/s.
  page.hide();
  chart.hide();
  liveLatency(app, dir.filePath("live"), 0, 10);
  liveLatency(app, dir.filePath("long"), records, 1);

  std::printf(
      "memory: %.1f bytes per stored train point (store); each drawn series adds 16 bytes per point "
      "(x and y) and about 4 for its min/max pyramid, 7 series on the Monitor page\n",
      store.bytesPerTrainPoint());
  compareFigures(dir.filePath("compare"), compareRecords);
  return 0;
}
