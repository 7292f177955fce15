// A sweep started from the window (as the Setup page's Sweep tab starts one): its trials run as
// ordinary runs, listed with the others; the window closed mid-sweep and opened again takes the
// sweep up (its trials followed, none run twice), and a sweep file with a mistake is refused
// with its line. Real trainers on tiny CPU jobs.
#include <QDir>
#include <QFile>
#include <QMessageBox>
#include <QProcess>
#include <QSettings>
#include <QTemporaryDir>
#include <QtTest>
#include <memory>

#include "main_window.h"
#include "runs/run_list_model.h"
#include "sweep/sweep_state_file.h"
#include "sweep_folder.h"
#include "sweep_runner.h"
#include "sweep_runners.h"

using namespace traindeck;

class SweepWindowTest : public QObject {
  Q_OBJECT
  std::unique_ptr<QTemporaryDir> m_config;

  static MainWindowOptions options(const QString& runsRoot) {
    MainWindowOptions o;
    o.presetDirs = {TRAINDECK_PRESETS_SOURCE_DIR};
    o.runsRoot = runsRoot;
    o.trainBinary = TRAINDECK_TRAIN_BIN;
    return o;
  }
  static bool writeFile(const QString& path, const QByteArray& text) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(text) == text.size();
  }
  static SweepState stateOf(const QString& sweepDir) {
    return readSweepState(SweepFolder{sweepDir}.statePath().toStdString()).state;
  }

 private slots:
  void initTestCase() {
    m_config = std::make_unique<QTemporaryDir>();
    qputenv("XDG_CONFIG_HOME", m_config->path().toUtf8());
    QCoreApplication::setOrganizationName("TrainDeckTest");
  }

  void aSweepRunsFromTheWindowAndIsTakenUpAfterARestart() {
    QTemporaryDir dir;
    QProcess make;
    make.start("sh", {TRAINDECK_TEST_DATA_DIR "/cli/make_tiny_job.sh", TRAINDECK_TRAIN_BIN, dir.path()});
    QVERIFY(make.waitForFinished(120000) && make.exitCode() == 0);
    const QString sweepFile = dir.filePath("sweep.yaml");
    QVERIFY(writeFile(sweepFile,
                      "base: job.yaml\nmethod: grid\nparameters:\n  optimizer.lr: [1e-3, 2e-3, 3e-3]\n"
                      "  schedule.max_steps: [200]\nmetric: loss\n"));
    const QString runsRoot = dir.filePath("runs");
    QString sweepDir;
    {
      MainWindow window(options(runsRoot));
      sweepDir = window.startSweep(sweepFile, 1);
      QVERIFY(!sweepDir.isEmpty());
      QVERIFY(window.sweeps()->runnerFor(sweepDir));
      QTRY_VERIFY_WITH_TIMEOUT(stateOf(sweepDir).trials.front().state == TrialState::Running, 30000);
      const QString firstRun =
          SweepFolder{sweepDir}.runDir(QString::fromStdString(stateOf(sweepDir).trials.front().runFolder));
      QTRY_VERIFY_WITH_TIMEOUT(window.runList()->rowOfPath(firstRun) >= 0, 30000);  // an ordinary run, listed
    }  // the window closes mid-sweep: the trial's run goes on
    QCOMPARE(stateOf(sweepDir).trials.front().state, TrialState::Running);
    MainWindow reopened(options(runsRoot));
    SweepRunner* runner = reopened.sweeps()->runnerFor(sweepDir);
    QVERIFY2(runner, "the reopened window did not take the sweep up");
    QTRY_VERIFY_WITH_TIMEOUT(runner->isDone(), 240000);
    const SweepState state = stateOf(sweepDir);
    QCOMPARE(state.trials.size(), std::size_t(3));
    for (const TrialRecord& t : state.trials) QCOMPARE(t.state, TrialState::Finished);
    QStringList runs = QDir(runsRoot).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    runs.removeAll(kSweepsFolder);
    QCOMPARE(runs.size(), 3);  // each trial once
  }

  void aSweepWithAMistakeIsRefusedAtItsLine() {
    QTemporaryDir dir;
    QVERIFY(writeFile(dir.filePath("job.yaml"), "name: x\n"));
    QVERIFY(writeFile(dir.filePath("sweep.yaml"), "base: job.yaml\nparameters:\n  optimizer.lr: [1e-3, -1]\n"));
    MainWindow window(options(dir.filePath("runs")));
    QVERIFY(window.startSweep(dir.filePath("sweep.yaml"), 1).isEmpty());
    auto* box = window.findChild<QMessageBox*>("problemMessage");
    QVERIFY(box);
    QVERIFY2(box->text().contains("sweep.yaml:3:") && box->text().contains("greater than 0"), qPrintable(box->text()));
    QVERIFY(sweepFolders(dir.filePath("runs")).isEmpty());  // nothing kept of a refused sweep
    QCOMPARE(QDir(dir.filePath("runs/sweeps")).entryList(QDir::Dirs | QDir::NoDotAndDotDot), QStringList());
  }

  void aHostNoLongerSavedIsSaidAndNothingStarts() {
    QTemporaryDir dir;
    QVERIFY(writeFile(dir.filePath("job.yaml"), "name: x\n"));
    QVERIFY(writeFile(dir.filePath("sweep.yaml"), "base: job.yaml\nparameters:\n  optimizer.lr: [1e-3]\n"));
    MainWindow window(options(dir.filePath("runs")));
    QVERIFY(window.startSweep(dir.filePath("sweep.yaml"), 1, 1, {{"gpu-gone", 2}}).isEmpty());
    auto* box = window.findChild<QMessageBox*>("problemMessage");
    QVERIFY(box);
    QVERIFY2(box->text().contains("gpu-gone is not saved"), qPrintable(box->text()));
    QVERIFY(sweepFolders(dir.filePath("runs")).isEmpty());
  }
};

QTEST_MAIN(SweepWindowTest)
#include "sweep_window_test.moc"
