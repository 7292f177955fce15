// Start, in the real window, against what this machine really has and what really happens at the
// start: a local CUDA job is refused where this machine's trainer reports no GPU (a fake trainer
// reports the facts, so the test holds on a GPU machine too); a run that the real trainer refuses
// at its start (its data went away after the Setup page checked it), or a trainer that ends before
// it writes run.json, is listed as failed with its reason in run.json, a message and the Logs page.
#include <QAbstractButton>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include "logs_page.h"
#include "main_window.h"
#include "run_status.h"
#include "runs/run_list_model.h"
#include "setup_page.h"

namespace traindeck {

using test_support::runStatus;

class StartChecksTest : public QObject {
  Q_OBJECT

  static MainWindowOptions options(const QTemporaryDir& runs, const QString& trainBinary) {
    MainWindowOptions o;
    o.presetDirs = {TRAINDECK_PRESETS_SOURCE_DIR};
    o.runsRoot = runs.path();
    o.trainBinary = trainBinary;
    return o;
  }

  // A small byte-level job on `device`, its data a folder that passes for a prepared dataset.
  static QString job(const QTemporaryDir& data, const QString& device) {
    QDir(data.path()).mkpath("tokens");
    QFile manifest(data.filePath("tokens/dataset.json"));
    if (!manifest.exists() && manifest.open(QIODevice::WriteOnly)) manifest.write("{}");
    return QStringLiteral(
               "name: tiny\n"
               "model:\n  n_layer: 1\n  n_head: 2\n  n_embd: 32\n  n_positions: 64\n  block_size: 32\n"
               "  vocab_size: 257\n"
               "data:\n  train: \"%1/tokens\"\n  tokenizer: byte\n"
               "strategy:\n  device: %2\n  micro_batch: 2\n"
               "schedule:\n  max_steps: 200\n")
        .arg(data.path(), device);
  }

  // A traindeck-train that answers `validate --machine` with `facts`, and runs `otherwise` (shell)
  // for any other command.
  static QString fakeTrainer(const QTemporaryDir& dir, const QString& facts,
                             const QString& otherwise = "echo \"fake traindeck-train: $*\" >&2; exit 2") {
    const QString path = dir.filePath("traindeck-train");
    QFile script(path);
    if (!script.open(QIODevice::WriteOnly)) return {};
    script.write(QStringLiteral("#!/bin/sh\n"
                                "if [ \"$1\" = validate ] && [ \"$2\" = --machine ]; then echo '%1'; exit 0; fi\n"
                                "%2\n")
                     .arg(facts, otherwise)
                     .toUtf8());
    script.close();
    script.setPermissions(script.permissions() | QFileDevice::ExeOwner);
    return path;
  }

  static QString problemText(const SetupPage* page) {
    QString out;
    for (const Diagnostic& d : page->problems()) out += QString::fromStdString(d.format("job")) + "\n";
    return out;
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_config.isValid());
    qputenv("XDG_CONFIG_HOME", m_config.path().toUtf8());
    QCoreApplication::setOrganizationName("TrainDeckTest");
  }

  void aCudaJobOnAMachineWithoutGpusCannotStart() {
    QTemporaryDir data, runs, bin;
    const QString trainer = fakeTrainer(bin, R"({"cuda_devices":0,"bf16":false,"colab_runtime":false})");
    QVERIFY(!trainer.isEmpty());
    MainWindow window(options(runs, trainer));
    SetupPage* setup = window.setupPage();
    setup->setYamlText(job(data, "cuda"));
    QTRY_VERIFY(setup->thisMachine().has_value());  // asked in the background
    QCOMPARE(setup->thisMachine()->cudaDevices, 0);
    QAction* start = window.findChild<QAction*>("startAction");
    QVERIFY(start);
    QVERIFY(!start->isEnabled());
    auto* device = window.findChild<QWidget*>("field:strategy.device");
    QVERIFY(device);
    QCOMPARE(device->property("problem").toString(), QString("error"));
    QVERIFY2(device->toolTip().contains("this machine has no CUDA device"), qPrintable(device->toolTip()));
    QVERIFY(window.startRun().isEmpty());
    QVERIFY(QDir(runs.path()).isEmpty(QDir::Dirs | QDir::NoDotAndDotDot));  // nothing was started
    setup->setYamlText(job(data, "cpu"));
    QTRY_VERIFY2(start->isEnabled(), qPrintable(problemText(setup)));
  }

  // A trainer that cannot even load (here a fake that says what a missing library makes the loader
  // say) writes no run.json: the app fails the run with the last line it printed.
  void aTrainerThatEndsBeforeItsRunJsonStillSaysWhy() {
    QTemporaryDir data, runs, bin;
    const QString trainer = fakeTrainer(
        bin, R"({"cuda_devices":null})",
        "echo 'traindeck-train: error while loading shared libraries: libtorch_cpu.so: cannot open shared object "
        "file' >&2; exit 127");
    MainWindow window(options(runs, trainer));
    window.setupPage()->setYamlText(job(data, "cpu"));
    QTRY_VERIFY2(window.setupPage()->isStartable(), qPrintable(problemText(window.setupPage())));
    const QString run = window.startRun();
    QVERIFY(!run.isEmpty());
    QTRY_COMPARE_WITH_TIMEOUT(runStatus(run), std::string("failed"), 30000);
    RunListModel* list = window.runList();
    QTRY_VERIFY(list->rowOfPath(run) >= 0);
    const QString reason = list->runAt(list->rowOfPath(run)).exitReason;
    QVERIFY2(reason.contains("ended before it started the run") && reason.contains("libtorch_cpu.so"),
             qPrintable(reason));
    QTRY_VERIFY_WITH_TIMEOUT(window.findChild<QMessageBox*>("problemMessage"), 10000);
    QVERIFY2(window.findChild<QMessageBox*>("problemMessage")->text().contains("libtorch_cpu.so"),
             qPrintable(window.findChild<QMessageBox*>("problemMessage")->text()));
  }

  // Issue 40, item 7: Start never writes the opened job file without asking. Unasked (a hidden
  // window) or answered "Run this copy only", the file stays byte for byte as it was and the run
  // gets its own copy of the edits; only "Save into the file" writes it.
  void startLeavesTheOpenedFileAsItWasUnlessTheUserSaves() {
    QTemporaryDir data, runs, bin, jobs;
    const QString trainer = fakeTrainer(bin, R"({"cuda_devices":null})", "exit 1");
    MainWindow window(options(runs, trainer));
    SetupPage* setup = window.setupPage();
    const QString file = jobs.filePath("tiny.yaml");
    const QByteArray written = ("# my job, my comments\n" + job(data, "cpu")).toUtf8();
    const auto onDisk = [&file] {
      QFile in(file);
      return in.open(QIODevice::ReadOnly) ? in.readAll() : QByteArray();
    };
    {
      QFile out(file);
      QVERIFY(out.open(QIODevice::WriteOnly) && out.write(written) == written.size());
    }
    setup->openFile(file);
    QTRY_VERIFY2(setup->isStartable(), qPrintable(problemText(setup)));
    auto* micro = window.findChild<QLineEdit*>("field:strategy.micro_batch");
    micro->selectAll();
    QTest::keyClicks(micro, "3");
    QVERIFY(setup->isModified());

    const QString first = window.startRun();
    QVERIFY(!first.isEmpty());
    QCOMPARE(onDisk(), written);
    QFile copy(first + ".job.yaml");
    QVERIFY(copy.open(QIODevice::ReadOnly));
    QVERIFY2(copy.readAll().contains("micro_batch: 3"), "the run's own copy holds the edits");
    QVERIFY(setup->isModified());

    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QString asked, answer = "runCopyOnlyButton";
    QTimer answering;  // answers the question when it is up
    connect(&answering, &QTimer::timeout, this, [&] {
      auto* box = window.findChild<QMessageBox*>("unsavedEditsQuestion");
      if (!box || !box->isVisible()) return;
      asked = box->text();
      if (auto* button = box->findChild<QAbstractButton*>(answer)) button->click();
    });
    answering.start(20);
    QVERIFY(!window.startRun().isEmpty());
    QVERIFY2(asked.contains("tiny.yaml"), qPrintable(asked));
    QCOMPARE(onDisk(), written);
    asked.clear();
    answer = "cancelStartButton";
    QVERIFY(window.startRun().isEmpty());
    QVERIFY(!asked.isEmpty());
    QCOMPARE(onDisk(), written);
    answer = "saveIntoFileButton";
    QVERIFY(!window.startRun().isEmpty());
    QVERIFY(onDisk().contains("micro_batch: 3") && onDisk().startsWith("# my job, my comments\n"));
    QVERIFY(!setup->isModified());
  }

  void aRunThatFailsAtItsStartSaysWhy() {
#if !defined(TRAINDECK_TRAIN_RUNS)
    QSKIP("needs traindeck-train built with LibTorch (TRAINDECK_TRAINER), which runs jobs");
#else
    QTemporaryDir data, runs;
    MainWindow window(options(runs, TRAINDECK_TRAIN_BIN));
    window.setupPage()->setYamlText(job(data, "cpu"));
    QTRY_VERIFY2(window.setupPage()->isStartable(), qPrintable(problemText(window.setupPage())));
    // The data goes away after the Setup page checked it: the trainer checks again, and refuses.
    QVERIFY(QDir(data.filePath("tokens")).removeRecursively());
    const QString run = window.startRun();
    QVERIFY(!run.isEmpty());
    QTRY_COMPARE_WITH_TIMEOUT(runStatus(run), std::string("failed"), 30000);
    RunListModel* list = window.runList();
    const auto listed = [&] {
      const int row = list->rowOfPath(run);
      return row < 0 ? QString() : list->data(list->index(row, RunListModel::StatusColumn)).toString();
    };
    QTRY_COMPARE_WITH_TIMEOUT(listed(), QString("failed"), 10000);
    const QString reason = list->runAt(list->rowOfPath(run)).exitReason;
    QVERIFY2(reason.contains("nothing was started: data.train: does not exist"), qPrintable(reason));
    auto* header = window.findChild<QLabel*>("runLabel");
    QTRY_VERIFY2(header->text().contains(" · failed · "), qPrintable(header->text()));
    // Said where the user is looking: a message that the start failed, and the Logs page's banner.
    QTRY_VERIFY_WITH_TIMEOUT(window.findChild<QMessageBox*>("problemMessage"), 10000);
    QVERIFY2(window.findChild<QMessageBox*>("problemMessage")->text().contains("data.train: does not exist"),
             qPrintable(window.findChild<QMessageBox*>("problemMessage")->text()));
    auto* banner = window.logsPage()->findChild<QLabel*>("failureBanner");
    QVERIFY(banner);
    QTRY_VERIFY2(banner->text().contains("data.train: does not exist"), qPrintable(banner->text()));
#endif
  }

 private:
  QTemporaryDir m_config;
};

}  // namespace traindeck

QTEST_MAIN(traindeck::StartChecksTest)
#include "start_checks_test.moc"
