// The Compare page's figures: config diffs over nested keys, lists and keys only some runs have,
// and each run's summary computed by hand from small recorded metrics.
#include <QtTest>
#include <cmath>

#include "runlog/metrics_jsonl_parser.h"
#include "runs/human_duration.h"
#include "runs/metric_series.h"
#include "runs/run_comparison.h"

using namespace traindeck;

class RunComparisonTest : public QObject {
  Q_OBJECT
 private slots:
  void flattensNestedKeysAndLists() {
    const FlatConfig flat = flattenYaml("name: a\nmodel:\n  n_layer: 2\noptimizer:\n  betas: [0.9, 0.95]\n");
    QVERIFY(flat.error.empty());
    QCOMPARE(flat.entries.size(), std::size_t(3));
    QCOMPARE(flat.entries[1].first, std::string("model.n_layer"));
    QCOMPARE(flat.entries[2].second, std::string("[0.9, 0.95]"));
    QVERIFY(!flattenYaml("a: [1,\n").error.empty());
  }

  void diffsKeysValuesAndMissingOnes() {
    const QVector<FlatConfig> configs = {
        flattenYaml("name: a\nmodel: {n_layer: 2, n_embd: 64}\noptimizer: {betas: [0.9, 0.95]}\n"),
        flattenYaml("name: b\nmodel: {n_layer: 2, n_embd: 128}\noptimizer: {betas: [0.9, 0.95]}\n"),
        flattenYaml("name: c\nmodel: {n_layer: 2, n_embd: 64}\noptimizer: {betas: [0.9, 0.99]}\nseed: 5\n")};
    const QVector<ConfigDiffRow> differing = diffConfigs(configs, true);
    QStringList keys;
    for (const ConfigDiffRow& row : differing) keys << row.key;
    QCOMPARE(keys, QStringList({"name", "model.n_embd", "optimizer.betas", "seed"}));
    QCOMPARE(differing[1].values, QVector<QString>({"64", "128", "64"}));
    QCOMPARE(differing[3].present, QVector<bool>({false, false, true}));  // only run c sets the seed
    const QVector<ConfigDiffRow> all = diffConfigs(configs, false);
    QCOMPARE(all.size(), 5);
    QVERIFY(!all[1].differs);  // model.n_layer: the same everywhere
  }

  void summarizesARunAsByHand() {
    // Five train records and three evals: final loss 2.0; best val 2.4 at step 4; median of
    // 100, 300, 200, 500, 400 tokens/s is 300; wall time from 10.0 to 14.5 s.
    const char* text =
        "{\"kind\":\"header\",\"time\":9,\"schema\":1,\"parameters\":1000,\"world_size\":2,\"total_steps\":5}\n"
        "{\"kind\":\"train\",\"time\":10,\"step\":1,\"tokens\":8,\"loss\":4.0,\"tokens_per_s\":100}\n"
        "{\"kind\":\"train\",\"time\":11,\"step\":2,\"tokens\":16,\"loss\":3.0,\"tokens_per_s\":300}\n"
        "{\"kind\":\"eval\",\"time\":11.5,\"step\":2,\"tokens\":16,\"val_loss\":3.1}\n"
        "{\"kind\":\"train\",\"time\":12,\"step\":3,\"tokens\":24,\"loss\":2.5,\"tokens_per_s\":200}\n"
        "{\"kind\":\"train\",\"time\":13,\"step\":4,\"tokens\":32,\"loss\":2.2,\"tokens_per_s\":500}\n"
        "{\"kind\":\"eval\",\"time\":13.5,\"step\":4,\"tokens\":32,\"val_loss\":2.4}\n"
        "{\"kind\":\"train\",\"time\":14,\"step\":5,\"tokens\":40,\"loss\":2.0,\"tokens_per_s\":400}\n"
        "{\"kind\":\"eval\",\"time\":14.5,\"step\":5,\"tokens\":40,\"val_loss\":2.6}\n";
    MetricsStore store;
    MetricsJsonlParser parser;
    store.append(parser.feed(text));
    const RunFigures f = summarizeRun(store, "finished", flattenYaml("strategy: {kind: ddp, precision: bf16}\n"));
    QCOMPARE(f.finalLoss, 2.0);
    QVERIFY(std::abs(f.bestValLoss - 2.4) < 1e-6);
    QCOMPARE(f.bestValStep, qint64(4));
    QCOMPARE(f.medianTokensPerSecond, 300.0);
    QCOMPARE(f.wallSeconds, 4.5);
    QCOMPARE(f.parameters, qint64(1000));
    QCOMPARE(f.worldSize, qint64(2));
    QCOMPARE(f.strategy, QString("ddp"));
    QCOMPARE(f.precision, QString("bf16"));
  }

  void aStoppedPeriodIsNotWallTimeAndBreaksTimeLines() {
    // Steps 1-3 a second apart, stopped for an hour, resumed: steps 4-6 a second apart again. The
    // wall time is the 4 s it trained; on a time axis a gap (a NaN point) stands where it was
    // stopped, on the step axis nothing does.
    QByteArray text =
        "{\"kind\":\"header\",\"time\":9,\"schema\":1,\"total_steps\":6}\n"
        "{\"kind\":\"header\",\"time\":3600,\"schema\":1,\"total_steps\":6,\"start_step\":3}\n";
    for (const auto& [time, step] : {std::pair{10, 1}, {11, 2}, {12, 3}, {3612, 4}, {3613, 5}, {3614, 6}})
      text += QString("{\"kind\":\"train\",\"time\":%1,\"step\":%2,\"tokens\":8,\"loss\":3.0}\n")
                  .arg(time)
                  .arg(step)
                  .toUtf8();
    MetricsStore store;
    MetricsJsonlParser parser;
    store.append(parser.feed(text.toStdString()));
    QCOMPARE(summarizeRun(store, "finished", {}).wallSeconds, 4.0);
    const MetricSeries byTime = metricSeries(store, CompareMetric::TrainLoss, CompareX::Elapsed);
    QCOMPARE(byTime.y.size(), 7);
    QVERIFY(std::isnan(byTime.y[3]));
    QVERIFY(byTime.x[3] > byTime.x[2] && byTime.x[3] < byTime.x[4]);
    QCOMPARE(metricSeries(store, CompareMetric::TrainLoss, CompareX::WallClock).y.size(), 7);
    QCOMPARE(metricSeries(store, CompareMetric::TrainLoss, CompareX::Step).y.size(), 6);
    // Records of a slow model, a minute apart, are not pauses.
    MetricsStore slow;
    MetricsJsonlParser slowParser;
    QByteArray minutes;
    for (int i = 1; i <= 5; ++i)
      minutes += QString("{\"kind\":\"train\",\"time\":%1,\"step\":%2,\"loss\":3.0}\n").arg(60 * i).arg(i).toUtf8();
    slow.append(slowParser.feed(minutes.toStdString()));
    QCOMPARE(summarizeRun(slow, "running", {}).wallSeconds, 240.0);
    QCOMPARE(metricSeries(slow, CompareMetric::TrainLoss, CompareX::Elapsed).y.size(), 5);
  }

  void durationsReadAsPeopleSayThem() {
    QCOMPARE(humanDuration(45), QString("45s"));
    QCOMPARE(humanDuration(190), QString("3m10s"));
    QCOMPARE(humanDuration(3725), QString("1h02m"));
    QCOMPARE(humanDuration(30 * 3600), QString("30h00m"));
    QCOMPARE(humanDuration(3.5 * 86400), QString("3.5 days"));
    QCOMPARE(humanDuration(40 * 86400), QString("40 days"));
    QCOMPARE(humanDuration((37943 * 60 + 55) * 60.0), QString("4.3 years"));  // not "37943h55m"
    QCOMPARE(humanDuration(-3), QString("0s"));
  }
};

QTEST_MAIN(RunComparisonTest)
#include "run_comparison_test.moc"
