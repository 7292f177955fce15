// app/sweepview over a sweep folder written as the runner writes one (sweep_folder_fixture.h):
// the trials read with their run's metric, the axes, the best trial by goal, the pruning points
// from rung results, a run folder gone, sweep.json or sweep.yaml unreadable, the table of
// trials, the brushes' filter and importance, a trial's job, and following the folder.
#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QtTest>

#include "config/config_io.h"
#include "sweep_filter.h"
#include "sweep_folder_fixture.h"
#include "sweep_folder_reader.h"
#include "sweep_trial_model.h"
#include "sweep_watcher.h"
#include "trial_job.h"

namespace traindeck {

using namespace test;

class SweepPageDataTest : public QObject {
  Q_OBJECT
  std::unique_ptr<QTemporaryDir> m_root;
  QString m_sweep;

  SweepView read() { return SweepFolderReader().read(m_sweep); }

 private slots:
  void init() {
    m_root = std::make_unique<QTemporaryDir>();
    m_sweep = writeSweepFolder(m_root->path());
  }

  void readsEveryTrialWithItsRunsMetric() {
    const SweepView view = read();
    QVERIFY2(view.error.isEmpty(), qPrintable(view.error));
    QVERIFY2(view.specProblem.isEmpty(), qPrintable(view.specProblem));
    QCOMPARE(view.trials.size(), std::size_t{6});
    QCOMPARE(view.metricName, QString("val_loss"));
    QCOMPARE(view.trials[0].runDir, QDir::cleanPath(m_root->path() + "/runs/trial-0"));  // absolute
    QCOMPARE(view.trials[3].runDir, QDir::cleanPath(m_root->path() + "/runs/trial-3"));  // relative
    QVERIFY(std::abs(view.trials[0].metric - sweepTrialValLoss(1e-3, 200)) < 1e-5);
    QVERIFY(std::abs(view.trials[3].metric - sweepTrialValLoss(3e-3, 80)) < 1e-5);
    QCOMPARE(view.trials[3].tokens, std::int64_t{80 * 1024});
    QCOMPARE(view.trials[0].x.size(), qsizetype{10});  // an eval every 20 steps, over tokens
    QCOMPARE(view.trials[0].x.back(), 200.0 * 1024);
    QVERIFY(view.trials[5].runDir.isEmpty());  // queued
    QVERIFY(std::isnan(view.trials[5].metric));
    // One axis per parameter, in the sweep's order, then the metric's.
    QCOMPARE(view.axes.size(), std::size_t{4});
    QCOMPARE(view.axes[0].title, QString("lr"));
    QVERIFY(view.axes[0].log);
    QVERIFY(!view.axes[1].log && !view.axes[1].categorical);
    QCOMPARE(view.axes[2].categories, QStringList({"cosine", "linear"}));
    QVERIFY(view.axes[3].isMetric());
    QCOMPARE(view.axes[0].fraction(1e-4), 0.0);
    QCOMPARE(view.axes[0].fraction(3e-2), 1.0);
    QVERIFY(std::abs(view.axes[0].valueAt(view.axes[0].fraction(1e-3)) - 1e-3) < 1e-12);
  }

  void aTrialWhoseRunFolderIsGoneStillLists() {
    const SweepView view = read();
    QVERIFY(view.trials[4].runMissing);
    QCOMPARE(view.trials[4].record.state, TrialState::Failed);
    SweepTrialModel model;
    QAbstractItemModelTester tester(&model);
    model.setView(std::make_shared<const SweepView>(view));
    QCOMPARE(model.rowCount(), 6);
    QVERIFY(model.index(4, model.runColumn()).data().toString().endsWith("(missing)"));
    QCOMPARE(model.index(4, SweepTrialModel::State).data().toString(), QString("failed"));
  }

  void theRunnersFiguresServeWhereTheRunsMetricsAreNotHere() {
    // Trial 4's run folder is gone; the runner wrote its latest metric and tokens in sweep.json.
    QFile file(m_sweep + "/sweep.json");
    QVERIFY(file.open(QIODevice::ReadOnly));
    QByteArray json = file.readAll();
    file.close();
    const QByteArray id = QByteArray::fromStdString(read().trials[4].record.params.id);
    // The runner writes every trial's "tokens" (0 until it has trained): that one becomes 12345.
    const qsizetype tokensAt = json.indexOf("\"tokens\":0", json.indexOf("\"id\":\"" + id + "\""));
    QVERIFY(tokensAt > 0);
    json.replace(tokensAt, qsizetype(sizeof("\"tokens\":0") - 1), "\"tokens\":12345");
    json.replace("\"id\":\"" + id + "\"", "\"id\":\"" + id + "\",\"metric\":4.25");
    writeText(m_sweep + "/sweep.json", json);
    const SweepView view = read();
    QVERIFY2(view.error.isEmpty(), qPrintable(view.error));
    QCOMPARE(view.trials[4].metric, 4.25);
    QCOMPARE(view.trials[4].tokens, std::int64_t{12345});
    QVERIFY(std::abs(view.trials[0].metric - sweepTrialValLoss(1e-3, 200)) < 1e-5);  // its run's own
  }

  void bestTrialFollowsTheGoal() {
    QCOMPARE(read().best, 0);  // min: lr = 1e-3
    writeText(m_root->path() + "/sweep.yaml", sweepYaml("max").toUtf8());
    const SweepView view = read();
    QCOMPARE(view.goal, MetricGoal::Max);
    QCOMPARE(view.best, 2);  // lr = 2e-2 is the farthest from 1e-3
    std::vector<SweepTrialView> trials(3);
    trials[0].metric = 2;
    trials[2].metric = 1;
    QCOMPARE(bestTrial(trials, MetricGoal::Min), 2);
    QCOMPARE(bestTrial(trials, MetricGoal::Max), 0);
    QCOMPARE(bestTrial(std::vector<SweepTrialView>(2), MetricGoal::Min), -1);
  }

  void pruningPointsComeFromRungResults() {
    const SweepView view = read();
    const auto pruned = prunedAt(view.trials[1].record);
    QVERIFY(pruned.has_value());
    QCOMPARE(pruned->rung, 0);
    QCOMPARE(pruned->at, kRungTokens[0]);
    QVERIFY(std::abs(pruned->metric - sweepTrialValLoss(1e-4, 20)) < 1e-5);
    QVERIFY(!prunedAt(view.trials[0].record));  // finished past both rungs
    QVERIFY(!prunedAt(view.trials[3].record));  // running
    QCOMPARE(trialStateText(view.trials[1].record, view.unit), QString("pruned at rung 0 (20.5k tokens)"));
    QCOMPARE(trialStateText(view.trials[3].record, view.unit), QString("running, past rung 0"));
  }

  void unreadableSweepJsonSaysSoAndShowsNoTrials() {
    writeText(m_sweep + "/sweep.json", "{\"schema\":1,\"trials\":[{\"id\":");
    const SweepView view = read();
    QVERIFY(view.error.contains("sweep.json"));
    QVERIFY(view.error.contains("not valid JSON"));
    QVERIFY(view.trials.empty());
    QFile::remove(m_sweep + "/sweep.json");
    QVERIFY(read().missing);
    QVERIFY(read().error.contains("no sweep.json"));
  }

  void unreadableSweepYamlStillShowsTheTrials() {
    QFile::remove(m_root->path() + "/sweep.yaml");
    const SweepView view = read();
    QVERIFY(view.error.isEmpty());
    QVERIFY(view.specProblem.contains("sweep.yaml"));
    QVERIFY(!view.spec);
    QCOMPARE(view.trials.size(), std::size_t{6});
    QCOMPARE(view.axes.size(), std::size_t{4});  // from the trials' settings, linear
    QVERIFY(!view.axes[0].log);
    QCOMPARE(view.best, 0);
    QVERIFY(!trialJobText(view, 0).error.isEmpty());
  }

  void tableSortsByValueAndTheFilterHidesRows() {
    SweepTrialModel model;
    SweepTrialFilterModel proxy;
    proxy.setSourceModel(&model);
    QAbstractItemModelTester tester(&proxy);
    const auto view = std::make_shared<const SweepView>(read());
    model.setView(view);
    QCOMPARE(model.headerData(SweepTrialModel::Metric, Qt::Horizontal, Qt::DisplayRole).toString(),
             QString("val_loss"));
    QVERIFY(model.index(0, SweepTrialModel::Name).data().toString().startsWith(QString::fromUtf8("★")));
    proxy.sort(SweepTrialModel::Metric, Qt::AscendingOrder);
    QCOMPARE(proxy.index(0, 0).data(SweepTrialModel::kTrialRole).toInt(), 0);  // the best first
    QCOMPARE(proxy.index(1, 0).data(SweepTrialModel::kTrialRole).toInt(), 3);
    proxy.sort(SweepTrialModel::FirstParameter, Qt::DescendingOrder);          // lr
    QCOMPARE(proxy.index(0, 0).data(SweepTrialModel::kTrialRole).toInt(), 2);  // lr 2e-2
    SweepFilter filter;
    filter.brushes[""] = {0, 3.0};  // val_loss up to 3
    proxy.setPassing(filter.passing(*view));
    QCOMPARE(proxy.rowCount(), 1);
    filter.brushes.clear();
    filter.brushes["optimizer.lr"] = {4e-4, 4e-3};
    proxy.setPassing(filter.passing(*view));
    QCOMPARE(proxy.rowCount(), 3);                   // 1e-3, 3e-3, 5e-4
    filter.brushes["schedule.decay"] = {-0.5, 0.5};  // cosine
    QCOMPARE(filter.countPassing(*view), 2);         // 1e-3 and 3e-3
  }

  void importanceOverTheTrialsShown() {
    // Twelve trials, val_loss a function of lr only: lr explains it, decay and n_embd do not.
    SweepView view = read();
    std::vector<SweepTrialView> more;
    for (int i = 0; i < 24; ++i) {
      SweepTrialView t;
      const double lr = std::pow(10.0, -4 + 2.4 * ((i * 7) % 24) / 23.0);
      t.record.params = makeTrial({{"optimizer.lr", lr},
                                   {"model.n_embd", std::int64_t{i % 2 == 0 ? 32 : 64}},
                                   {"schedule.decay", std::string(i % 3 == 0 ? "cosine" : "linear")}},
                                  "", std::nullopt);
      t.metric = sweepTrialValLoss(lr, 200);
      more.push_back(t);
    }
    view.trials = more;
    view.axes = sweepAxes(view.spec, view.trials, view.metricName);
    const ImportanceBasis basis = importanceBasis(view, SweepFilter().passing(view));
    QCOMPARE(basis.rung, -1);  // no rung results: the latest metric
    QCOMPARE(basis.trials, 24);
    const std::vector<double> importance = parameterImportance(view, basis);
    QCOMPARE(importance.size(), std::size_t{3});
    QVERIFY2(importance[0] > 0.6, qPrintable(QString::number(importance[0])));
    QVERIFY2(importance[1] < 0.15, qPrintable(QString::number(importance[1])));
    QVERIFY2(importance[2] < 0.15, qPrintable(QString::number(importance[2])));
  }

  void importanceComparesTrialsAtOneRung() {
    // Rung 0 has 4 results (trials 0 to 3), rung 1 two: rung 0, where the pruned ones stopped.
    const SweepView view = read();
    const ImportanceBasis basis = importanceBasis(view, SweepFilter().passing(view));
    QCOMPARE(basis.rung, 0);
    QCOMPARE(basis.at, kRungTokens[0]);
    QCOMPARE(basis.trials, 4);
    QVERIFY(std::abs(basis.metric[0] - sweepTrialValLoss(1e-3, 20)) < 1e-9);  // not its latest, at 200
    QVERIFY(std::isnan(basis.metric[4]));
    // Brushed to two of them: too few at any rung, so the latest metrics of those that pass.
    SweepFilter filter;
    filter.brushes["optimizer.lr"] = {5e-4, 2e-3};
    const ImportanceBasis brushed = importanceBasis(view, filter.passing(view));
    QCOMPARE(brushed.rung, -1);
    QCOMPARE(brushed.trials, 1);  // trial 0 (trial 4 has no metric)
  }

  void aTrialsJobIsTheBaseJobWithItsSettings() {
    const SweepView view = read();
    const TrialJobText job = trialJobText(view, 3);
    QVERIFY2(job.error.isEmpty(), qPrintable(job.error));
    QCOMPARE(job.baseDir, QDir(m_root->path()).absolutePath());
    const LoadedConfig loaded = loadConfigText(job.yaml.toStdString(), "<trial>", job.baseDir.toStdString());
    QVERIFY(!hasErrors(loaded.problems));
    QCOMPARE(loaded.config.optimizer.lr, 3e-3);
    QCOMPARE(loaded.config.model.n_embd, std::int64_t{64});
    QCOMPARE(loaded.config.model.n_layer, std::int64_t{2});  // the base job's
  }

  void followsTheFolderAsTheRunnerWritesIt() {
    SweepWatcher watcher;
    QSignalSpy spy(&watcher, &SweepWatcher::sweepAvailable);
    watcher.open(m_sweep);
    QCOMPARE(spy.size(), 1);
    QCOMPARE(watcher.view()->trials[5].record.state, TrialState::Queued);
    // The runner starts trial 5: its state in sweep.json, then its first metrics.
    SweepStateRead state = readSweepState((m_sweep + "/sweep.json").toStdString());
    state.state.trials[5].state = TrialState::Running;
    state.state.trials[5].runFolder = (m_root->path() + "/runs/trial-5").toStdString();
    writeRun(m_root->path() + "/runs/trial-5", "", 40, 1, [](int s) { return sweepTrialLoss(2e-4, s); });
    QVERIFY(writeSweepState(state.state, (m_sweep + "/sweep.json").toStdString()).empty());
    QTRY_COMPARE_WITH_TIMEOUT(watcher.view()->trials[5].record.state, TrialState::Running, 5000);
    QVERIFY(std::abs(watcher.view()->trials[5].metric - sweepTrialValLoss(2e-4, 40)) < 1e-5);
    const qsizetype reads = spy.size();
    watcher.poll();  // nothing changed since: no new read
    watcher.poll();
    QCOMPARE(spy.size(), reads);
  }
};

}  // namespace traindeck

QTEST_MAIN(traindeck::SweepPageDataTest)
#include "sweep_page_data_test.moc"
