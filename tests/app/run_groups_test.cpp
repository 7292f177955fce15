// Grouping runs and a group's statistics, against figures worked out by hand: groups by config
// keys, by every key but some, by source and by a name pattern; the mean, median, min–max, ±std
// and 95% interval of members logged at different x, with their coverage.
#include <QtTest>
#include <cmath>

#include "runs/run_groups.h"

using namespace traindeck;

namespace {

FlatConfig configOf(std::vector<std::pair<std::string, std::string>> entries) {
  FlatConfig config;
  config.entries = std::move(entries);
  return config;
}

QVector<GroupableRun> sweep() {
  return {
      {"lr3-seed1", "", configOf({{"lr", "1e-3"}, {"seed", "1"}, {"layers", "4"}})},
      {"lr3-seed2", "", configOf({{"lr", "1e-3"}, {"seed", "2"}, {"layers", "4"}})},
      {"lr4-seed1", "", configOf({{"lr", "1e-4"}, {"seed", "1"}, {"layers", "4"}})},
      {"tb/run", "TensorBoard", configOf({})},
  };
}

// A: 1, 3, 5 at 0, 10, 20; B: 2, 4, 6 at 0, 5, 10; C: 0, 0, 3 at 10, 20, 30; D: nothing finite.
QVector<MetricSeries> members() {
  const double nan = std::nan("");
  return {{{0, 10, 20}, {1, 3, 5}}, {{0, 5, 10}, {2, 4, 6}}, {{10, 20, 30}, {0, 0, 3}}, {{0, 5}, {nan, nan}}};
}

void compareValues(const QVector<double>& actual, const QVector<double>& expected) {
  QCOMPARE(actual.size(), expected.size());
  for (qsizetype i = 0; i < actual.size(); ++i)
    QVERIFY2(std::abs(actual[i] - expected[i]) < 1e-4,
             qPrintable(QString("at %1: %2, expected %3").arg(i).arg(actual[i]).arg(expected[i])));
}

QStringList namesOf(const QVector<RunGroup>& groups) {
  QStringList names;
  for (const RunGroup& g : groups) names << g.name;
  return names;
}

}  // namespace

class RunGroupsTest : public QObject {
  Q_OBJECT

 private slots:
  void groupsByConfigKeys() {
    const QVector<RunGroup> groups = groupRuns(sweep(), {.kind = GroupBy::Kind::ConfigKeys, .keys = {"lr"}});
    QCOMPARE(namesOf(groups), QStringList({"lr=1e-3", "lr=1e-4", "lr=(none)"}));
    QCOMPARE(groups[0].members, QVector<int>({0, 1}));
    QCOMPARE(groups[1].members, QVector<int>({2}));
    QCOMPARE(groups[2].members, QVector<int>({3}));
  }

  void groupsByEveryKeyButSeed() {
    const QVector<RunGroup> groups = groupRuns(sweep(), {.kind = GroupBy::Kind::ConfigKeysExcept, .keys = {"seed"}});
    QCOMPARE(namesOf(groups), QStringList({"lr=1e-3, layers=4", "lr=1e-4, layers=4", "lr=(none), layers=(none)"}));
    QCOMPARE(groups[0].members, QVector<int>({0, 1}));
    // Keys with one value over every run name no group.
    QVector<GroupableRun> same = sweep().mid(0, 2);
    QCOMPARE(namesOf(groupRuns(same, {.kind = GroupBy::Kind::ConfigKeysExcept, .keys = {"seed"}})),
             QStringList({"all runs"}));
  }

  void groupsBySourceAndByNamePattern() {
    const QVector<RunGroup> bySource = groupRuns(sweep(), {.kind = GroupBy::Kind::Source});
    QCOMPARE(namesOf(bySource), QStringList({"TrainDeck", "TensorBoard"}));
    QCOMPARE(bySource[0].members, QVector<int>({0, 1, 2}));
    const QVector<RunGroup> byName =
        groupRuns(sweep(), {.kind = GroupBy::Kind::NamePattern, .pattern = R"(^(lr\d)-seed\d+$)"});
    QCOMPARE(namesOf(byName), QStringList({"lr3", "lr4", "tb/run"}));  // no match: a group alone
    QCOMPARE(byName[0].members, QVector<int>({0, 1}));
    QString error;
    const QVector<RunGroup> broken = groupRuns(sweep(), {.kind = GroupBy::Kind::NamePattern, .pattern = "("}, &error);
    QCOMPARE(broken.size(), 4);
    QVERIFY2(error.contains("not a regular expression"), qPrintable(error));
    QCOMPARE(groupRuns(sweep(), {}).size(), 4);
  }

  void meanAndMinMaxOnTheMembersGrid() {
    const GroupStats s = groupStatistics(members(), GroupCenter::Mean, GroupBand::MinMax);
    compareValues(s.x, {0, 5, 10, 20, 30});
    QCOMPARE(s.count, QVector<int>({2, 2, 3, 2, 1}));
    // At 5, A is halfway from 1 to 3; at 20, C is still 0.
    compareValues(s.center, {1.5, 3, 3, 2.5, 3});
    compareValues(s.low, {1, 2, 0, 0, 3});
    compareValues(s.high, {2, 4, 6, 5, 3});
  }

  void medianStdAndInterval() {
    const GroupStats median = groupStatistics(members(), GroupCenter::Median, GroupBand::StdDev);
    compareValues(median.center, {1.5, 3, 3, 2.5, 3});
    // Sample standard deviations: at 0 √0.5, at 5 √2, at 10 3, at 20 √12.5, at 30 0.
    compareValues(median.low, {1.5 - std::sqrt(0.5), 3 - std::sqrt(2.0), 0, 2.5 - std::sqrt(12.5), 3});
    compareValues(median.high, {1.5 + std::sqrt(0.5), 3 + std::sqrt(2.0), 6, 2.5 + std::sqrt(12.5), 3});
    const QVector<MetricSeries> skewed = {{{0}, {1}}, {{0}, {2}}, {{0}, {9}}};
    compareValues(groupStatistics(skewed, GroupCenter::Median, GroupBand::MinMax).center, {2});
    compareValues(groupStatistics(skewed, GroupCenter::Mean, GroupBand::MinMax).center, {4});
    const GroupStats ci = groupStatistics(members(), GroupCenter::Mean, GroupBand::Interval95);
    QVERIFY(std::abs(ci.low[2] - (3 - 1.96 * 3 / std::sqrt(3.0))) < 1e-9);
    QVERIFY(std::abs(ci.high[2] - (3 + 1.96 * 3 / std::sqrt(3.0))) < 1e-9);
  }

  void anEvenGridPastMaxPointsAndARange() {
    const GroupStats even = groupStatistics(members(), GroupCenter::Mean, GroupBand::MinMax, 1, 0, 3);
    compareValues(even.x, {0, 15, 30});
    QCOMPARE(even.count, QVector<int>({2, 2, 1}));
    compareValues(even.center, {1.5, 2, 3});  // at 15: A 4, C 0; B ended at 10
    const GroupStats inside = groupStatistics(members(), GroupCenter::Mean, GroupBand::MinMax, 5, 10);
    compareValues(inside.x, {5, 10});
    // A member given out of order counts the same.
    const QVector<MetricSeries> shuffled = {{{20, 0, 10}, {5, 1, 3}}};
    compareValues(groupStatistics(shuffled, GroupCenter::Mean, GroupBand::MinMax).center, {1, 3, 5});
    QVERIFY(groupStatistics({}, GroupCenter::Mean, GroupBand::MinMax).x.isEmpty());
  }
};

QTEST_GUILESS_MAIN(RunGroupsTest)
#include "run_groups_test.moc"
