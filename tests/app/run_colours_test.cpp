// Colouring compared runs: each run's slot; a palette colour per config value (equal values
// equal colours, the same whatever the runs' order, no greys, grey for a missing key); the ramp
// over a metric from its smallest value to its largest, grey without one; colours picked by hand
// winning over the slots; and named sets keeping the picked colours.
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <random>

#include "runs/comparison_sets.h"
#include "runs/run_colours.h"

using namespace traindeck;

namespace {

QVector<ColourableRun> runsWithValues(const QVector<std::optional<QString>>& values) {
  QVector<ColourableRun> runs;
  for (int i = 0; i < values.size(); ++i) runs.push_back({.slot = i, .configValue = values[i]});
  return runs;
}

const ColourBy kByLr{.kind = ColourBy::Kind::ConfigKey, .key = "optimizer.lr", .statistic = {}};

}  // namespace

class RunColoursTest : public QObject {
  Q_OBJECT

 private slots:
  void byRunEachRunHasItsSlot() {
    const QVector<ColourableRun> runs{{.slot = 3, .byHand = Qt::black}, {.slot = 24}};
    const RunColours colours = assignRunColours(runs, {});
    QCOMPARE(colours.colours, QVector<QColor>({comparisonColor(3), comparisonColor(4)}));
    QCOMPARE(colours.notes, QVector<QString>({{}, {}}));  // a colour picked by hand shows only ByHand
  }

  void equalConfigValuesShareAColour() {
    const RunColours colours =
        assignRunColours(runsWithValues({"0.001", "0.0003", "0.001", std::nullopt, "1e-4"}), kByLr);
    QCOMPARE(colours.colours.size(), 5);
    QCOMPARE(colours.colours[0], colours.colours[2]);
    QVERIFY(colours.colours[0] != colours.colours[1]);
    QVERIFY(colours.colours[1] != colours.colours[4]);
    QCOMPARE(colours.colours[3], missingValueColour());
    // Sorted as numbers: 1e-4 < 0.0003 < 0.001 take the palette's first three colours.
    QCOMPARE(colours.colours[4], comparisonColor(0));
    QCOMPARE(colours.colours[1], comparisonColor(1));
    QCOMPARE(colours.colours[0], comparisonColor(2));
    QCOMPARE(colours.notes[0], QString("optimizer.lr=0.001"));
    QCOMPARE(colours.notes[3], QString("optimizer.lr=(none)"));
    QCOMPARE(colours.values[0], QString("0.001"));
  }

  void aValuesColourDoesNotDependOnTheRunsOrder() {
    QVector<std::optional<QString>> values{"adamw", "sgd", "lion", "adamw", "muon", "sgd"};
    const RunColours first = assignRunColours(runsWithValues(values), kByLr);
    QHash<QString, QColor> colourOf;
    for (int i = 0; i < values.size(); ++i) colourOf.insert(*values[i], first.colours[i]);
    QCOMPARE(colourOf.size(), 4);
    std::mt19937 random(7);
    for (int round = 0; round < 5; ++round) {
      std::shuffle(values.begin(), values.end(), random);
      const RunColours again = assignRunColours(runsWithValues(values), kByLr);
      for (int i = 0; i < values.size(); ++i) QCOMPARE(again.colours[i], colourOf.value(*values[i]));
    }
  }

  void categoriesNeverTakeTheGreys() {
    QVector<std::optional<QString>> values;
    for (int i = 0; i < 40; ++i) values << QString::number(i);
    const RunColours colours = assignRunColours(runsWithValues(values), kByLr);
    QSet<QRgb> distinct;
    for (const QColor& c : colours.colours) {
      QVERIFY(c != comparisonColor(7) && c != comparisonColor(17) && c != missingValueColour());
      distinct.insert(c.rgb());
    }
    QCOMPARE(distinct.size(), 18);  // the palette's 20 colours but its two greys, then again
  }

  void theRampSpansTheMetricsRange() {
    const double nan = std::nan("");
    const QVector<ColourableRun> runs{{.slot = 0, .metric = 3.05},
                                      {.slot = 1, .metric = 2.31},
                                      {.slot = 2, .metric = nan},
                                      {.slot = 3, .metric = 2.68}};
    const ColourBy by{.kind = ColourBy::Kind::Metric, .key = "val_loss", .statistic = ColourBy::Statistic::Min};
    const RunColours colours = assignRunColours(runs, by);
    QCOMPARE(colours.low, 2.31);
    QCOMPARE(colours.high, 3.05);
    QCOMPARE(colours.colours[1], rampColour(0));
    QCOMPARE(colours.colours[0], rampColour(1));
    QCOMPARE(colours.colours[2], missingValueColour());
    QCOMPARE(colours.colours[3], rampColour((2.68 - 2.31) / (3.05 - 2.31)));
    QCOMPARE(colours.notes[1], QString("val_loss min 2.31"));
    QCOMPARE(colours.notes[2], QString("no val_loss"));
    QCOMPARE(colours.values, QVector<QString>({"3.05", "2.31", "none", "2.68"}));
    // viridis: dark violet to yellow, and halfway its teal.
    QCOMPARE(rampColour(0), QColor(0x44, 0x01, 0x54));
    QCOMPARE(rampColour(1), QColor(0xfd, 0xe7, 0x25));
    QCOMPARE(rampColour(0.5), QColor(0x21, 0x91, 0x8c));
    QCOMPARE(rampColour(0.25), QColor(0x3b, 0x52, 0x8a));  // between 0.2 and 0.3, rounded
  }

  void oneValueOrNoneAtAll() {
    const ColourBy by{.kind = ColourBy::Kind::Metric, .key = "loss", .statistic = {}};
    const RunColours same = assignRunColours({{.slot = 0, .metric = 2.0}, {.slot = 1, .metric = 2.0}}, by);
    QCOMPARE(same.colours, QVector<QColor>({rampColour(0.5), rampColour(0.5)}));
    const RunColours none = assignRunColours({{.slot = 0}}, by);
    QVERIFY(none == assignRunColours({{.slot = 0}}, by));  // NaN ends: the same colouring, no change to announce
    QVERIFY(std::isnan(none.low) && std::isnan(none.high));
    QCOMPARE(none.colours, QVector<QColor>({missingValueColour()}));
  }

  void coloursPickedByHandWin() {
    const QVector<ColourableRun> runs{{.slot = 0, .byHand = QColor(Qt::magenta)}, {.slot = 1}};
    const RunColours colours = assignRunColours(runs, {.kind = ColourBy::Kind::ByHand, .key = {}, .statistic = {}});
    QCOMPARE(colours.colours, QVector<QColor>({QColor(Qt::magenta), comparisonColor(1)}));
    QCOMPARE(colours.notes[0], QString("picked by hand"));
    QVERIFY(colours.notes[1].isEmpty());
  }

  void namedSetsKeepThePickedColours() {
    QTemporaryDir root;
    const QString inside = root.path() + "/run-a", outside = "/elsewhere/run-b";
    {
      ComparisonSets sets(root.path());
      const ComparisonSet set{.name = "picked", .runDirs = {inside, outside}, .colours = {{inside, QColor("#123456")}}};
      QVERIFY(sets.save(set).isEmpty());
    }
    QFile file(root.path() + "/comparisons.json");
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray text = file.readAll();
    QVERIFY2(text.contains("\"run-a\": \"#123456\""), text.constData());  // relative to the root, like the runs
    ComparisonSets reopened(root.path());
    QVERIFY(reopened.load().isEmpty());
    QCOMPARE(reopened.find("picked")->colours, (QHash<QString, QColor>{{inside, QColor("#123456")}}));
  }
};

QTEST_GUILESS_MAIN(RunColoursTest)
#include "run_colours_test.moc"
