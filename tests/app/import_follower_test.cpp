// Another tool's run followed like ours: ImportFollower reads it whole once, again only when its
// files change, and says why a run cannot be read; the RunRegistry gives such a run a session
// whose follower runs in the registry's thread, whose store holds the mapped columns and the
// other scalars by name, and which keeps what it had when a later read fails.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

#include "import_fixtures.h"
#include "runs/import_follower.h"
#include "runs/imported_runs.h"
#include "runs/metric_series.h"
#include "runs/run_registry.h"
#include "runs/run_session.h"

using namespace traindeck;

namespace {

// An HF Trainer output folder: a loss per step, an eval_accuracy (a scalar of its own) every 2.
QByteArray trainerState(int steps) {
  QByteArray history;
  for (int s = 1; s <= steps; ++s) {
    if (!history.isEmpty()) history += ',';
    history += QString(R"({"step":%1,"loss":%2,"learning_rate":0.001})").arg(s).arg(3.0 / s).toUtf8();
    if (s % 2 == 0) history += QString(R"(,{"step":%1,"eval_accuracy":%2})").arg(s).arg(0.1 * s).toUtf8();
  }
  return R"({"global_step":)" + QByteArray::number(steps) + R"(,"log_history":[)" + history + "]}";
}

}  // namespace

class ImportFollowerTest : public QObject {
  Q_OBJECT

 private slots:
  void readsOnceAndAgainOnlyWhenTheFilesChange() {
    QTemporaryDir root;
    const QString log = root.path() + "/run/main.log";
    writeText(log, llmcLines(1, 5));
    const std::optional<RunSource> source = importedRunSource(log);
    QVERIFY(source.has_value());
    ImportFollower follower(*source);
    QSignalSpy reads(&follower, &ImportFollower::runRead);
    follower.poll();
    follower.poll();  // nothing changed: not read again
    QCOMPARE(reads.size(), 1);
    const auto first = reads.at(0).at(0).value<ImportedRead>();
    QVERIFY(first.error.isEmpty());
    QVERIFY(first.run != nullptr);
    QCOMPARE(first.run->metrics.train.size(), std::size_t(5));
    writeText(log, llmcLines(6, 8), QIODevice::Append);
    follower.poll();
    QCOMPARE(reads.size(), 2);
    QCOMPARE(reads.at(1).at(0).value<ImportedRead>().run->metrics.train.size(), std::size_t(8));
  }

  void aRunThatCannotBeReadSaysWhyOnceUntilItChanges() {
    QTemporaryDir root;
    const QString folder = root.path() + "/hf";
    writeText(folder + "/trainer_state.json", trainerState(4));
    const std::optional<RunSource> source = importedRunSource(folder);
    QVERIFY(source.has_value());
    writeText(folder + "/trainer_state.json", "{\"log_history\": [");  // cut short by a crash
    ImportFollower follower(*source);
    QSignalSpy reads(&follower, &ImportFollower::runRead);
    follower.poll();
    follower.poll();
    QCOMPARE(reads.size(), 1);
    const auto failed = reads.at(0).at(0).value<ImportedRead>();
    QVERIFY(failed.run == nullptr);
    QVERIFY2(failed.error.contains("trainer_state.json"), qPrintable(failed.error));
  }

  void aSessionFollowsAnotherToolsRunInTheFollowerThread() {
    QTemporaryDir root;
    const QString folder = root.path() + "/hf";
    writeText(folder + "/trainer_state.json", trainerState(4));
    RunRegistry registry;
    const std::shared_ptr<const RunSession> session = registry.session(folder);
    QVERIFY(session->isImported());
    QCOMPARE(session->sourceBadge(), QString("HF Trainer"));
    QVERIFY(!session->followsLogs());  // another tool's run has no rank logs of ours
    QSignalSpy changed(session.get(), &RunSession::metricsChanged);
    QTRY_COMPARE(session->metrics().train().size(), std::size_t(4));
    QCOMPARE(session->summary().step, qint64(4));
    // The mapped columns, and the other scalar by its own name.
    const QStringList names = metricNamesOf(session->metrics(), session->metrics().scalars());
    QVERIFY2(names.contains("loss") && names.contains("lr") && names.contains("eval_accuracy"),
             qPrintable(names.join(',')));
    const MetricSeries accuracy =
        metricSeriesByName(session->metrics(), session->metrics().scalars(), "eval_accuracy", CompareX::Step);
    QCOMPARE(accuracy.x, QVector<double>({2, 4}));
    QVERIFY(std::abs(accuracy.y[1] - 0.4) < 1e-9);
    // It grows: read again. A read that fails keeps what the last one gave, and says why.
    writeText(folder + "/trainer_state.json", trainerState(6));
    QTRY_COMPARE_WITH_TIMEOUT(session->metrics().train().size(), std::size_t(6), 5000);
    writeText(folder + "/trainer_state.json", "not json");
    QTRY_VERIFY_WITH_TIMEOUT(!session->importError().isEmpty(), 5000);
    QCOMPARE(session->metrics().train().size(), std::size_t(6));
    QVERIFY(!changed.isEmpty());
    // The registry's TrainDeck runs are not taken for another tool's.
    const QString ours = root.path() + "/20261201-120000-ours";
    writeText(ours + "/run.json", R"({"id":"20261201-120000-ours","status":"finished"})");
    QVERIFY(!registry.session(ours)->isImported());
  }
};

QTEST_GUILESS_MAIN(ImportFollowerTest)
#include "import_follower_test.moc"
