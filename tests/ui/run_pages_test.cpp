// The run pages without a run: the Monitor page draws given columns (every chart, each x-axis,
// smoothing as TensorBoard does it, a growing run by its new records only, progress, exports)
// and the Logs page filters, searches and puts a failed rank first.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QProgressBar>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

#include "chart_style.h"
#include "logs_page.h"
#include "metric_chart.h"
#include "monitor_page.h"
#include "progress_text.h"
#include "runs/run_registry.h"
#include "smoothing.h"

using namespace traindeck;

class RunPagesTest : public QObject {
  Q_OBJECT

 private:
  TrainColumns m_train;
  EvalColumns m_eval;
  std::map<int, std::vector<SystemPoint>> m_system;
  std::vector<EventPoint> m_events;

  MetricsView view() {
    MetricsView v;
    v.train = &m_train;
    v.eval = &m_eval;
    v.system = &m_system;
    v.events = &m_events;
    v.header.totalSteps = 200;
    v.header.tokensPerStep = 1000;
    v.status = "running";
    return v;
  }

 private slots:
  void initTestCase() {
    for (int s = 1; s <= 100; ++s) {
      m_train.step.push_back(s);
      m_train.tokens.push_back(1000 * s);
      m_train.time.push_back(1000.0 + 0.5 * s);
      m_train.loss.push_back(static_cast<float>(5.0 / std::sqrt(s)));
      m_train.lr.push_back(1e-3f);
      m_train.gradNorm.push_back(1.0f);
      m_train.tokensPerSecond.push_back(2000.0f);
      m_train.stepMs.push_back(500.0f);
      m_train.mfu.push_back(0.25f);
    }
    for (int s = 10; s <= 100; s += 10) {
      m_eval.step.push_back(s);
      m_eval.tokens.push_back(1000 * s);
      m_eval.time.push_back(1000.0 + 0.5 * s);
      m_eval.valLoss.push_back(static_cast<float>(5.2 / std::sqrt(s)));
    }
    for (int rank = 0; rank < 2; ++rank)
      for (int i = 0; i < 5; ++i)
        m_system[rank].push_back({.rank = rank,
                                  .device = "cpu",
                                  .time = 1000.0 + 10 * i,
                                  .util = 0.5f,
                                  .memUsed = 1ll << 30,
                                  .memTotal = 8ll << 30,
                                  .powerW = -1,
                                  .tempC = -1});
    m_events.push_back({.time = 1020.0,
                        .step = 40,
                        .level = "warn",
                        .rank = 0,
                        .message = "non-finite loss or gradient norm: step 40 skipped"});
  }

  void smoothingIsTensorBoardsDebiasedEma() {
    const std::vector<float> values = {1, 2, 3, std::nanf(""), 4};
    const auto smoothed = debiasedEma(values, 0.6);
    // By hand: last = 0.4, 0.24 + 0.8 = 1.04, 0.624 + 1.2 = 1.824; debias 1 - 0.6^k.
    QCOMPARE(smoothed.size(), std::size_t(5));
    QVERIFY(std::abs(smoothed[0] - 1.0) < 1e-12);
    QVERIFY(std::abs(smoothed[1] - 1.04 / 0.64) < 1e-12);
    QVERIFY(std::abs(smoothed[2] - 1.824 / 0.784) < 1e-12);
    QVERIFY(std::isnan(smoothed[3]));
    QVERIFY(std::abs(smoothed[4] - (1.824 * 0.6 + 1.6) / (1 - 0.6 * 0.6 * 0.6 * 0.6)) < 1e-12);
    QCOMPARE(debiasedEma(values, 0.0)[1], 2.0);
  }

  void monitorDrawsEveryChartOnEachAxis() {
    MonitorPage page;
    page.resize(1000, 800);
    page.showMetrics(view());
    QTRY_COMPARE(page.charts().front()->graph(0)->dataCount(), 100);
    MetricChart* loss = page.charts().front();
    QCOMPARE(loss->graph(1)->dataCount(), 100);  // smoothed
    QCOMPARE(loss->graphCount(), 4);             // raw, smoothed, events, val loss
    QCOMPARE(loss->graph(3)->dataCount(), 10);
    QCOMPARE(loss->graph(2)->dataCount(), 1);        // the event marker
    QCOMPARE(page.charts().at(4)->graphCount(), 5);  // util: 2 ranks
    QCOMPARE(page.findChild<QLabel*>("stepValue")->text(), QString("100 / 200"));
    QCOMPARE(page.findChild<QLabel*>("mfuValue")->text(), QString("25.0%"));
    QCOMPARE(page.findChild<QProgressBar*>("progress")->value(), 100);

    page.setXAxis(MonitorPage::XAxis::Tokens);
    QTRY_COMPARE(loss->graph(0)->data()->at(99)->key, 100000.0);
    page.setXAxis(MonitorPage::XAxis::Elapsed);
    QTRY_COMPARE(loss->graph(0)->data()->at(99)->key, 49.5);
    page.setSmoothing(0);
    QTRY_VERIFY(std::abs(loss->graph(1)->data()->at(3)->value - 2.5) < 1e-6);  // 5/sqrt(4)
    if (const QString dir = qEnvironmentVariable("TRAINDECK_SCREENSHOTS"); !dir.isEmpty()) {
      page.setXAxis(MonitorPage::XAxis::Step);
      page.setSmoothing(0.6);
      QTest::qWait(100);
      QVERIFY(page.grab().save(QDir(dir).filePath("monitor-page-fixture.png")));
    }
  }

  // A growing run: the page adds only the records that came since its last redraw, and the
  // result is the same as drawing everything at once. A resume that rewrites steps, or a new
  // smoothing weight, draws everything again.
  void monitorAddsOnlyNewRecordsToAGrowingRun() {
    TrainColumns growing;
    const auto copyUpTo = [&](std::size_t n) {
      for (std::size_t i = growing.size(); i < n; ++i) {
        growing.step.push_back(m_train.step[i]);
        growing.tokens.push_back(m_train.tokens[i]);
        growing.time.push_back(m_train.time[i]);
        growing.loss.push_back(m_train.loss[i] + 0.01f * static_cast<float>(i % 7));
        growing.lr.push_back(m_train.lr[i]);
        growing.gradNorm.push_back(1.0f + 0.1f * static_cast<float>(i % 5));
        growing.tokensPerSecond.push_back(2000.0f + static_cast<float>(i % 3));
        growing.stepMs.push_back(m_train.stepMs[i]);
        growing.mfu.push_back(m_train.mfu[i]);
      }
    };
    MetricsView v;
    v.train = &growing;
    MonitorPage page;
    page.resize(900, 700);
    copyUpTo(60);
    page.showMetrics(v);
    MetricChart* loss = page.charts().front();
    QTRY_COMPARE(loss->graph(0)->dataCount(), 60);
    const float firstLoss = growing.loss[0];
    growing.loss[0] = 99;  // not redrawn unless the page starts over
    copyUpTo(100);
    page.showMetrics(v);
    QTRY_COMPARE(loss->graph(0)->dataCount(), 100);
    QCOMPARE(loss->graph(0)->data()->at(0)->value, static_cast<double>(firstLoss));

    growing.loss[0] = firstLoss;
    MonitorPage whole;
    whole.resize(900, 700);
    whole.showMetrics(v);
    QTRY_COMPARE(whole.charts().front()->graph(0)->dataCount(), 100);
    for (int chart = 0; chart < 4; ++chart)
      for (int graph = 0; graph < 2; ++graph) {
        const auto* added = page.charts()[chart]->graph(graph)->data().data();
        const auto* drawn = whole.charts()[chart]->graph(graph)->data().data();
        QCOMPARE(added->size(), drawn->size());
        for (int i = 0; i < drawn->size(); ++i) {
          QCOMPARE(added->at(i)->key, drawn->at(i)->key);
          QCOMPARE(added->at(i)->value, drawn->at(i)->value);  // the smoothing carries on exactly
        }
      }

    // A resume from step 50 rewrites steps 51 on, with new times and values.
    for (auto* column :
         {&growing.loss, &growing.lr, &growing.gradNorm, &growing.tokensPerSecond, &growing.stepMs, &growing.mfu})
      column->resize(50);
    growing.step.resize(50);
    growing.tokens.resize(50);
    growing.time.resize(50);
    for (int s = 51; s <= 70; ++s) {
      growing.step.push_back(s);
      growing.tokens.push_back(1000 * s);
      growing.time.push_back(5000.0 + s);
      growing.loss.push_back(0.5f);
      growing.lr.push_back(1e-3f);
      growing.gradNorm.push_back(1.0f);
      growing.tokensPerSecond.push_back(2000.0f);
      growing.stepMs.push_back(500.0f);
      growing.mfu.push_back(0.25f);
    }
    page.showMetrics(v);
    QTRY_COMPARE(loss->graph(0)->dataCount(), 70);
    QCOMPARE(loss->graph(0)->data()->at(60)->value, 0.5);
    QCOMPARE(loss->graph(0)->data()->at(49)->value, static_cast<double>(growing.loss[49]));

    page.setSmoothing(0.9);
    const auto expected = debiasedEma(growing.loss, 0.9);
    QTRY_VERIFY(std::abs(loss->graph(1)->data()->at(69)->value - expected[69]) < 1e-12);
    QVERIFY(std::abs(loss->graph(1)->data()->at(10)->value - expected[10]) < 1e-12);
  }

  void redrawsWaitFourTimesTheirCostWithinBounds() {
    QCOMPARE(nextRedrawIntervalMs(1), 40);
    QCOMPARE(nextRedrawIntervalMs(60), 240);
    QCOMPARE(nextRedrawIntervalMs(5000), 1000);
  }

  void theLossAxisStaysWithTheDataOverALongLiveRun() {
    // 1,000 refreshes of a growing loss curve with event markers (which sit at the top edge):
    // the y axis stays within 10% of the data's range, as it was 5.5 -> 80 before.
    MetricChart chart("Loss", "nats");
    chart.resize(600, 300);
    QVector<double> x, y;
    QVector<ChartMarker> markers;
    double low = 1e9, high = -1e9;
    for (int step = 1; step <= 1000; ++step) {
      const double loss = 2.0 + 3.75 / std::sqrt(static_cast<double>(step));
      x << step;
      y << loss;
      low = std::min(low, loss);
      high = std::max(high, loss);
      if (step % 100 == 0)
        markers.push_back({.x = static_cast<double>(step), .level = "info", .text = "checkpoint saved"});
      chart.setSeries(x, y, y);
      chart.setMarkers(markers);
      chart.fitIfFollowing();
    }
    const QCPRange range = chart.yAxis->range();
    const double span = high - low;
    QVERIFY2(range.upper <= high + 0.1 * span && range.lower >= low - 0.1 * span,
             qPrintable(QString("axis %1..%2 for data %3..%4").arg(range.lower).arg(range.upper).arg(low).arg(high)));
    QVERIFY(range.upper >= high && range.lower <= low);  // and it shows all of it
  }

  void anEmptyChartSaysSoInsteadOfShowingAxes() {
    MetricChart chart("Loss", "nats");
    chart.fitIfFollowing();
    QVERIFY(chart.showsEmpty());
    QVERIFY(!chart.xAxis->tickLabels() && !chart.yAxis->tickLabels());
    chart.setSeries({1, 2}, {5.0, 4.5}, {5.0, 4.5});
    chart.fitIfFollowing();
    QVERIFY(!chart.showsEmpty());
    QVERIFY(chart.xAxis->tickLabels() && chart.yAxis->tickLabels());
    chart.setSeries({}, {}, {});
    chart.fitIfFollowing();
    QVERIFY(chart.showsEmpty());
  }

  void hoverZoomAndOutliers() {
    MetricChart chart("Loss", "nats");
    chart.resize(600, 300);
    chart.setXAxisLabel("Step");
    QVector<double> x, y;
    for (int step = 1; step <= 1000; ++step) {
      x << step;
      y << (step == 500 ? 1000.0 : 2.0 + 8.0 / step);  // one spike, and a steep start
    }
    chart.setSeries(x, y, {});
    chart.fitIfFollowing();
    chart.replot();
    QVERIFY(chart.yAxis->range().upper >= 1000);  // everything, the spike too
    // Hovering names the nearest point exactly.
    const QString text = chart.valueTextAt(chart.xAxis->coordToPixel(250.2));
    QCOMPARE(text, QString("Step 250: %1").arg(2.0 + 8.0 / 250, 0, 'g', 6));
    QCOMPARE(chart.valueTextAt(chart.xAxis->coordToPixel(1000) + 60), QString());  // no point near
    // Ignoring outliers: the spike no longer sets the scale.
    chart.setIgnoreOutliers(true);
    QVERIFY2(chart.yAxis->range().upper < 20, qPrintable(QString::number(chart.yAxis->range().upper)));
    chart.setIgnoreOutliers(false);
    // A zoom into the tail: y follows what is visible (2.008..2.011), not the steep start.
    chart.zoomX(QCPRange(900, 1000));
    QVERIFY2(chart.yAxis->range().upper < 2.02 && chart.yAxis->range().lower > 2.0,
             qPrintable(QString("%1..%2").arg(chart.yAxis->range().lower).arg(chart.yAxis->range().upper)));
    chart.fitIfFollowing();  // no longer following: the zoom stays
    QCOMPARE(chart.xAxis->range().lower, 900.0);
  }

  void chartsFollowThePalette() {
    MetricChart chart("Loss", "nats");
    QPalette dark = chart.palette();
    dark.setColor(QPalette::Base, QColor(30, 30, 30));
    dark.setColor(QPalette::Text, QColor(230, 230, 230));
    chart.setPalette(dark);
    QCOMPARE(chart.xAxis->basePen().color(), QColor(230, 230, 230));
    QCOMPARE(chart.toPixmap(200, 120).toImage().pixelColor(2, 2), QColor(30, 30, 30));
    QCOMPARE(chart.xAxis->tickLabelColor(), QColor(230, 230, 230));
  }

  void progressSaysWhatIsLeft() {
    QCOMPARE(progressText(m_train, 200, "running"), QString("50% · 50s left"));
    QCOMPARE(progressText(m_train, 200, "stopped"), QString("50% · stopped"));
    QCOMPARE(progressText(m_train, 0, "stopped"), QString("stopped"));  // no total: no percent
    QCOMPARE(progressText(m_train, 0, "running"), QString("running"));
    QCOMPARE(formatSeconds(3725), QString("1h02m"));
    QCOMPARE(formatSeconds((37943 * 60 + 55) * 60.0), QString("4.3 years"));
  }

  void progressEstimatesOnlyFromWhatItKnows() {
    // Two records a tenth of a second apart: no pace to tell yet ("0s left" said nothing true).
    TrainColumns start;
    for (int s = 1; s <= 2; ++s) {
      start.step.push_back(s);
      start.time.push_back(1000.0 + 0.1 * s);
    }
    QCOMPARE(progressText(start, 100, "running"), QString("2% · estimating…"));
    // Steps 1-70 at 0.5 s a step, stopped for 50 minutes, resumed: steps 71-80 at 1 s a step.
    // The time left is paced by the records since the resume: 20 steps at 1 s.
    TrainColumns resumed;
    for (int s = 1; s <= 80; ++s) {
      resumed.step.push_back(s);
      resumed.time.push_back(s <= 70 ? 0.5 * s : 3035.0 + (s - 70));
    }
    QCOMPARE(progressText(resumed, 100, "running"), QString("80% · 20s left"));
    // A fast run (13 steps a second, a record each): its last 50 records span under 5 s, so the
    // pace is taken over more of them; the demo said "estimating…" for ever.
    TrainColumns fast;
    for (int s = 1; s <= 1300; ++s) {
      fast.step.push_back(s);
      fast.time.push_back(s / 13.0);
    }
    QCOMPARE(progressText(fast, 2600, "running"), QString("50% · 1m40s left"));
    // While a remote run's link is down nothing comes: no time left is counted down.
    QCOMPARE(progressText(m_train, 200, "running", true), QString("50% · waiting for the link"));
    QCOMPARE(progressText(m_train, 0, "running", true), QString("waiting for the link"));
    QCOMPARE(progressText(m_train, 200, "stopped", true), QString("50% · stopped"));
  }

  void timeAxisLinesBreakWhereTheRunWasStopped() {
    // Ten records, stopped for an hour after the fifth: on the elapsed-time axis a point with no
    // value stands in the stopped hour (the line breaks there); on the step axis nothing does.
    TrainColumns train;
    for (int s = 1; s <= 10; ++s) {
      train.step.push_back(s);
      train.tokens.push_back(100 * s);
      train.time.push_back(s <= 5 ? s : 3600.0 + s);
      for (std::vector<float>* v :
           {&train.loss, &train.lr, &train.gradNorm, &train.tokensPerSecond, &train.stepMs, &train.mfu})
        v->push_back(1.0f);
    }
    MetricsView v;
    v.train = &train;
    v.status = "finished";
    MonitorPage page;
    page.showMetrics(v);
    QTRY_COMPARE(page.charts().front()->graph(0)->dataCount(), 10);
    page.setXAxis(MonitorPage::XAxis::Elapsed);
    QTRY_COMPARE(page.charts().front()->graph(0)->dataCount(), 11);
    const QCPGraphDataContainer& points = *page.charts().front()->graph(0)->data();
    QVERIFY(std::isnan((points.constBegin() + 5)->value));
  }

  void monitorExportsChartsAndCsv() {
    MonitorPage page;
    page.resize(900, 700);
    page.showMetrics(view());
    QTRY_COMPARE(page.charts().front()->graph(0)->dataCount(), 100);
    QTemporaryDir dir;
    for (const QString ext : {"png", "svg", "pdf"}) {
      QVERIFY(page.exportCharts(dir.path(), ext));
      QVERIFY(QFileInfo(dir.filePath("loss." + ext)).size() > 500);
    }
    QVERIFY(page.exportCsv(dir.filePath("metrics.csv")));
    QFile csv(dir.filePath("metrics.csv"));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QStringList lines = QString(csv.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 101);
    QVERIFY(lines[1].startsWith("1,1000,1000.500,5,"));
  }

  void logsFilterSearchAndPutTheFailedRankFirst() {
    LogsPage page;
    LogStore store;
    QVector<LogLine> lines;
    for (int i = 0; i < 30; ++i)
      lines.push_back({.rank = i % 2,
                       .level = LogLevel::Info,
                       .text = QString("2026-11-30T08:00:%1Z info: line %2").arg(i).arg(i)});
    store.append(lines.mid(0, 20));
    page.showLines(store);
    QCOMPARE(page.visibleText().count('\n') + 1, 20);
    store.append(lines.mid(20));
    store.append({{.rank = 1, .level = LogLevel::Error, .text = "2026-11-30T08:01:00Z error: all-reduce failed"}});
    page.showLines(store);  // only what is new is added
    QCOMPARE(page.visibleText().count('\n') + 1, 31);
    QCOMPARE(page.visibleText().count("line 19"), 1);
    page.setRankFilter(1);
    QCOMPARE(page.visibleText().count('\n') + 1, 16);
    QVERIFY(!page.visibleText().contains("line 0"));
    QVERIFY(page.findNext("all-reduce"));
    QVERIFY(!page.findNext("no such text"));
    page.setRankFilter(-1);
    page.showFailure(1, "rank 1 exited with code 1 at step 12: error: all-reduce failed");
    const QStringList shown = page.visibleText().split('\n');
    QVERIFY(shown.front().contains("last lines of rank 1"));
    QVERIFY(shown.at(1).startsWith("[1]"));
    QVERIFY(shown.at(16).contains("all-reduce failed"));  // rank 1's 16 lines, its last closing the block
    QVERIFY(shown.at(17).contains("all lines"));
    QVERIFY(page.findChild<QLabel*>("failureBanner")->isVisibleTo(&page));
  }

  void aTruncatedLogIsShownOnce() {
    // A rank's log cut back and written anew while the run is followed: the page shows the new
    // lines once and none of the old ones.
    QTemporaryDir dir;
    QDir().mkpath(dir.filePath("logs"));
    const auto writeLog = [&](int rank, const QString& text, QIODevice::OpenMode mode) {
      QFile log(dir.filePath(QString("logs/rank-%1.log").arg(rank)));
      QVERIFY(log.open(QIODevice::WriteOnly | mode));
      log.write(text.toUtf8());
    };
    QString first;
    for (int i = 0; i < 50; ++i) first += QString("2026-11-30T08:00:00Z info: first pass line %1\n").arg(i);
    writeLog(0, first, QIODevice::Truncate);
    writeLog(1, "2026-11-30T08:00:00Z info: rank 1 stays\n", QIODevice::Truncate);
    RunRegistry registry;
    const std::shared_ptr<const RunSession> session = registry.session(dir.path());
    LogsPage page;
    connect(session.get(), &RunSession::logsChanged, &page, [&] { page.showLines(session->logs()); });
    QTRY_VERIFY(page.visibleText().contains("first pass line 49"));
    QVERIFY(page.visibleText().contains("rank 1 stays"));
    writeLog(0, "2026-11-30T08:00:01Z info: second pass line 0\n2026-11-30T08:00:01Z info: second pass line 1\n",
             QIODevice::Truncate);
    QTRY_VERIFY(page.visibleText().contains("second pass line 1"));
    QTRY_VERIFY(!page.visibleText().contains("first pass"));
    const QString shown = page.visibleText();
    QCOMPARE(shown.count("second pass line 0"), 1);
    QCOMPARE(shown.count("second pass line 1"), 1);
    QCOMPARE(shown.count("rank 1 stays"), 1);  // the other rank's lines are kept, once
    QCOMPARE(session->logs().size(), std::size_t(3));
  }

  void theLogStoreIsBounded() {
    LogStore store(100);
    QVector<LogLine> lines;
    for (int i = 0; i < 250; ++i)
      lines.push_back({.rank = 0, .level = LogLevel::Plain, .text = QString("line %1").arg(i)});
    store.append(lines);
    QCOMPARE(store.size(), std::size_t(100));
    QCOMPARE(store.at(0).text, QString("line 150"));
    QCOMPARE(store.droppedLines(), std::uint64_t(150));
    QCOMPARE(store.sequenceAt(0), std::uint64_t(150));
    QCOMPARE(store.indexFrom(200), std::size_t(50));
    LogsPage page;
    page.showLines(store);
    QCOMPARE(page.visibleText().count('\n') + 1, 100);
    QVERIFY(!page.visibleText().contains("line 149\n"));
  }

  void aLongLineIsDrawnFromItsPyramid() {
    // 200,000 points with a spike and a gap: zoomed out, QCustomPlot is handed a few points per
    // pixel column that still hold the spike and the gap; zoomed in, every point, exactly.
    MetricChart chart("Loss", "nats");
    chart.resize(600, 300);
    QVector<double> x, y;
    for (int i = 0; i < 200000; ++i) {
      x << i;
      y << 2.0 + std::sin(i * 0.01);
    }
    y[123457] = 50;            // a spike
    y[150001] = std::nan("");  // a step without its loss: the line breaks there
    chart.setSeries(x, y, {});
    chart.fitIfFollowing();
    chart.replot();
    const QCPGraphDataContainer& drawn = *chart.graph(0)->data();
    QCOMPARE(chart.pointCount(), std::size_t(200000));
    QVERIFY2(drawn.size() < 10 * chart.width(), qPrintable(QString::number(drawn.size())));
    bool spike = false, gap = false;
    for (auto p = drawn.constBegin(); p != drawn.constEnd(); ++p) {
      spike = spike || (p->key == 123457 && p->value == 50);
      gap = gap || (p->key == 150001 && std::isnan(p->value));
    }
    QVERIFY(spike && gap);
    QVERIFY(chart.yAxis->range().upper >= 50);
    chart.zoomX(QCPRange(100000, 100999));
    chart.replot();
    QCOMPARE(chart.graph(0)->data()->size(), 1002);  // every point, and one past each edge
    QCOMPARE(chart.graph(0)->data()->at(1)->key, 100000.0);
    QCOMPARE(chart.graph(0)->data()->at(500)->value, y[100499]);
    QVERIFY(chart.yAxis->range().upper < 4);  // y fitted to what is visible: no spike there
    QCOMPARE(chart.valueTextAt(chart.xAxis->coordToPixel(100500.2)), QString("x 100500: %1").arg(y[100500], 0, 'g', 6));
  }
};

QTEST_MAIN(RunPagesTest)
#include "run_pages_test.moc"
