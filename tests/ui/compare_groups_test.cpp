// The Compare page on many runs: a learning-rate sweep of twelve runs (three rates, four seeds)
// grouped by every config key but the seed into three mean lines with min–max bands (checked
// against the losses the fixture wrote), members on request, a chart per group; smoothing in x
// units that treats runs logged every step and every fifth step alike; the metric picker over
// TrainDeck's and other tools' runs; and screenshots of the grouped page.
#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QListWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

#include "compare_chart.h"
#include "compare_page.h"
#include "compare_sweep.h"
#include "runs/comparison.h"
#include "runs/comparison_sets.h"
#include "runs/run_registry.h"

using namespace traindeck;
using namespace traindeck::test;

class CompareGroupsTest : public QObject, public CompareSweepFixture {
  Q_OBJECT

 private slots:
  void initTestCase() { writeSweepRoot(); }
  void init() { makePage(); }
  void cleanup() { dropPage(); }

  void aGroupIsItsMembersMeanWithAMinMaxBand() {
    open(m_sweep);
    groupBySeedlessConfig();
    QCOMPARE(m_page->groups().size(), 3);
    const QVector<CompareLine>& lines = lossChart()->lines();
    QCOMPARE(lines.size(), 3);
    QCOMPARE(lines[0].name, QString("optimizer.lr=0.001 (4)"));
    for (int rate = 0; rate < 3; ++rate) {
      const CompareLine& line = lines[rate];
      QCOMPARE(line.color, comparisonColor(rate));
      QCOMPARE(line.x.size(), 200);  // the members share their steps: the grid is those steps
      for (int step : {1, 57, 200}) {
        const qsizetype at = line.x.indexOf(step);
        double sum = 0, lo = INFINITY, hi = -INFINITY;
        for (int seed = 1; seed <= 4; ++seed) {
          const double v = sweepLoss(rate, seed, step);
          sum += v;
          lo = std::min(lo, v);
          hi = std::max(hi, v);
        }
        QVERIFY(std::abs(line.y[at] - sum / 4) < 1e-5);
        QVERIFY(std::abs(line.low[at] - lo) < 1e-5);
        QVERIFY(std::abs(line.high[at] - hi) < 1e-5);
      }
    }
    auto* legend = m_page->findChild<QListWidget*>("compareLegend");
    QCOMPARE(legend->count(), 3);
    QVERIFY2(legend->item(2)->text().contains("optimizer.lr=0.0001") && legend->item(2)->text().contains("(4)"),
             qPrintable(legend->item(2)->text()));
    // The band widens the chart's y range beyond the mean.
    bool found = false;
    QVERIFY(lossChart()->dataYRange(found).upper >= lines[0].high[0] - 1e-9 && found);
  }

  void theBandsGridFollowsTheVisibleRange() {
    // Zoomed in, each group is resampled over what is visible (every point of a close look);
    // a double-click goes back to the whole span.
    open(m_sweep);
    groupBySeedlessConfig();
    QCOMPARE(lossChart()->lines().front().x.size(), 200);
    lossChart()->xAxis->setRange(50, 100);  // as a wheel or a drag moves it, and says so
    emit lossChart()->xRangeChangedByUser(QCPRange(50, 100));
    m_page->redrawNow();
    const CompareLine& zoomed = lossChart()->lines().front();
    QCOMPARE(zoomed.x.size(), 51);
    QCOMPARE(zoomed.x.front(), 50.0);
    QCOMPARE(zoomed.x.back(), 100.0);
    double sum = 0;
    for (int seed = 1; seed <= 4; ++seed) sum += sweepLoss(0, seed, 57);
    QVERIFY(std::abs(zoomed.y[zoomed.x.indexOf(57)] - sum / 4) < 1e-5);
    QCOMPARE(lossChart()->xAxis->range().lower, 50.0);  // the chart stays where the user put it
    emit lossChart()->followingRequested();
    QCOMPARE(lossChart()->lines().front().x.size(), 200);
  }

  void membersOnRequestAndAChartPerGroup() {
    open(m_sweep);
    groupBySeedlessConfig(/*members=*/true);
    const QVector<CompareLine>& lines = lossChart()->lines();
    QCOMPARE(lines.size(), 3 * 5);  // four members then the group's line, per group
    int members = 0;
    for (const CompareLine& line : lines) members += line.member ? 1 : 0;
    QCOMPARE(members, 12);
    QCOMPARE(lossChart()->valuesAt(100).size(), 3);  // the crosshair lists the groups, not members
    m_page->setMode(ComparePage::Mode::SmallMultiples);
    m_page->redrawNow();
    QCOMPARE(m_page->gridCharts().size(), 3);
    for (CompareChart* chart : m_page->gridCharts()) {
      QCOMPARE(chart->lines().size(), 5);
      QCOMPARE(chart->yAxis->range(), m_page->gridCharts().front()->yAxis->range());
    }
  }

  void theGroupControlsGroupBySourceAndPattern() {
    open(m_sweep);
    auto* by = m_page->findChild<QComboBox*>("compareGroupBy");
    auto* keys = m_page->findChild<QLineEdit*>("compareGroupKeys");
    by->setCurrentIndex(static_cast<int>(GroupBy::Kind::NamePattern));
    emit by->activated(by->currentIndex());
    keys->setText(R"(^lr(\d)-seed\d$)");
    emit keys->editingFinished();
    QCOMPARE(m_page->groups().size(), 3);
    QCOMPARE(m_page->groups()[1].name, QString("1"));
    auto* message = m_page->findChild<QLabel*>("compareMessage");
    keys->setText("lr(");  // not an expression: a group per run, and why
    emit keys->editingFinished();
    QCOMPARE(m_page->groups().size(), 12);
    QVERIFY2(message->text().contains("not a regular expression"), qPrintable(message->text()));
    keys->setText(R"(^lr(\d)-seed\d$)");
    emit keys->editingFinished();
    QCOMPARE(m_page->groups().size(), 3);
    QVERIFY(message->text().isEmpty());
    by->setCurrentIndex(static_cast<int>(GroupBy::Kind::Source));
    emit by->activated(by->currentIndex());
    QCOMPARE(m_page->groups().size(), 1);
    QCOMPARE(m_page->groups()[0].members.size(), 12);
    auto* band = m_page->findChild<QComboBox*>("compareGroupBand");
    QVERIFY(band->isEnabled());
    by->setCurrentIndex(0);
    emit by->activated(0);
    QVERIFY(!band->isEnabled());
    QCOMPARE(m_page->groups().size(), 12);
  }

  void smoothingInXUnitsTreatsSparseRunsAlike() {
    const auto ramp = [](int s) { return s / 100.0; };
    const QString dense = writeRun(m_root.path() + "/spacing/every-step", "seed: 1\n", 200, 1, ramp);
    const QString sparse = writeRun(m_root.path() + "/spacing/every-fifth", "seed: 1\n", 200, 5, ramp);
    open({dense, sparse});
    const auto gapAt100 = [this] {
      const QVector<CompareLine>& lines = lossChart()->lines();
      return std::abs(lines[0].y[lines[0].x.indexOf(100)] - lines[1].y[lines[1].x.indexOf(100)]);
    };
    m_page->setSmoothing(0.9);  // TensorBoard's EMA: a weight per point, so the sparse run lags 5x
    m_page->redrawNow();
    const double emaGap = gapAt100();
    QVERIFY2(emaGap > 0.15, qPrintable(QString::number(emaGap)));
    m_page->setSmoothingKind(CompareSmoothing::Kind::XWindow);
    m_page->setSmoothingWindowFraction(0.05);
    m_page->redrawNow();
    const double window = m_page->smoothingWindow();
    QVERIFY(std::abs(window - 0.05 * 199) < 1e-9);  // of the runs' span, steps 1 to 200
    QVERIFY2(gapAt100() < emaGap / 10, qPrintable(QString::number(gapAt100())));
    auto* label = m_page->findChild<QLabel*>("compareSmoothingWindow");
    QVERIFY2(label->text().contains("9.95 steps"), qPrintable(label->text()));
    // On evenly spaced points it is TensorBoard's EMA with weight exp(-spacing / window).
    const double w = std::exp(-1 / window);
    const CompareLine& line = lossChart()->lines()[0];
    double s = 0;
    for (int k = 1; k <= 200; ++k) {
      s = w * s + (1 - w) * ramp(k);
      QVERIFY(std::abs(line.y[k - 1] - s / (1 - std::pow(w, k))) < 1e-6);
    }
    QCOMPARE(line.rawY.size(), 200);
  }

  void thePickerOffersEveryRunsMetricsMappedFirst() {
    const QString lightning = m_root.path() + "/lightning_logs/version_0";
    writeText(lightning + "/metrics.csv", "epoch,step,train_loss,val_acc\n0,10,2.5,\n0,20,2.0,0.61\n1,30,1.5,0.72\n");
    const QString llmc = m_root.path() + "/llmc/main.log";
    writeText(llmc, "s:1 trl:4.0 lr:0.0006 norm:1.5\ns:2 trl:3.5 lr:0.0006 norm:1.4\ns:2 tel:3.9\n");
    open({m_sweep[0], lightning, llmc});
    const QStringList choices = m_page->metricChoices();
    QCOMPARE(choices.mid(0, 4), QStringList({"loss", "val_loss", "lr", "grad_norm"}));
    QVERIFY2(choices.contains("val_acc"), qPrintable(choices.join(',')));
    auto* picker = m_page->findChild<QListWidget*>("compareMetrics");
    QCOMPARE(picker->count(), choices.size());
    const int valAcc = static_cast<int>(choices.indexOf("val_acc"));
    QCOMPARE(picker->item(valAcc)->checkState(), Qt::Unchecked);
    picker->item(valAcc)->setCheckState(Qt::Checked);  // as a click does
    QCOMPARE(m_page->overlayMetrics().last(), QString("val_acc"));
    m_page->setOverlayMetrics({"loss", "val_acc"});
    m_page->redrawNow();
    QCOMPARE(m_page->overlayCharts().size(), 2);
    const CompareChart* acc = m_page->overlayCharts()[1];
    QCOMPARE(acc->lines().size(), 3);
    QCOMPARE(acc->lines()[1].y, QVector<double>({0.61, 0.72}));
    QVERIFY(acc->lines()[0].x.isEmpty());                          // the TrainDeck run has no such scalar
    QCOMPARE(m_page->overlayCharts()[0]->lines()[2].x.size(), 2);  // llm.c's losses, mapped
    auto* legend = m_page->findChild<QListWidget*>("compareLegend");
    QVERIFY2(legend->item(2)->text().contains("llm.c"), qPrintable(legend->item(2)->text()));
    m_page->setGridMetricName("val_acc");
    m_page->setMode(ComparePage::Mode::SmallMultiples);
    m_page->redrawNow();
    QCOMPARE(m_page->gridCharts()[1]->lines()[0].x, QVector<double>({20, 30}));
  }

  void screenshotsOfTheGroupedPage() {
    open(m_sweep);
    m_page->setSmoothing(0.6);
    const auto shoot = [this](const QString& name) { savePage(TRAINDECK_SCREENSHOT_DIR "/compare-groups", name); };
    m_page->setOverlayMetrics({"loss", "val_loss", "lr", "grad_norm"});  // what the sweep logged
    groupBySeedlessConfig();
    shoot("compare-grouped.png");
    groupBySeedlessConfig(/*members=*/true);
    shoot("compare-grouped-members.png");
    m_page->setMode(ComparePage::Mode::SmallMultiples);
    shoot("compare-grouped-multiples.png");
  }
};

QTEST_MAIN(CompareGroupsTest)
#include "compare_groups_test.moc"
