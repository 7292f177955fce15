// The Compare page over five recorded runs (tests/ui/fixtures/compare, made by
// make_compare_runs.py): one line per run in its colour on every chart, smoothing as the
// reference formula gives it, synced zoom, the crosshair's values, each x axis, small
// multiples with shared axes, log scale, named sets, live updates, and screenshots of both modes.
#include <QComboBox>
#include <QListWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

#include "compare_chart.h"
#include "compare_page.h"
#include "compare_tables.h"
#include "runs/comparison.h"
#include "runs/comparison_sets.h"
#include "runs/run_registry.h"

using namespace traindeck;

namespace {

const QString kFixtures = QStringLiteral(TRAINDECK_TEST_DATA_DIR "/ui/fixtures/compare");

QStringList fixtureRuns() {
  QStringList runs;
  for (const QString& name : QDir(kFixtures).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
    runs << QDir(kFixtures).filePath(name);
  return runs;
}

// The train losses of a fixture run, read straight from its file (not through the app's parser).
QVector<double> fixtureLosses(const QString& runDir) {
  QVector<double> losses;
  QFile file(runDir + "/metrics.jsonl");
  if (!file.open(QIODevice::ReadOnly)) return losses;
  while (!file.atEnd()) {
    const QJsonObject record = QJsonDocument::fromJson(file.readLine()).object();
    if (record.value("kind").toString() == "train") losses << record.value("loss").toDouble();
  }
  return losses;
}

int trainPoints(const CompareChart* chart, int line) {
  return static_cast<int>(chart->lines().at(line).x.size());
}

}  // namespace

class ComparePageTest : public QObject {
  Q_OBJECT

  QTemporaryDir m_root;  // runs root for the named sets
  RunRegistry m_registry;
  std::unique_ptr<Comparison> m_comparison;
  std::unique_ptr<ComparisonSets> m_sets;
  std::unique_ptr<ComparePage> m_page;
  QStringList m_runs;

  CompareChart* overlay(CompareMetric metric) const { return m_page->overlayCharts().at(static_cast<int>(metric)); }

  // Waits until every run's train loss is drawn in full.
  void loadAll() {
    for (int i = 0; i < m_runs.size(); ++i) {
      const int expected = static_cast<int>(fixtureLosses(m_runs[i]).size());
      QTRY_VERIFY(m_comparison->size() == m_runs.size() &&
                  m_comparison->store(i).train().size() == std::size_t(expected));
    }
    m_page->redrawNow();
  }

 private slots:
  void init() {
    m_runs = fixtureRuns();
    QCOMPARE(m_runs.size(), 5);
    m_comparison = std::make_unique<Comparison>(m_registry);
    m_sets = std::make_unique<ComparisonSets>(m_root.path());
    m_page = std::make_unique<ComparePage>(m_comparison.get(), m_sets.get());
    m_page->resize(1400, 900);
    m_page->show();
    m_page->compareRuns(m_runs);
    loadAll();
  }

  void cleanup() {
    m_page.reset();
    m_comparison.reset();
  }

  void everyChartHasALinePerRunInItsColour() {
    for (CompareChart* chart : m_page->overlayCharts()) {
      QCOMPARE(chart->lines().size(), 5);
      for (int i = 0; i < 5; ++i) QCOMPARE(chart->lines()[i].color, comparisonColor(m_comparison->run(i).colorSlot));
    }
    QCOMPARE(trainPoints(overlay(CompareMetric::TrainLoss), 0), 120);
    QCOMPARE(trainPoints(overlay(CompareMetric::TrainLoss), 3), 70);  // the failed run
    QCOMPARE(trainPoints(overlay(CompareMetric::ValLoss), 0), 12);
    auto* legend = m_page->findChild<QListWidget*>("compareLegend");
    QCOMPARE(legend->count(), 5);
    QVERIFY(legend->item(3)->text().contains("failed"));
    QCOMPARE(m_page->tables()->summaryView()->model()->rowCount(), 5);
  }

  void smoothingFollowsTheReferenceFormula() {
    const double w = 0.8;
    m_page->setSmoothing(w);
    m_page->redrawNow();
    const QVector<double> raw = fixtureLosses(m_runs[1]);
    const CompareLine& line = overlay(CompareMetric::TrainLoss)->lines()[1];
    QCOMPARE(line.rawY.size(), raw.size());
    // TensorBoard: s_k = w s_{k-1} + (1-w) v_k, s_0 = 0, shown as s_k / (1 - w^k).
    double s = 0;
    for (int k = 1; k <= raw.size(); ++k) {
      s = w * s + (1 - w) * raw[k - 1];
      QVERIFY(std::abs(line.y[k - 1] - s / (1 - std::pow(w, k))) < 1e-4);
      QVERIFY(std::abs(line.rawY[k - 1] - raw[k - 1]) < 1e-4);
    }
    // Learning rate and val loss are not smoothed; weight 0 turns smoothing off.
    QVERIFY(overlay(CompareMetric::LearningRate)->lines()[0].rawY.isEmpty());
    m_page->setSmoothing(0);
    m_page->redrawNow();
    QVERIFY(overlay(CompareMetric::TrainLoss)->lines()[1].rawY.isEmpty());
    QVERIFY(std::abs(overlay(CompareMetric::TrainLoss)->lines()[1].y[5] - raw[5]) < 1e-4);
  }

  void zoomingOneChartZoomsThemAll() {
    CompareChart* loss = overlay(CompareMetric::TrainLoss);
    const QCPRange before = loss->xAxis->range();
    QVERIFY(before.lower <= 1 && before.upper >= 120);
    const QPointF center = loss->axisRect()->rect().center();
    QWheelEvent wheel(center, loss->mapToGlobal(center), QPoint(), QPoint(0, 240), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(loss, &wheel);
    const QCPRange zoomed = loss->xAxis->range();
    QVERIFY2(zoomed.size() < before.size() * 0.9, "the wheel zooms in");
    for (CompareChart* chart : m_page->overlayCharts()) {
      QVERIFY(std::abs(chart->xAxis->range().lower - zoomed.lower) < 1e-9);
      QVERIFY(std::abs(chart->xAxis->range().upper - zoomed.upper) < 1e-9);
      QVERIFY(!chart->following());
    }
    m_page->redrawNow();  // new data does not undo the user's zoom
    QVERIFY(std::abs(overlay(CompareMetric::GradNorm)->xAxis->range().upper - zoomed.upper) < 1e-9);
    emit loss->followingRequested();  // a double-click
    QVERIFY(std::abs(overlay(CompareMetric::GradNorm)->xAxis->range().upper - before.upper) < 1e-9);
  }

  void crosshairListsEveryRunAtX() {
    CompareChart* loss = overlay(CompareMetric::TrainLoss);
    m_page->setSmoothing(0);
    m_page->redrawNow();
    const QVector<CrosshairValue> at50 = loss->valuesAt(50.2);
    QCOMPARE(at50.size(), 5);
    for (const CrosshairValue& v : at50) {
      QCOMPARE(v.x, 50.0);
      QVERIFY(std::abs(v.y - fixtureLosses(m_runs[v.line])[49]) < 1e-4);
    }
    const QVector<CrosshairValue> at100 = loss->valuesAt(100);
    QCOMPARE(at100[3].x, 70.0);  // the failed run ends at step 70
    const QString text = loss->crosshairText(50);
    // The pointer between two steps: the heading names the step whose values it lists.
    QVERIFY2(loss->crosshairText(50.37).startsWith("<b>step 50</b>"), qPrintable(loss->crosshairText(50.37)));
    for (int i = 0; i < 5; ++i) {
      QVERIFY2(text.contains(m_comparison->run(i).label), qPrintable(text));
      QVERIFY(text.contains(comparisonColor(i).name()));
    }
  }

  void eachXAxis() {
    const CompareChart* loss = overlay(CompareMetric::TrainLoss);
    m_page->setXAxis(CompareX::Tokens);
    m_page->redrawNow();
    QCOMPARE(loss->lines()[0].x[9], 10.0 * 2048);  // baseline: 2 ranks x 8 x 128 tokens a step
    QCOMPARE(loss->lines()[2].x[9], 10.0 * 4096);  // wide: 4 ranks
    m_page->setXAxis(CompareX::Elapsed);
    m_page->redrawNow();
    QVERIFY(std::abs(loss->lines()[0].x[0] - 2048.0 / 5200) < 0.01);  // first step after the header
    m_page->setXAxis(CompareX::WallClock);
    m_page->redrawNow();
    QVERIFY(loss->lines()[0].x[0] > 1.7e9);
    QVERIFY(loss->xAxis->ticker().dynamicCast<QCPAxisTickerDateTime>());
    QVERIFY(loss->xAxis->range().lower > 1.7e9);
  }

  void smallMultiplesShareTheirAxes() {
    m_page->setMode(ComparePage::Mode::SmallMultiples);
    m_page->redrawNow();
    const QList<CompareChart*> grid = m_page->gridCharts();
    QCOMPARE(grid.size(), 5);
    for (int i = 0; i < 5; ++i) {
      QCOMPARE(grid[i]->lines().size(), 1);
      QCOMPARE(grid[i]->lines()[0].color, comparisonColor(m_comparison->run(i).colorSlot));
      QCOMPARE(grid[i]->xAxis->range(), grid[0]->xAxis->range());
      QCOMPARE(grid[i]->yAxis->range(), grid[0]->yAxis->range());
    }
    QCOMPARE(trainPoints(grid[3], 0), 70);
    m_page->setGridMetric(CompareMetric::ValLoss);
    m_page->redrawNow();
    QCOMPARE(trainPoints(grid[0], 0), 12);
  }

  void logScaleOnEveryChart() {
    m_page->setLogScale(true);
    m_page->setMode(ComparePage::Mode::SmallMultiples);
    m_page->redrawNow();
    for (CompareChart* chart : m_page->overlayCharts() + m_page->gridCharts()) {
      QCOMPARE(chart->yAxis->scaleType(), QCPAxis::stLogarithmic);
      QVERIFY(chart->yAxis->range().lower > 0);
    }
  }

  void namedSetsReopen() {
    QVERIFY(m_page->saveSet("all five").isEmpty());
    m_page->compareRuns(m_runs.mid(0, 2));
    QCOMPARE(m_comparison->size(), 2);
    auto* chooser = m_page->findChild<QComboBox*>("compareSets");
    QVERIFY(chooser->findText("all five") > 0);
    QVERIFY(m_page->openSet("all five").isEmpty());
    QCOMPARE(m_comparison->size(), 5);
    QCOMPARE(chooser->currentText(), QString("all five"));
    QVERIFY(!m_page->openSet("no such set").isEmpty());
  }

  void aRunStillTrainingKeepsUpdating() {
    QTemporaryDir copy;
    const QString live = copy.path() + "/live";
    QDir().mkpath(live);
    for (const char* name : {"run.json", "config.yaml", "metrics.jsonl"})
      QVERIFY(QFile::copy(m_runs[4] + "/" + name, live + "/" + name));
    m_page->compareRuns({m_runs[0], live});
    QTRY_COMPARE(m_comparison->store(1).train().size(), std::size_t(90));
    m_page->redrawNow();
    const double* untouched = overlay(CompareMetric::TrainLoss)->lines()[0].x.constData();
    QFile file(live + "/metrics.jsonl");
    QVERIFY(file.open(QIODevice::Append));
    file.write("{\"kind\":\"train\",\"time\":1764334900,\"step\":91,\"tokens\":372736,\"loss\":1.7}\n");
    file.close();
    QTRY_COMPARE(trainPoints(overlay(CompareMetric::TrainLoss), 1), 91);
    // Only the run that grew was rebuilt: the other run's line is the same data as before.
    QCOMPARE(overlay(CompareMetric::TrainLoss)->lines()[0].x.constData(), untouched);
  }

  void screenshotsOfBothModes() {
    // A folder of its own: ui.screenshots, which ctest may run at the same time, writes (and
    // first removes) compare-multiples.png in the shared one.
    const QString folder = QStringLiteral(TRAINDECK_SCREENSHOT_DIR "/compare-page");
    QDir().mkpath(folder);
    for (auto [mode, name] : {std::pair{ComparePage::Mode::Overlay, "compare-overlay.png"},
                              std::pair{ComparePage::Mode::SmallMultiples, "compare-multiples.png"}}) {
      m_page->setMode(mode);
      m_page->redrawNow();
      for (CompareChart* chart : m_page->overlayCharts() + m_page->gridCharts()) chart->replot();
      QVERIFY(m_page->grab().save(QDir(folder).filePath(name)));
      const qint64 bytes = QFileInfo(QDir(folder).filePath(name)).size();
      QVERIFY2(bytes > 30000, qPrintable(QString("%1 has %2 bytes: blank?").arg(name).arg(bytes)));
    }
    m_page->tables()->setCurrentIndex(1);  // the config diff
    QVERIFY(m_page->grab().save(QDir(folder).filePath("compare-diff.png")));
  }
};

QTEST_MAIN(ComparePageTest)
#include "compare_page_test.moc"
