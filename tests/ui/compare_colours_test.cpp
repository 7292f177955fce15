// The Compare page's colours and its hovered run, over the learning-rate sweep (compare_sweep.h):
// colour by a config key (a colour per rate on every chart, legend and table, and on the groups),
// by a metric (the ramp from the smallest value to the largest, grey without it, following a
// live run), by hand (the colour dialog, kept per run address and in named sets); a run's line
// under the pointer, or its summary row, highlighted on every chart and the rest faded, restored
// when the pointer leaves; and screenshots.
#include <QColorDialog>
#include <QComboBox>
#include <QLabel>
#include <QListWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

#include "chart_style.h"
#include "compare_chart.h"
#include "compare_colour_picker.h"
#include "compare_page.h"
#include "compare_sweep.h"
#include "compare_tables.h"
#include "runs/comparison.h"
#include "runs/comparison_sets.h"
#include "runs/comparison_summary_model.h"
#include "runs/run_registry.h"

using namespace traindeck;
using namespace traindeck::test;

namespace {

enum class Drawn { Normal, Highlighted, Faded, Otherwise };

// Each chart's line pens as drawn with nothing hovered.
using Pens = QHash<const CompareChart*, QVector<QPen>>;

Pens pensOf(const QList<CompareChart*>& charts) {
  Pens pens;
  for (const CompareChart* chart : charts)
    for (int i = 0; i < chart->lines().size(); ++i) pens[chart] << chart->lineGraph(i)->pen();
  return pens;
}

// A line's pen against its pen with nothing hovered: the same, wider, or fainter.
Drawn drawnAs(const QPen& pen, const QPen& normal) {
  if (pen == normal) return Drawn::Normal;
  if (pen.widthF() > normal.widthF() && pen.color().alpha() >= normal.color().alpha()) return Drawn::Highlighted;
  if (pen.widthF() == normal.widthF() && pen.color().alpha() < normal.color().alpha()) return Drawn::Faded;
  return Drawn::Otherwise;
}

// Every line of these charts is drawn as `expected` says for its owner.
void checkDrawn(const QList<CompareChart*>& charts, const Pens& normal,
                const std::function<Drawn(const LineOwner&)>& expected) {
  for (const CompareChart* chart : charts)
    for (int i = 0; i < chart->lines().size(); ++i)
      QVERIFY2(drawnAs(chart->lineGraph(i)->pen(), normal.value(chart).value(i)) == expected(chart->lines()[i].owner),
               qPrintable(QString("%1, line %2 (run %3, group %4)")
                              .arg(chart->objectName())
                              .arg(i)
                              .arg(chart->lines()[i].owner.run)
                              .arg(chart->lines()[i].owner.group)));
}

const auto kAllNormal = [](const LineOwner&) { return Drawn::Normal; };

// A pixel on `line` of `chart` at a point of its data, as far from the chart's other lines' points
// as can be found (the pointer there is nearer to that line than to any other).
QPoint pixelOnLine(CompareChart* chart, int line) {
  chart->replot();  // the axes' pixels are those of the last replot
  const CompareLine& target = chart->lines()[line];
  QPointF best;
  double bestGap = -1;
  for (int i = 2; i < target.x.size() - 2; ++i) {
    const QPointF at(chart->xAxis->coordToPixel(target.x[i]), chart->yAxis->coordToPixel(target.y[i]));
    double gap = INFINITY;
    for (int other = 0; other < chart->lines().size(); ++other) {
      if (other == line) continue;
      const CompareLine& o = chart->lines()[other];
      for (int j = 0; j < o.x.size(); ++j)
        gap = std::min(
            gap, std::hypot(chart->xAxis->coordToPixel(o.x[j]) - at.x(), chart->yAxis->coordToPixel(o.y[j]) - at.y()));
    }
    if (gap > bestGap) {
      bestGap = gap;
      best = at;
    }
  }
  [&] { QVERIFY2(bestGap > 3, qPrintable(QString("the lines are %1 px apart at best").arg(bestGap))); }();
  return best.toPoint();
}

}  // namespace

class CompareColoursTest : public QObject, public CompareSweepFixture {
  Q_OBJECT

  // Moves the pointer off every chart and table, onto the colour controls.
  void pointerAway() { QTest::mouseMove(m_page->findChild<QWidget*>("compareColourBar"), QPoint(2, 2)); }

  static int rateOf(int run) { return run / 4; }  // the sweep's order: four seeds per rate

 private slots:
  void initTestCase() { writeSweepRoot(); }

  void init() {
    makePage();
    QVERIFY(QTest::qWaitForWindowExposed(m_page.get()));
    m_page->setOverlayMetrics({"loss", "val_loss", "lr", "grad_norm"});
  }

  void cleanup() { dropPage(); }

  void colourByAConfigKeyGivesEachValueItsColour() {
    open(m_sweep);
    auto* kind = m_page->findChild<QComboBox*>("compareColourBy");
    kind->setCurrentIndex(static_cast<int>(ColourBy::Kind::ConfigKey));
    emit kind->activated(kind->currentIndex());  // as a click does: the first key, the one that varies first
    QCOMPARE(m_comparison->colourBy().key, QString("optimizer.lr"));
    m_page->redrawNow();
    // The rates sorted as numbers take the palette in order: 1e-4, 3e-4, 1e-3.
    const QColor expected[] = {comparisonColor(2), comparisonColor(1), comparisonColor(0)};
    for (const CompareChart* chart : m_page->overlayCharts())
      for (int run = 0; run < 12; ++run) QCOMPARE(chart->lines()[run].color, expected[rateOf(run)]);
    auto* legend = m_page->findChild<QListWidget*>("compareLegend");
    QCOMPARE(legend->item(0)->text(), QString("lr0-seed1  (0.001)"));
    QVERIFY2(legend->item(4)->toolTip().contains("optimizer.lr=0.0003"), qPrintable(legend->item(4)->toolTip()));
    const ComparisonSummaryModel* summary = m_page->tables()->summaryModel();
    QCOMPARE(summary->index(8, 0).data(Qt::DecorationRole).value<QColor>(), expected[2]);
    // Grouped by every key but the seed, each group's runs share its rate's colour: so does its line.
    groupBySeedlessConfig();
    for (int g = 0; g < 3; ++g) QCOMPARE(lossChart()->lines()[g].color, expected[g]);
    // Back to a colour per run.
    m_page->setColourBy({});
    m_page->redrawNow();
    QCOMPARE(lossChart()->lines()[0].color, comparisonColor(0));
  }

  void colourByAMetricSpansItsRange() {
    QTemporaryDir extra;
    const QString noEval =
        writeRun(extra.path() + "/no-eval", "seed: 9\n", 10, 1, [](int s) { return 3.0 - s / 10.0; });
    open(m_sweep + QStringList{noEval});
    m_page->setColourBy({.kind = ColourBy::Kind::Metric, .key = "val_loss", .statistic = ColourBy::Statistic::Min});
    m_page->redrawNow();
    // Each run's smallest val loss, from the losses the fixture wrote (every 20th step, + 0.3).
    QVector<double> best(12, INFINITY);
    for (int run = 0; run < 12; ++run)
      for (int step = 20; step <= 200; step += 20)
        best[run] = std::min(best[run], sweepLoss(rateOf(run), run % 4 + 1, step) + 0.3);
    const auto lowest = std::min_element(best.begin(), best.end()) - best.begin();
    const auto highest = std::max_element(best.begin(), best.end()) - best.begin();
    const QVector<CompareLine>& lines = lossChart()->lines();
    QCOMPARE(lines[lowest].color, rampColour(0));
    QCOMPARE(lines[highest].color, rampColour(1));
    QCOMPARE(lines[12].color, missingValueColour());  // a run without val_loss
    auto* range = m_page->findChild<QLabel*>("compareColourRange");
    QCOMPARE(range->text(), QString("val_loss min %1 … %2")
                                .arg(QString::number(best[lowest], 'g', 4), QString::number(best[highest], 'g', 4)));
    auto* legend = m_page->findChild<QListWidget*>("compareLegend");
    QCOMPARE(legend->item(12)->text(), QString("no-eval  (none)"));
    QVERIFY2(legend->item(12)->toolTip().contains("no val_loss"), qPrintable(legend->item(12)->toolTip()));
    // A live run that logs a new best takes the ramp's low end.
    QFile metrics(noEval + "/metrics.jsonl");
    QVERIFY(metrics.open(QIODevice::Append));
    metrics.write("{\"kind\":\"eval\",\"time\":1764590420.5,\"step\":20,\"tokens\":20480,\"val_loss\":0.5}\n");
    metrics.close();
    QTRY_COMPARE(m_comparison->runColour(12), rampColour(0));
    m_page->redrawNow();
    QCOMPARE(lossChart()->lines()[12].color, rampColour(0));
    // Grouped, a group's line takes the ramp at its members' mean value.
    const double low = m_comparison->colours().low, high = m_comparison->colours().high;
    groupBySeedlessConfig();
    const QVector<RunGroup>& groups = m_page->groups();
    for (int g = 0; g < groups.size(); ++g) {
      double sum = 0;
      for (int run : groups[g].members) sum += run < 12 ? best[run] : 0.5;
      const QColor expected = rampColour((sum / groups[g].members.size() - low) / (high - low));
      const auto line = std::find_if(lossChart()->lines().begin(), lossChart()->lines().end(),
                                     [g](const CompareLine& l) { return l.owner.group == g; });
      QVERIFY(line != lossChart()->lines().end());
      QCOMPARE(line->color, expected);
    }
  }

  void aColourPickedByHandIsKeptPerRun() {
    open(m_sweep.mid(0, 3));
    QColorDialog* dialog = pickRunColour(m_page.get(), *m_comparison, {1});
    QVERIFY(dialog->isVisible());
    dialog->setCurrentColor(QColor("#ff00aa"));
    dialog->accept();
    QCOMPARE(m_comparison->colourBy().kind, ColourBy::Kind::ByHand);
    auto* kind = m_page->findChild<QComboBox*>("compareColourBy");
    QCOMPARE(kind->currentIndex(), static_cast<int>(ColourBy::Kind::ByHand));
    m_page->redrawNow();
    QCOMPARE(lossChart()->lines()[1].color, QColor("#ff00aa"));
    QCOMPARE(lossChart()->lines()[0].color, comparisonColor(0));
    // Kept by address: the run left out and compared again, first this time.
    m_page->compareRuns({m_sweep[0]});
    m_page->compareRuns({m_sweep[1], m_sweep[0]});
    QCOMPARE(m_comparison->runColour(0), QColor("#ff00aa"));
    // And in a named set, for a window opened later.
    QVERIFY(m_page->saveSet("picked").isEmpty());
    cleanup();
    init();
    QVERIFY(m_page->openSet("picked").isEmpty());
    QCOMPARE(m_comparison->colourBy().kind, ColourBy::Kind::ByHand);
    QCOMPARE(m_comparison->runColour(0), QColor("#ff00aa"));
  }

  void hoveringALineHighlightsItsRunOnEveryChart() {
    open({m_sweep[0], m_sweep[4], m_sweep[8]});  // one run per rate
    Pens normal = pensOf(m_page->overlayCharts());
    QToolTip::hideText();
    QTest::mouseMove(lossChart(), pixelOnLine(lossChart(), 1));
    QCOMPARE(m_page->hovered(), (LineOwner{.run = 1, .group = -1}));
    checkDrawn(m_page->overlayCharts(), normal,
               [](const LineOwner& o) { return o.run == 1 ? Drawn::Highlighted : Drawn::Faded; });
    pointerAway();
    QVERIFY(!m_page->hovered().any());
    checkDrawn(m_page->overlayCharts(), normal, kAllNormal);

    // In small multiples: the run's own chart, and its lines on the overlay's charts too.
    m_page->setMode(ComparePage::Mode::SmallMultiples);
    m_page->redrawNow();
    normal.insert(pensOf(m_page->gridCharts()));
    CompareChart* third = m_page->gridCharts()[2];
    QTest::mouseMove(third, pixelOnLine(third, 0));
    QCOMPARE(m_page->hovered(), (LineOwner{.run = 2, .group = -1}));
    const auto runTwo = [](const LineOwner& o) { return o.run == 2 ? Drawn::Highlighted : Drawn::Faded; };
    checkDrawn(m_page->gridCharts() + m_page->overlayCharts(), normal, runTwo);
    m_page->redrawNow();  // a redraw keeps the highlight
    checkDrawn(m_page->gridCharts(), normal, runTwo);
    pointerAway();
    checkDrawn(m_page->gridCharts() + m_page->overlayCharts(), normal, kAllNormal);
  }

  void hoveringASummaryRowHighlightsItsRun() {
    open(m_sweep);
    Pens normal = pensOf(m_page->overlayCharts());
    QTableView* view = m_page->tables()->summaryView();
    view->scrollTo(view->model()->index(5, 0));
    QTest::mouseMove(view->viewport(), view->visualRect(view->model()->index(5, 0)).center());
    QCOMPARE(m_page->hovered(), (LineOwner{.run = 5, .group = -1}));
    checkDrawn(m_page->overlayCharts(), normal,
               [](const LineOwner& o) { return o.run == 5 ? Drawn::Highlighted : Drawn::Faded; });
    pointerAway();
    QVERIFY(!m_page->hovered().any());
    // Grouped, a run's row highlights its group's line.
    groupBySeedlessConfig();
    normal = pensOf(m_page->overlayCharts());
    QTest::mouseMove(view->viewport(), view->visualRect(view->model()->index(5, 0)).center());
    QCOMPARE(m_page->hovered(), (LineOwner{.run = 5, .group = 1}));
    checkDrawn(m_page->overlayCharts(), normal,
               [](const LineOwner& o) { return o.group == 1 ? Drawn::Highlighted : Drawn::Faded; });
    // With members drawn: the run's own thin line and its group's line, not its group's other runs.
    groupBySeedlessConfig(/*members=*/true);
    QCOMPARE(m_page->hovered(), LineOwner{});  // a new grouping forgets what was hovered
    normal = pensOf(m_page->overlayCharts());
    pointerAway();  // (a move to where the pointer already is moves nothing)
    view->scrollTo(view->model()->index(6, 0));
    QTest::mouseMove(view->viewport(), view->visualRect(view->model()->index(6, 0)).center());
    QCOMPARE(m_page->hovered(), (LineOwner{.run = 6, .group = 1}));
    checkDrawn(m_page->overlayCharts(), normal, [](const LineOwner& o) {
      return o.run == 6 || (o.run < 0 && o.group == 1) ? Drawn::Highlighted : Drawn::Faded;
    });
    // The group hovered as a whole (its legend entry): its line and all its members.
    m_page->setHovered({.run = -1, .group = 2});
    checkDrawn(m_page->overlayCharts(), normal,
               [](const LineOwner& o) { return o.group == 2 ? Drawn::Highlighted : Drawn::Faded; });
    pointerAway();
    checkDrawn(m_page->overlayCharts(), normal, kAllNormal);
  }

  void screenshots() {
    open(m_sweep);
    m_page->setSmoothing(0.6);
    const auto shoot = [this](const QString& name) { savePage(TRAINDECK_SCREENSHOT_DIR "/compare-colours", name); };
    m_page->setColourBy({.kind = ColourBy::Kind::ConfigKey, .key = "optimizer.lr", .statistic = {}});
    shoot("compare-colour-by-key.png");
    m_page->setColourBy({.kind = ColourBy::Kind::Metric, .key = "val_loss", .statistic = ColourBy::Statistic::Min});
    shoot("compare-colour-by-metric.png");
    m_page->setColourBy({.kind = ColourBy::Kind::ConfigKey, .key = "optimizer.lr", .statistic = {}});
    m_page->redrawNow();
    QTest::mouseMove(lossChart(), pixelOnLine(lossChart(), 9));
    QCOMPARE(m_page->hovered().run, 9);
    QToolTip::hideText();
    shoot("compare-hovered.png");
    pointerAway();
  }
};

QTEST_MAIN(CompareColoursTest)
#include "compare_colours_test.moc"
