// The Monitor's charts by name: it offers every metric the shown run has (TrainDeck's other
// columns, another tool's scalars), draws a chosen one from the run's store, hides a chart whose
// metric the run lacks (and for another tool's run the fixed ones it lacks), keeps the choice
// across runs, gives each run shown its own ranges, and exports the charts it shows under their metrics' names.
#include <QApplication>
#include <QMenu>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTimer>
#include <QToolButton>
#include <QtTest>
#include <cmath>
#include <numeric>

#include "metric_chart.h"
#include "monitor_page.h"
#include "runs/metrics_csv.h"
#include "runs/metrics_store.h"

using namespace traindeck;

namespace {

// A run of ours: 50 train records with step time and MFU, a val loss every 10, two ranks' system.
MetricsStore oursStore() {
  MetricsBatch batch;
  batch.hasHeader = true;
  batch.header.totalSteps = 100;
  batch.header.tokensPerStep = 512;
  for (int s = 1; s <= 50; ++s) {
    TrainColumns& t = batch.train;
    t.step.push_back(s);
    t.tokens.push_back(512 * s);
    t.time.push_back(2000.0 + s);
    t.loss.push_back(static_cast<float>(4.0 / std::sqrt(s)));
    t.lr.push_back(1e-3f);
    t.gradNorm.push_back(1.0f);
    t.tokensPerSecond.push_back(900.0f);
    t.stepMs.push_back(static_cast<float>(100 + s));
    t.mfu.push_back(0.3f);
    if (s % 10 == 0) {
      batch.eval.step.push_back(s);
      batch.eval.tokens.push_back(512 * s);
      batch.eval.time.push_back(2000.0 + s);
      batch.eval.valLoss.push_back(static_cast<float>(4.2 / std::sqrt(s)));
    }
  }
  for (int rank = 0; rank < 2; ++rank)
    batch.system.push_back({.rank = rank, .device = "cpu", .time = 2010.0, .util = 0.5f, .memUsed = 1 << 30,
                            .memTotal = 8ll << 30, .powerW = -1, .tempC = -1});
  MetricsStore store;
  store.append(batch);
  return store;
}

// Another tool's run: loss and lr mapped, no throughput, no devices, and two scalars of its own.
MetricsStore theirsStore() {
  MetricsBatch batch;
  for (int s = 1; s <= 30; ++s) {
    batch.train.step.push_back(s);
    batch.train.tokens.push_back(0);
    batch.train.time.push_back(std::nan(""));
    batch.train.loss.push_back(static_cast<float>(3.0 / s));
    batch.train.lr.push_back(2e-4f);
    for (auto* column : {&batch.train.gradNorm, &batch.train.tokensPerSecond, &batch.train.stepMs, &batch.train.mfu})
      column->push_back(std::nanf(""));
  }
  MetricsStore store;
  store.append(batch);
  ScalarSeries accuracy{.name = "val_acc", .step = {10, 20, 30}, .time = {NAN, NAN, NAN}, .value = {0.5, 0.6, 0.7}};
  ScalarSeries perplexity{.name = "eval/perplexity", .step = {10, 20}, .time = {NAN, NAN}, .value = {20, 15}};
  store.setScalars({accuracy, perplexity});
  return store;
}

// How the window shows another tool's run.
MetricsView importedView(const MetricsStore& store) {
  MetricsView view = metricsViewOf(store);
  view.imported = true;
  return view;
}

}  // namespace

class MonitorChartsTest : public QObject {
  Q_OBJECT

 private slots:
  void offersAndDrawsAnyMetricOfTheRunByName() {
    const MetricsStore ours = oursStore();
    MonitorPage page;
    page.resize(1200, 900);
    page.show();
    page.showMetrics(metricsViewOf(ours));
    QTRY_COMPARE(page.chart("loss")->graph(0)->dataCount(), 50);
    const QStringList offered = page.offeredChartNames();
    QCOMPARE(offered.mid(0, 6), MonitorPage::defaultChartNames());
    QVERIFY2(offered.contains("step_ms") && offered.contains("mfu"), qPrintable(offered.join(',')));
    QVERIFY(!offered.contains("val_loss"));  // drawn on the loss chart
    QVERIFY(page.chart("step_ms") == nullptr);
    QSignalSpy chosen(&page, &MonitorPage::chartNamesChanged);
    page.setChartNames(MonitorPage::defaultChartNames() << "step_ms");
    QCOMPARE(chosen.size(), 1);
    MetricChart* stepTime = page.chart("step_ms");
    QVERIFY(stepTime != nullptr);
    QCOMPARE(page.charts().size(), 7);
    QTRY_COMPARE(stepTime->graph(0)->dataCount(), 50);
    QCOMPARE(stepTime->graph(0)->data()->at(49)->value, 150.0);
    QCOMPARE(stepTime->graph(0)->data()->at(49)->key, 50.0);
    QVERIFY(page.isChartShown("step_ms") && stepTime->isVisible());
    // On another axis it is drawn again.
    page.setXAxis(MonitorPage::XAxis::Tokens);
    QTRY_COMPARE(stepTime->graph(0)->data()->at(49)->key, 512.0 * 50);
    // A fixed chart can go too; the usual charts come back.
    page.setChartNames(QStringList{"loss", "step_ms"});
    QTRY_VERIFY(!page.isChartShown("lr"));
    QVERIFY(!page.chart("lr")->isVisible());
    page.setChartNames(MonitorPage::defaultChartNames());
    QVERIFY(page.chart("step_ms") == nullptr);
    QCOMPARE(page.charts().size(), 6);
  }

  void anotherToolsRunShowsTheChartsOfWhatItHas() {
    const MetricsStore ours = oursStore();
    const MetricsStore theirs = theirsStore();
    MonitorPage page;
    page.resize(1200, 900);
    page.setChartNames(MonitorPage::defaultChartNames() << "val_acc" << "eval/perplexity");
    page.showMetrics(importedView(theirs));
    QTRY_COMPARE(page.chart("val_acc")->graph(0)->dataCount(), 3);
    QCOMPARE(page.chart("val_acc")->graph(0)->data()->at(2)->value, 0.7);
    QCOMPARE(page.chart("eval/perplexity")->graph(0)->dataCount(), 2);
    QVERIFY(page.isChartShown("loss") && page.isChartShown("lr"));
    for (const char* lacking : {"tokens_per_s", "grad_norm", "device_util", "device_memory"})
      QVERIFY2(!page.isChartShown(lacking), lacking);
    QCOMPARE(page.chart("loss")->graph(0)->dataCount(), 30);
    // It counts no tokens: nothing on a tokens axis rather than a line at zero.
    page.setXAxis(MonitorPage::XAxis::Tokens);
    QTRY_COMPARE(page.chart("loss")->graph(0)->dataCount(), 0);
    QCOMPARE(page.chart("val_acc")->graph(0)->dataCount(), 0);
    page.setXAxis(MonitorPage::XAxis::Step);
    QTRY_COMPARE(page.chart("loss")->graph(0)->dataCount(), 30);
    // A run of ours has none of those scalars: their charts are hidden, kept for the next run
    // that has them, and the fixed charts all shown.
    page.showMetrics(metricsViewOf(ours));
    QTRY_COMPARE(page.chart("loss")->graph(0)->dataCount(), 50);
    QVERIFY(!page.isChartShown("val_acc") && !page.isChartShown("eval/perplexity"));
    for (const QString& fixed : MonitorPage::defaultChartNames()) QVERIFY2(page.isChartShown(fixed), qPrintable(fixed));
    QCOMPARE(page.chartNames().size(), 8);
    // Chosen but not in this run: still offered, to be unchosen.
    QVERIFY(page.offeredChartNames().contains("val_acc"));
  }

  void eachRunShownGetsItsOwnRanges() {
    // Another tool's run, zoomed in by the user, then a run of ours: the charts fit ours (the
    // Monitor kept the last run's ranges, hiding most of the new run's data).
    const MetricsStore ours = oursStore();
    const MetricsStore theirs = theirsStore();
    MonitorPage page;
    page.resize(1200, 900);
    page.show();
    page.showMetrics(importedView(theirs));
    MetricChart* loss = page.chart("loss");
    QTRY_COMPARE(loss->graph(0)->dataCount(), 30);
    loss->zoomX(QCPRange(10, 20));
    QCOMPARE(loss->xAxis->range().upper, 20.0);
    page.showMetrics(metricsViewOf(ours));
    QTRY_COMPARE(loss->graph(0)->dataCount(), 50);
    QTRY_VERIFY2(loss->xAxis->range().lower <= 1 && loss->xAxis->range().upper >= 50,
                 qPrintable(QString("x %1..%2").arg(loss->xAxis->range().lower).arg(loss->xAxis->range().upper)));
    QVERIFY2(loss->yAxis->range().lower <= 4.0 / std::sqrt(50.0) && loss->yAxis->range().upper >= 4.0,
             qPrintable(QString("y %1..%2").arg(loss->yAxis->range().lower).arg(loss->yAxis->range().upper)));
    // Its devices' utilization (50 %), then a run with no device records: that chart says it has
    // none, on its default ranges, not the last run's.
    MetricChart* util = page.chart("device_util");
    QTRY_VERIFY(util->yAxis->range().contains(50.0));
    MetricsStore noDevices;
    MetricsBatch batch;
    batch.train = ours.train();
    noDevices.append(batch);
    page.showMetrics(metricsViewOf(noDevices));
    QTRY_VERIFY(util->showsEmpty());
    QCOMPARE(util->yAxis->range().upper, 1.0);
  }

  // A long history's preview (a sample of its lines), then the whole of it in the same store:
  // drawn at the next turn of the event loop, not after the wait that paces a live run's redraws.
  void aPreviewReplacedByTheWholeIsDrawnAtOnce() {
    const auto batchOf = [](const std::vector<int>& steps) {
      MetricsBatch b;
      for (int s : steps) {
        b.train.step.push_back(s);
        b.train.tokens.push_back(512 * s);
        b.train.time.push_back(2000.0 + s);
        b.train.loss.push_back(static_cast<float>(4.0 / std::sqrt(s)));
        for (auto* column : {&b.train.lr, &b.train.gradNorm, &b.train.tokensPerSecond, &b.train.stepMs, &b.train.mfu})
          column->push_back(1.0f);
      }
      return b;
    };
    MetricsStore store;
    store.append(batchOf({1, 50, 100}));
    MonitorPage page;
    page.resize(1200, 900);
    page.show();
    page.showMetrics(metricsViewOf(store));
    MetricChart* loss = page.chart("loss");
    QTRY_COMPARE(loss->graph(0)->dataCount(), 3);
    std::vector<int> all(100);
    std::iota(all.begin(), all.end(), 1);
    MetricsBatch whole = batchOf(all);
    whole.restart = true;
    store.append(whole);
    page.showMetrics(metricsViewOf(store));
    QCoreApplication::processEvents();
    QCOMPARE(loss->graph(0)->dataCount(), 100);
  }

  void theChartsMenuChoosesByName() {
    const MetricsStore theirs = theirsStore();
    MonitorPage page;
    page.resize(1200, 900);
    page.show();
    page.showMetrics(importedView(theirs));
    QTRY_COMPARE(page.chart("loss")->graph(0)->dataCount(), 30);
    bool picked = false;
    QTimer::singleShot(0, this, [&] {
      auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget());
      QVERIFY(menu != nullptr);
      QAction* accuracy = menu->findChild<QAction*>("chart:val_acc");
      QVERIFY(accuracy != nullptr && !accuracy->isChecked());
      QVERIFY(menu->findChild<QAction*>("chart:loss")->isChecked());
      accuracy->trigger();
      picked = true;
      menu->close();
    });
    page.findChild<QToolButton*>("chartsButton")->click();
    QVERIFY(picked);
    QVERIFY(page.chartNames().contains("val_acc"));
    QTRY_COMPARE(page.chart("val_acc")->graph(0)->dataCount(), 3);
  }

  void exportsTheChartsItShowsUnderTheirNames() {
    const MetricsStore theirs = theirsStore();
    MonitorPage page;
    page.resize(1200, 900);
    page.setChartNames(MonitorPage::defaultChartNames() << "eval/perplexity");
    page.showMetrics(importedView(theirs));
    QTRY_COMPARE(page.chart("eval/perplexity")->graph(0)->dataCount(), 2);
    QTemporaryDir dir;
    QVERIFY(page.exportCharts(dir.path(), "png"));
    const QStringList files = QDir(dir.path()).entryList(QDir::Files, QDir::Name);
    QCOMPARE(files, QStringList({"eval-perplexity.png", "learning-rate.png", "loss.png"}));
  }

  // Metrics as CSV: another tool's scalars are columns under their names beside the mapped ones,
  // a step's line empty where it has no value; ours carry val_loss where an eval was made.
  void exportsEveryMetricAsCsvByStep() {
    QTemporaryDir dir;
    const MetricsStore theirs = theirsStore();
    MonitorPage page;
    page.showMetrics(metricsViewOf(theirs));
    QVERIFY(page.exportCsv(dir.filePath("theirs.csv")));
    QFile theirsCsv(dir.filePath("theirs.csv"));
    QVERIFY(theirsCsv.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(theirsCsv.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 31);
    QCOMPARE(lines[0], QString("step,tokens,time,loss,lr,grad_norm,tokens_per_s,step_ms,val_loss,val_acc,eval/perplexity"));
    QCOMPARE(lines[3], QString("3,0,,1,0.0002,,,,,,"));
    QCOMPARE(lines[20], QString("20,0,,0.15,0.0002,,,,,0.6,15"));
    QCOMPARE(lines[30], QString("30,0,,0.1,0.0002,,,,,0.7,"));

    const MetricsStore ours = oursStore();
    page.showMetrics(metricsViewOf(ours));
    QVERIFY(page.exportCsv(dir.filePath("ours.csv")));
    QFile oursCsv(dir.filePath("ours.csv"));
    QVERIFY(oursCsv.open(QIODevice::ReadOnly));
    const QStringList ourLines = QString::fromUtf8(oursCsv.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(ourLines[0], QString("step,tokens,time,loss,lr,grad_norm,tokens_per_s,step_ms,val_loss"));
    int withValLoss = 0;
    for (const QString& line : ourLines.mid(1)) withValLoss += !line.endsWith(',');
    QCOMPARE(withValLoss, static_cast<int>(ours.eval().size()));
    // A name that is not a plain word stays one field.
    QCOMPARE(csvField("acc, top-5 \"strict\""), QString("\"acc, top-5 \"\"strict\"\"\""));
    QCOMPARE(csvField("eval/loss"), QString("eval/loss"));
  }
};

QTEST_MAIN(MonitorChartsTest)
#include "monitor_charts_test.moc"
