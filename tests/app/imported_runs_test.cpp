// Other tools' runs in the app's run services, on files written here in the tools' own formats
// (llm.c's main.log, Lightning's metrics.csv, MLflow's mlruns/): the run list shows them beside
// TrainDeck's runs with their source's badge (Trackio's and DVCLive's too), has the index's thread read them (again as they
// grow; an unreadable one once per change of its files) and never trashes them; Compare takes
// them by address and offers the union of their metrics by name.
#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <sqlite3.h>

#include "../imports/fixture_writers.h"
#include "import_fixtures.h"
#include "runs/comparison.h"
#include "runs/comparison_sets.h"
#include "runs/imported_runs.h"
#include "runs/metric_series.h"
#include "runs/run_folders.h"
#include "runs/run_index.h"
#include "runs/run_list_model.h"
#include "runs/run_registry.h"

using namespace traindeck;

namespace {

int rowNamed(const RunListModel& model, const QString& id) {
  for (int r = 0; r < model.rowCount(); ++r)
    if (model.runAt(r).id == id) return r;
  return -1;
}

}  // namespace

class ImportedRunsTest : public QObject {
  Q_OBJECT

  QTemporaryDir m_root;
  QString m_native, m_llmc, m_lightning, m_mlflow;

 private slots:
  void initTestCase() {
    QVERIFY(m_root.isValid());
    qputenv("XDG_CONFIG_HOME", QFile::encodeName(m_root.path() + "/config"));
    m_native = m_root.path() + "/20261201-120000-native";
    writeText(m_native + "/run.json", R"({"id":"20261201-120000-native","name":"native","status":"finished",)"
                                      R"("created":"2026-12-01T12:00:00Z"})");
    writeText(m_native + "/config.yaml", "optimizer:\n  lr: 0.001\n");
    writeText(m_native + "/metrics.jsonl",
              R"({"kind":"train","time":1764590400,"step":1,"tokens":64,"loss":3.5,"tokens_per_s":900})"
              "\n"
              R"({"kind":"train","time":1764590401,"step":2,"tokens":128,"loss":3.0,"tokens_per_s":950})"
              "\n");
    m_llmc = m_root.path() + "/gpt2-llmc/main.log";
    writeText(m_llmc, llmcLines(1, 20));
    m_lightning = m_root.path() + "/lightning_logs/version_0";
    writeText(m_lightning + "/metrics.csv",
              "epoch,step,train_loss,val_acc\n0,9,2.5,\n0,19,2.0,\n0,19,,0.61\n1,29,1.5,\n1,29,,0.72\n");
    writeText(m_lightning + "/hparams.yaml", "lr: 0.01\nseed: 3\n");
    m_mlflow = m_root.path() + "/mlruns/0/abc123";
    writeText(m_mlflow + "/meta.yaml", "run_id: abc123\nrun_name: calm-owl-7\nstatus: 3\n");
    writeText(m_mlflow + "/metrics/accuracy", "1718000000000 0.5 1\n1718000001000 0.75 2\n");
    writeText(m_mlflow + "/params/batch_size", "32");
  }

  void theRunListShowsThemWithTheirSourceBadge() {
    QTemporaryDir cache;
    RunListModel model(nullptr, cache.path());
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRunsRoot(m_root.path());
    QCOMPARE(model.rowCount(), 4);
    // The scan reads none of them: until the index's thread has, each is its list name and badge.
    const int unread = rowNamed(model, "mlruns/0/abc123");
    QVERIFY(unread >= 0);
    QCOMPARE(model.runAt(unread).name, QString("mlruns/0/abc123"));
    QCOMPARE(model.runAt(unread).step, qint64(0));
    QCOMPARE(model.runAt(unread).created, QString());
    QCOMPARE(model.data(model.index(unread, RunListModel::SourceColumn)).toString(), QString("MLflow"));
    QVERIFY(model.isImported(m_mlflow));
    QVERIFY(unread > 1);  // without a time: after the TrainDeck run
    // Once read there, the rows are brought up to date, and sorted by the time now known.
    QTRY_COMPARE(model.runAt(rowNamed(model, "gpt2-llmc/main.log")).step, qint64(20));
    QTRY_COMPARE(model.runAt(rowNamed(model, "lightning_logs/version_0")).step, qint64(29));
    QTRY_COMPARE(rowNamed(model, "mlruns/0/abc123"), 1);
    QTRY_VERIFY(model.runIndex()->idle());
    QCOMPARE(model.runIndex()->importsRead(), 3);
    model.rescan();  // nothing changed: nothing read again
    QVERIFY(model.runIndex()->idle());
    QCOMPARE(model.runIndex()->importsRead(), 3);
    const int native = model.rowOfPath(m_native);
    const int llmc = rowNamed(model, "gpt2-llmc/main.log");
    const int lightning = rowNamed(model, "lightning_logs/version_0");
    const int mlflow = rowNamed(model, "mlruns/0/abc123");
    QVERIFY(native >= 0 && llmc >= 0 && lightning >= 0 && mlflow >= 0);
    const auto source = [&](int row) { return model.data(model.index(row, RunListModel::SourceColumn)).toString(); };
    QCOMPARE(source(native), QString());
    QCOMPARE(source(llmc), QString("llm.c"));
    QCOMPARE(source(lightning), QString("CSV"));
    QCOMPARE(source(mlflow), QString("MLflow"));
    QCOMPARE(model.data(model.index(llmc, 0), RunListModel::SourceRole).toString(), QString("llm.c"));
    QCOMPARE(model.headerData(RunListModel::SourceColumn, Qt::Horizontal).toString(), QString("Source"));
    QVERIFY(!model.isImported(m_native));
    QVERIFY(model.isImported(m_llmc));
    QCOMPARE(model.statusOf(model.runAt(llmc)), QString("imported"));
    // What the list shows is what the files say: llm.c's last step and loss, Lightning's steps.
    QCOMPARE(model.runAt(llmc).step, qint64(20));
    QVERIFY(std::abs(model.runAt(llmc).lastLoss - 4.0 / 20) < 1e-6);
    QCOMPARE(model.runAt(lightning).step, qint64(29));
    QCOMPARE(model.runAt(mlflow).name, QString("calm-owl-7"));
    QCOMPARE(model.runAt(mlflow).created, QString("2024-06-10T06:13:20Z"));  // its first record's time
    // Config columns come from what the format carries.
    model.setConfigColumns({"seed"});
    QCOMPARE(model.data(model.index(rowNamed(model, "lightning_logs/version_0"), RunListModel::ColumnCount)).toString(),
             QString("3"));
  }

  void aGrowingRunIsReadAgain() {
    QTemporaryDir root;
    writeText(root.path() + "/run/main.log", llmcLines(1, 5));
    RunListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRunsRoot(root.path());
    QCOMPARE(model.rowCount(), 1);
    QTRY_COMPARE(model.runAt(0).step, qint64(5));
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    writeText(root.path() + "/run/main.log", llmcLines(6, 9), QIODevice::Append);
    model.rescan();
    QCOMPARE(model.runAt(0).step, qint64(5));  // its old row until the index's thread has read it again
    QTRY_COMPARE(model.runAt(0).step, qint64(9));
    QVERIFY(!changed.isEmpty());
    QCOMPARE(model.rowCount(), 1);
    // A run of another tool that arrives is a new row.
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    writeText(root.path() + "/later/main.log", llmcLines(1, 3));
    model.rescan();
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(inserted.size(), 1);
  }

  void anUnreadableRunIsReadAgainOnlyWhenItsFilesChange() {
    QTemporaryDir root, cache;
    const QString state = root.path() + "/hf/trainer_state.json";
    writeText(state, R"({"global_step": 2, "log_history": [{"step": 1,)");  // cut: not JSON
    RunListModel model(nullptr, cache.path());
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy unreadable(model.runIndex(), &RunIndex::importUnreadable);
    model.setRunsRoot(root.path());
    QCOMPARE(model.rowCount(), 1);  // by its name, until its read fails
    QVERIFY(unreadable.wait());
    QVERIFY2(unreadable.front().at(1).toString().contains("trainer_state.json"),
             qPrintable(unreadable.front().at(1).toString()));
    QTRY_COMPARE(model.rowCount(), 0);
    for (int i = 0; i < 3; ++i) model.rescan();
    QVERIFY(model.runIndex()->idle());
    QCOMPARE(model.runIndex()->importsRead(), 1);
    QCOMPARE(model.rowCount(), 0);
    // Written whole, it is read and listed.
    writeText(state, R"({"global_step": 2, "log_history": [{"step": 1, "loss": 2.5}, {"step": 2, "loss": 2.0}]})");
    model.rescan();
    QCOMPARE(model.rowCount(), 1);
    QTRY_COMPARE(model.runAt(0).step, qint64(2));
    QCOMPARE(model.runIndex()->importsRead(), 2);
    QCOMPARE(unreadable.size(), 1);
  }

  void theirFilesAreNeverTrashed() {
    const QStringList notMoved = moveRunsToTrash({m_lightning, m_llmc}, [](const QString&) { return false; });
    QCOMPARE(notMoved.size(), 2);
    QVERIFY2(notMoved.join(' ').contains("another tool's run"), qPrintable(notMoved.join(' ')));
    QVERIFY(QFileInfo::exists(m_lightning + "/metrics.csv"));
    QVERIFY(QFileInfo::exists(m_llmc));
  }

  void compareTakesThemByAddressWithTheirMetricsByName() {
    RunRegistry registry;
    Comparison comparison(registry);
    QCOMPARE(comparison.setRuns({m_native, m_llmc, m_lightning, m_mlflow}), QString());
    QCOMPARE(comparison.size(), 4);
    QCOMPARE(comparison.run(0).source, QString());
    QCOMPARE(comparison.run(1).source, QString("llm.c"));
    QCOMPARE(comparison.run(2).source, QString("CSV"));
    // Read in the follower thread: the name and the records arrive with the first read.
    QTRY_COMPARE(comparison.run(3).label, QString("calm-owl-7"));
    QTRY_COMPARE(comparison.store(1).train().size(), std::size_t(20));
    QCOMPARE(comparison.store(1).eval().size(), std::size_t(4));
    QTRY_VERIFY(comparison.store(2).train().size() > 0);
    QTRY_COMPARE(comparison.store(0).train().size(), std::size_t(2));
    // The union of every run's metrics, the mapped names first, then the others as first met.
    const QStringList names = comparison.metricNames();
    QCOMPARE(names.mid(0, 4), QStringList({"loss", "val_loss", "lr", "grad_norm"}));
    QVERIFY2(names.contains("tokens_per_s") && names.contains("val_acc") && names.contains("accuracy"),
             qPrintable(names.join(',')));
    QVERIFY(names.indexOf("tokens_per_s") < names.indexOf("val_acc"));
    // A scalar by name on each axis; tokens only where a run counts them.
    const auto series = [&](int run, const QString& name, CompareX axis) {
      return metricSeriesByName(comparison.store(run), comparison.scalars(run), name, axis);
    };
    QCOMPARE(series(3, "accuracy", CompareX::Step).x, QVector<double>({1, 2}));
    QCOMPARE(series(3, "accuracy", CompareX::Step).y, QVector<double>({0.5, 0.75}));
    QCOMPARE(series(3, "accuracy", CompareX::Elapsed).x, QVector<double>({0, 1}));
    QCOMPARE(series(3, "accuracy", CompareX::WallClock).x, QVector<double>({1718000000, 1718000001}));
    QVERIFY(series(3, "accuracy", CompareX::Tokens).x.isEmpty());
    QCOMPARE(series(1, "loss", CompareX::Step).x.size(), 20);
    QVERIFY(series(1, "loss", CompareX::Tokens).x.isEmpty());
    QCOMPARE(series(0, "loss", CompareX::Tokens).x, QVector<double>({64, 128}));
    QCOMPARE(series(2, "loss", CompareX::Step).y, QVector<double>({2.5, 2.0, 1.5}));
    QCOMPARE(series(2, "val_acc", CompareX::Step).x, QVector<double>({19, 29}));
    // The config the format carries.
    const auto& config = comparison.run(3).config.entries;
    QVERIFY(std::find(config.begin(), config.end(), std::pair<std::string, std::string>("batch_size", "32")) !=
            config.end());
    QCOMPARE(comparison.figures(1).status, QString("llm.c (read-only)"));
    QVERIFY(std::abs(comparison.figures(1).finalLoss - 4.0 / 20) < 1e-6);
    // A named set keeps them by address, and reopens them.
    QTemporaryDir setsRoot;
    QCOMPARE(ComparisonSets(setsRoot.path()).save({"mixed", comparison.runDirs()}), QString());
    ComparisonSets reread(setsRoot.path());
    QCOMPARE(reread.load(), QString());
    Comparison reopened(registry);
    QCOMPARE(reopened.setRuns(reread.find("mixed")->runDirs), QString());
    QCOMPARE(reopened.size(), 4);
    QCOMPARE(reopened.run(3).label, QString("calm-owl-7"));
    const QString why = comparison.setRuns({m_llmc, m_root.path() + "/nothing-here"});
    QVERIFY2(why.contains("nothing-here"), qPrintable(why));
    QCOMPARE(comparison.size(), 1);
  }

  void anAddressWhoseKeyOrFoldersHoldAHashResolves() {
    QTemporaryDir root;
    // A folder named with '#' beside one named as its part before the '#', and two sessions whose
    // files carry a writer's filename_suffix with '#' in it: each session's key holds a '#'.
    QVERIFY(QDir().mkpath(root.path() + "/exp"));
    const QString logs = root.path() + "/exp#1/logs";
    for (const auto& [name, start] : {std::pair{"/events.out.tfevents.1718000000.host.1.0#a", 1718000000.0},
                                      std::pair{"/events.out.tfevents.1718003600.host.2.0#b", 1718003600.0}})
      writeText(logs + name,
                QByteArray::fromStdString(fixtures::tfRecord(fixtures::tfFileVersion(start)) +
                                          fixtures::tfRecord(fixtures::tfSimpleValue(start + 1, 0, "loss", 2.0f))));
    const std::vector<RunSource> sessions = findRuns(logs.toStdString());
    QCOMPARE(sessions.size(), std::size_t(2));
    for (const RunSource& session : sessions) {
      const QString address = importedRunAddress(session);
      QVERIFY2(address.endsWith("#a") || address.endsWith("#b"), qPrintable(address));
      QCOMPARE(importedRunPath(address), logs);
      const std::optional<RunSource> back = importedRunSource(address);
      QVERIFY2(back.has_value(), qPrintable(address));
      QCOMPARE(back->key, session.key);
    }
    // An old Trackio project's run is keyed by its run_name, which may be "exp#2".
    writeText(root.path() + "/project.db", "a store");
    QCOMPARE(importedRunPath(root.path() + "/project.db#exp#2"), root.path() + "/project.db");
    QVERIFY(!QFileInfo::exists(importedRunPath(root.path() + "/gone.db#exp#2")));  // its index entry can go
  }

  // The formats added for runs as users have them now (Trackio's project file, DVCLive's folder):
  // rows of the run list with their badge, read by the index's thread, and runs of Compare with
  // their metrics by name and their values.
  void trackioAndDvcLiveRunsAreRowsAndCompared() {
    QTemporaryDir root, cache;
    const QString live = root.path() + "/exp/dvclive";
    writeText(live + "/plots/metrics/train/loss.tsv", "step\tloss\n0\t2.5\n1\t2.25\n2\t2.0\n");
    writeText(live + "/params.yaml", "lr: 0.003\n");
    const QString trackio = root.path() + "/trackio/sweep.db";
    QVERIFY(QDir().mkpath(root.path() + "/trackio"));
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open(trackio.toUtf8().constData(), &db), SQLITE_OK);
    QCOMPARE(sqlite3_exec(db,
                          "CREATE TABLE metrics (id INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL, "
                          "timestamp TEXT NOT NULL, run_name TEXT NOT NULL, step INTEGER NOT NULL, metrics TEXT NOT "
                          "NULL);"
                          "CREATE TABLE configs (id INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL, run_name "
                          "TEXT NOT NULL, config TEXT NOT NULL, created_at TEXT NOT NULL, UNIQUE(run_id));"
                          "INSERT INTO metrics (run_id, timestamp, run_name, step, metrics) VALUES "
                          "('r1', '2025-08-21T16:00:00+00:00', 'brave-fox', 0, '{\"train/loss\": 3.5}'),"
                          "('r1', '2025-08-21T16:00:01+00:00', 'brave-fox', 1, '{\"train/loss\": 3.0}');",
                          nullptr, nullptr, nullptr),
             SQLITE_OK);
    sqlite3_close(db);

    RunListModel model(nullptr, cache.path());
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRunsRoot(root.path());
    QCOMPARE(model.rowCount(), 2);
    QStringList badges;
    for (int r = 0; r < model.rowCount(); ++r) {
      badges << model.data(model.index(r, RunListModel::SourceColumn)).toString();
      QCOMPARE(model.statusOf(model.runAt(r)), QString("imported"));
    }
    badges.sort();
    QCOMPARE(badges, QStringList({"DVCLive", "Trackio"}));
    const auto rowOf = [&](const QString& badge) {
      for (int r = 0; r < model.rowCount(); ++r)
        if (model.data(model.index(r, RunListModel::SourceColumn)).toString() == badge) return r;
      return -1;
    };
    QTRY_COMPARE(model.runAt(rowOf("DVCLive")).step, qint64(2));  // read by the index's thread
    QTRY_COMPARE(model.runAt(rowOf("Trackio")).step, qint64(1));
    QCOMPARE(model.runAt(rowOf("Trackio")).name, QString("brave-fox"));

    RunRegistry registry;
    Comparison comparison(registry);
    QCOMPARE(comparison.setRuns({model.runAt(rowOf("DVCLive")).path, model.runAt(rowOf("Trackio")).path}), QString());
    QCOMPARE(comparison.run(0).source, QString("DVCLive"));
    QCOMPARE(comparison.run(1).source, QString("Trackio"));
    QTRY_VERIFY(comparison.store(0).train().size() == 3 && comparison.store(1).train().size() == 2);
    const auto loss = [&](int run) {
      return metricSeriesByName(comparison.store(run), comparison.scalars(run), "loss", CompareX::Step);
    };
    QCOMPARE(loss(0).x, QVector<double>({0, 1, 2}));
    QCOMPARE(loss(0).y, QVector<double>({2.5, 2.25, 2.0}));
    QCOMPARE(loss(1).y, QVector<double>({3.5, 3.0}));
  }

  void aComparedRunThatGrowsIsReadAgain() {
    QTemporaryDir root;
    const QString log = root.path() + "/run/main.log";
    writeText(log, llmcLines(1, 5));
    RunRegistry registry;
    Comparison comparison(registry);
    QCOMPARE(comparison.setRuns({log}), QString());
    QTRY_COMPARE(comparison.store(0).train().size(), std::size_t(5));
    QSignalSpy grew(&comparison, &Comparison::metricsChanged);
    writeText(log, llmcLines(6, 8), QIODevice::Append);
    QTRY_COMPARE(comparison.store(0).train().size(), std::size_t(8));
    QVERIFY(!grew.isEmpty());
    QCOMPARE(comparison.run(0).summary.step, qint64(8));
  }
};

QTEST_GUILESS_MAIN(ImportedRunsTest)
#include "imported_runs_test.moc"
