// The main window on real presets and real runs, offscreen: the Setup page on the demo job, the
// run list over a runs root, a recorded run shown on the Monitor and Logs pages, and a job
// started from the window (two ranks), followed live, stopped, and found stopped with a
// checkpoint. Each test has its own data folder and runs root, so any one runs alone or in any
// order.
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDesktopServices>
#include <QDir>
#include <QFile>
#include <QGuiApplication>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>
#include <memory>

#include "compare_chart.h"
#include "compare_page.h"
#include "doc_viewer.h"
#include "jobs/checkpoint_sync.h"
#include "jobs/job_controller.h"
#include "logs_page.h"
#include "main_window.h"
#include "metric_chart.h"
#include "monitor_page.h"
#include "prepare_dialog.h"
#include "run_status.h"
#include "runs/run_list_model.h"
#include "setup_page.h"

namespace traindeck {

using test_support::runStatus;

QVector<qint64> trainSteps(const QString& runDir) {
  return test_support::trainSteps(runDir + "/metrics.jsonl");
}

// Stands in for the desktop's file opener (QDesktopServices::setUrlHandler).
class UrlCatcher : public QObject {
  Q_OBJECT
 public:
  QList<QUrl> urls;
 public slots:
  void open(const QUrl& url) { urls << url; }
};

class MainWindowTest : public QObject {
  Q_OBJECT
  std::unique_ptr<QTemporaryDir> m_config;

  // A finished two-rank run recorded from the trainer, under the runs root.
  static QString makeRecordedRun(const QTemporaryDir& runs, const QString& name) {
    const QString dir = QDir(runs.path()).filePath(name);
    QDir().mkpath(dir + "/logs");
    QFile::copy(TRAINDECK_TEST_DATA_DIR "/app/fixtures/metrics.jsonl", dir + "/metrics.jsonl");
    QFile json(dir + "/run.json");
    json.open(QIODevice::WriteOnly);
    json.write(
        QString(R"({"id":"%1","name":"tiny ddp","created":"2026-11-30T08:34:49Z","status":"failed",)"
                R"("exit_reason":"rank 1 was killed by SIGKILL at step 37","failed_rank":1,"world_size":2,"step":37})")
            .arg(name)
            .toUtf8());
    for (int rank = 0; rank < 2; ++rank) {
      QFile log(dir + QString("/logs/rank-%1.log").arg(rank));
      log.open(QIODevice::WriteOnly);
      log.write(QString("2026-11-30T08:34:49Z info: rank %1 of 2: meeting the others\n"
                        "2026-11-30T08:34:50Z warn: something odd on rank %1\n")
                    .arg(rank)
                    .toUtf8());
    }
    return dir;
  }

  static MainWindowOptions options(const QTemporaryDir& runs) {
    MainWindowOptions o;
    o.presetDirs = {TRAINDECK_PRESETS_SOURCE_DIR};
    o.runsRoot = runs.path();
    o.trainBinary = TRAINDECK_TRAIN_BIN;
    return o;
  }

  // ${TRAINDECK_DATA} in the presets points at `data`, where only a test that makes the demo
  // data has any.
  static void useDataDir(const QTemporaryDir& data) { qputenv("TRAINDECK_DATA", data.path().toUtf8()); }

 private slots:
  // QSettings in a folder of this test program's own, never the user's (~/.config): set before
  // the first QSettings, which fixes the folder for the process; each test starts with none.
  void initTestCase() {
    m_config = std::make_unique<QTemporaryDir>();
    qputenv("XDG_CONFIG_HOME", m_config->path().toUtf8());
    QCoreApplication::setOrganizationName("TrainDeckTest");
  }
  void init() { QSettings().clear(); }

  void opensOnTheDemoJob() {
    QTemporaryDir data, runs;
    useDataDir(data);
    MainWindow window(options(runs));
    auto* presets = window.findChild<QComboBox*>("presetChooser");
    QVERIFY(presets);
    QCOMPARE(presets->count(), QDir(TRAINDECK_PRESETS_SOURCE_DIR).entryList({"*.yaml"}, QDir::Files).size());
    QCOMPARE(presets->currentText(), QString("demo-cpu"));
    QVERIFY(window.findChild<QPlainTextEdit*>("yaml")->toPlainText().contains("name: demo-cpu"));
    const auto* problems = window.findChild<QListWidget*>("problems");
    QVERIFY(problems->count() >= 1);
    QVERIFY(problems->item(0)->text().contains("data.train: does not exist"));
    QVERIFY(!window.findChild<QAction*>("startAction")->isEnabled());  // not startable
    // The problems list starts each line with what it is, never with ": error:".
    QVERIFY2(!problems->item(0)->text().startsWith(":"), qPrintable(problems->item(0)->text()));
  }

  // The run list comes after its filters in the focus chain: the table taking focus as the window
  // shows would pick its first run by itself.
  void showingTheWindowPicksNoRun() {
    QTemporaryDir data, runs;
    useDataDir(data);
    makeRecordedRun(runs, "20261130-083449-tiny-ddp");
    MainWindow window(options(runs));
    window.show();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QTRY_COMPARE(window.findChild<QTableView*>("runList")->model()->rowCount(), 1);
    QCOMPARE(window.currentRunDir(), QString());
    QCOMPARE(QApplication::focusWidget(), window.findChild<QWidget*>("runFilter"));
  }

  void reopeningRestoresTheRunShownAndNeverAnEmptyPage() {
    QTemporaryDir data, runs;
    useDataDir(data);
    const QString a = makeRecordedRun(runs, "20261130-083449-tiny-ddp");
    const QString b = makeRecordedRun(runs, "20261130-093449-tiny-ddp");
    {
      MainWindow window(options(runs));
      window.compareRuns({a, b});
      window.showRun(b);
      window.findChild<QTabWidget*>("pages")->setCurrentWidget(window.findChild<QWidget*>("comparePage"));
      auto* list = window.findChild<QTableView*>("runList");  // the Id shown, sorted by name
      list->setColumnHidden(RunListModel::IdColumn, false);
      list->sortByColumn(RunListModel::NameColumn, Qt::AscendingOrder);
      window.close();
    }
    {
      MainWindow reopened(options(runs));
      QCOMPARE(reopened.currentRunDir(), b);
      auto* pages = reopened.findChild<QTabWidget*>("pages");
      QCOMPARE(pages->currentWidget()->objectName(), QString("comparePage"));  // with its runs
      auto* list = reopened.findChild<QTableView*>("runList");
      QVERIFY(!list->isColumnHidden(RunListModel::IdColumn));
      QVERIFY(list->isColumnHidden(RunListModel::PathColumn));  // as it was
      QCOMPARE(list->horizontalHeader()->sortIndicatorSection(), int(RunListModel::NameColumn));
      QCOMPARE(list->horizontalHeader()->sortIndicatorOrder(), Qt::AscendingOrder);
      reopened.close();
    }
    // The compared runs are gone: Compare would open empty, so the run's Monitor opens.
    QVERIFY(QDir(a).removeRecursively());
    MainWindow again(options(runs));
    QCOMPARE(again.findChild<QTabWidget*>("pages")->currentWidget()->objectName(), QString("monitorPage"));
  }

  void theRunListFiltersSortsAndShowsConfigKeys() {
    QTemporaryDir data, runs;
    useDataDir(data);
    const QString a = makeRecordedRun(runs, "20261130-083449-tiny-ddp");
    const QString b = makeRecordedRun(runs, "20261130-093449-tiny-ddp");
    for (const auto& [dir, lr] : {std::pair{a, "0.002"}, std::pair{b, "0.0005"}}) {
      QFile config(dir + "/config.yaml");
      QVERIFY(config.open(QIODevice::WriteOnly));
      config.write(QString("name: tiny ddp\noptimizer:\n  lr: %1\n").arg(lr).toUtf8());
    }
    QFile renamed(b + "/run.json");  // b: another name, and still going
    QVERIFY(renamed.open(QIODevice::WriteOnly));
    renamed.write(R"({"id":"20261130-093449-tiny-ddp","name":"wide run","created":"2026-11-30T09:34:49Z",)"
                  R"("status":"running","host":"elsewhere"})");
    renamed.close();
    MainWindow window(options(runs));
    auto* table = window.findChild<QTableView*>("runList");
    QTRY_COMPARE(table->model()->rowCount(), 2);
    const auto shownNames = [&] {
      QStringList names;
      for (int r = 0; r < table->model()->rowCount(); ++r)
        names << table->model()->index(r, RunListModel::NameColumn).data().toString();
      return names;
    };
    QCOMPARE(shownNames(), (QStringList{"wide run", "tiny ddp"}));  // newest first
    QTest::keyClicks(window.findChild<QLineEdit*>("runFilter"), "WIDE");
    QCOMPARE(shownNames(), QStringList{"wide run"});
    window.findChild<QLineEdit*>("runFilter")->clear();
    auto* status = window.findChild<QComboBox*>("statusFilter");
    status->setCurrentIndex(status->findData("failed"));
    QCOMPARE(shownNames(), QStringList{"tiny ddp"});
    status->setCurrentIndex(0);
    // A config key as a column, sorted as numbers.
    window.runList()->setConfigColumns({"optimizer.lr"});
    const int lr = RunListModel::ColumnCount;
    QCOMPARE(table->model()->headerData(lr, Qt::Horizontal).toString(), QString("optimizer.lr"));
    table->sortByColumn(lr, Qt::AscendingOrder);
    QCOMPARE(shownNames(), (QStringList{"wide run", "tiny ddp"}));  // 0.0005 < 0.002
    QCOMPARE(table->model()->index(1, lr).data().toString(), QString("0.002"));
    // Selecting through the sorted, filtered view shows the right run.
    table->selectRow(1);
    QCOMPARE(window.currentRunDir(), a);
    QMenu* columns = window.columnMenu();
    QVERIFY(columns->findChild<QAction*>("column:optimizer.lr")->isChecked());
    QVERIFY(!columns->findChild<QAction*>("column:Id")->isChecked());  // hidden by default
    columns->findChild<QAction*>("column:Id")->setChecked(true);
    QVERIFY(!table->isColumnHidden(RunListModel::IdColumn));
    delete columns;
  }

  void prepareDataMakesADatasetAndPutsItInTheTrainingDataField() {
    if (!QFileInfo(TRAINDECK_TRAIN_BIN).isExecutable())
      QSKIP("needs traindeck-train, built only with LibTorch (configure with TRAINDECK_TRAINER=ON)");
    QTemporaryDir data, runs, texts;
    useDataDir(data);
    QStringList files;
    for (int f = 0; f < 2; ++f) {
      QFile text(texts.filePath(QString("part %1.txt").arg(f)));  // a space in the name, and a leading dash below
      QVERIFY(text.open(QIODevice::WriteOnly));
      for (int line = 0; line < 400; ++line)
        text.write(QString("line %1 of part %2: some words\n").arg(line).arg(f).toUtf8());
      files << text.fileName();
    }
    QVERIFY(QFile::rename(files[1], texts.filePath("-dash.txt")));
    files[1] = texts.filePath("-dash.txt");
    MainWindow window(options(runs));
    SetupPage* setup = window.setupPage();  // demo-cpu: the byte tokenizer
    QVERIFY(setup->findChild<QToolButton*>("prepare:data.train"));
    PrepareDialog* dialog = setup->openPrepareDialog();
    QSignalSpy prepared(dialog, &PrepareDialog::prepared);
    dialog->setInputs(files);
    const QString out = data.filePath("my tokens");
    dialog->setOutDir(out);
    dialog->startPrepare();
    QVERIFY(prepared.wait(60000));
    QCOMPARE(prepared.first().at(0).toString(), out);
    QVERIFY(QFileInfo::exists(out + "/dataset.json"));
    QCOMPARE(QString::fromStdString(setup->config().data.train), out);
    for (const Diagnostic& d : setup->problems()) QVERIFY2(d.path != "data.train", d.message.c_str());
    QVERIFY2(dialog->statusText().contains("prepared"), qPrintable(dialog->statusText()));
    // Into a folder that is a dataset already: refused, nothing run.
    dialog->startPrepare();
    QVERIFY(dialog->statusText().contains("prepared dataset already"));
  }

  void theMenusHoldEveryActionWithTheUsualShortcuts() {
    QTemporaryDir data, runs;
    useDataDir(data);
    MainWindow window(options(runs));
    QStringList menus;
    for (QAction* menu : window.menuBar()->actions()) menus << menu->text().remove('&');
    QCOMPARE(menus, (QStringList{"File", "Edit", "View", "Run", "Help"}));
    const auto shortcut = [&](const char* name) {
      QAction* a = window.findChild<QAction*>(name);
      return a ? a->shortcut() : QKeySequence();
    };
    QCOMPARE(shortcut("openAction"), QKeySequence(QKeySequence::Open));
    QCOMPARE(shortcut("saveAction"), QKeySequence(QKeySequence::Save));
    QCOMPARE(shortcut("quitAction"), QKeySequence(Qt::CTRL | Qt::Key_Q));
    QCOMPARE(shortcut("tutorialAction"), QKeySequence(QKeySequence::HelpContents));
    QVERIFY(QFileInfo(window.docsPath()).fileName() == "README.md");  // Help has something to open
    auto* pages = window.findChild<QTabWidget*>("pages");
    window.findChild<QAction*>("viewPage3")->trigger();
    QCOMPARE(pages->currentWidget()->objectName(), QString("logsPage"));
    window.findChild<QAction*>("copyConfigAction")->trigger();
    QCOMPARE(QGuiApplication::clipboard()->text(), window.setupPage()->yamlText());
  }

  // Issues 25 and 40: F1 is Help → Tutorial and shows docs/tutorial.md in the app, also where no
  // program opens files (it said where the file is); where the file is missing it says where it
  // was looked for.
  void f1ShowsTheTutorialInTheApp() {
    QTemporaryDir data, runs, empty;
    useDataDir(data);
    MainWindow window(options(runs));
    QAction* tutorial = window.findChild<QAction*>("tutorialAction");
    QVERIFY(tutorial);
    QCOMPARE(tutorial->shortcut(), QKeySequence(QKeySequence::HelpContents));
    QVERIFY(window.tutorialPath().endsWith("/docs/tutorial.md"));
    QFile file(window.tutorialPath());
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QString heading = QString::fromUtf8(file.readLine()).remove(QRegularExpression("^#+ ")).trimmed();
    QVERIFY(!heading.isEmpty());

    const QByteArray path = qgetenv("PATH");
    qputenv("PATH", empty.path().toUtf8());  // no xdg-open, nor anything else that opens files
    UrlCatcher opener;
    QDesktopServices::setUrlHandler("file", &opener, "open");
    tutorial->trigger();
    QDesktopServices::unsetUrlHandler("file");
    qputenv("PATH", path);
    QVERIFY(opener.urls.isEmpty());  // no other program asked
    auto* viewer = window.findChild<DocViewer*>("docViewer");
    QVERIFY(viewer != nullptr && viewer->isVisible());
    QCOMPARE(viewer->shownFile(), window.tutorialPath());
    QVERIFY2(viewer->text().contains(heading), qPrintable(viewer->text().left(200)));
    // What the window said last (other problems, such as a missing trainer, may be up too).
    const auto said = [](const MainWindow& w) {
      const QList<QMessageBox*> boxes = w.findChildren<QMessageBox*>("problemMessage");
      return boxes.isEmpty() ? QString() : boxes.last()->text();
    };
    QVERIFY(!said(window).contains("tutorial"));
    // The README in the same window.
    window.findChild<QAction*>("docsAction")->trigger();
    QCOMPARE(window.findChildren<DocViewer*>().size(), 1);
    QCOMPARE(viewer->shownFile(), window.docsPath());
    QVERIFY(viewer->text().contains("TrainDeck"));

    MainWindowOptions elsewhere = options(runs);
    elsewhere.presetDirs = {empty.path()};
    MainWindow bare(elsewhere);
    bare.findChild<QAction*>("tutorialAction")->trigger();
    QVERIFY2(said(bare).contains("docs/tutorial.md") && said(bare).contains(empty.path()), qPrintable(said(bare)));
    QVERIFY(bare.findChild<DocViewer*>() == nullptr);
  }

  // Run → Checkpoints kept here…: how many of a remote run's newest checkpoints come home, kept
  // between sessions and given to the jobs started from then on.
  void theCheckpointsKeptHereAreASetting() {
    QTemporaryDir runs;
    QSettings().remove(MainWindow::kCheckpointsKeptHereKey);
    {
      MainWindow window(options(runs));
      QCOMPARE(window.jobs()->remoteOptions().checkpointsKeptHere, 2);
      QVERIFY(window.findChild<QAction*>("checkpointsKeptHereAction"));
      window.setCheckpointsKeptHere(5);
      QCOMPARE(window.jobs()->remoteOptions().checkpointsKeptHere, 5);
    }
    MainWindow reopened(options(runs));
    QCOMPARE(reopened.jobs()->remoteOptions().checkpointsKeptHere, 5);
    reopened.setCheckpointsKeptHere(-3);  // none copied unasked, never fewer
    QCOMPARE(reopened.jobs()->remoteOptions().checkpointsKeptHere, 0);
    QSettings().remove(MainWindow::kCheckpointsKeptHereKey);
  }

  void ctrlQClosesTheWindow() {
    QTemporaryDir runs;
    MainWindow window(options(runs));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto* quit = window.findChild<QAction*>("quitAction");
    QVERIFY(quit);
    QCOMPARE(quit->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_Q));
    quit->trigger();
    QTRY_VERIFY(!window.isVisible());
  }

  void showsARecordedRunOnEveryPage() {
    QTemporaryDir runs;
    const QString run = makeRecordedRun(runs, "20261130-083449-tiny-ddp");
    MainWindowOptions o = options(runs);
    o.openRun = run;
    MainWindow window(o);
    QTRY_COMPARE(window.runList()->rowCount(), 1);
    QCOMPARE(window.currentRunDir(), run);
    MetricChart* loss = window.monitorPage()->charts().front();
    QTRY_VERIFY(loss->graph(0)->dataCount() > 10);
    QTRY_VERIFY(window.logsPage()->visibleText().contains("rank 1 of 2"));
    QVERIFY(window.logsPage()->visibleText().startsWith("── last lines of rank 1"));  // the failed rank first
  }

  void comparesTheSelectedRuns() {
    QTemporaryDir runs;
    makeRecordedRun(runs, "20261130-090000-tiny-a");
    makeRecordedRun(runs, "20261130-100000-tiny-b");
    MainWindow window(options(runs));
    QTRY_COMPARE(window.runList()->rowCount(), 2);
    auto* table = window.findChild<QTableView*>("runList");
    QAction* compare = window.findChild<QAction*>("compareAction");
    table->selectRow(0);
    QVERIFY(!compare->isEnabled());  // one run is not a comparison
    table->selectAll();
    QVERIFY(compare->isEnabled());
    compare->trigger();
    QCOMPARE(window.findChild<QTabWidget*>("pages")->currentWidget(), window.comparePage());
    QTRY_COMPARE(window.comparePage()->overlayCharts().front()->lines().size(), 2);
    QTRY_VERIFY(window.comparePage()->overlayCharts().front()->lines().front().x.size() > 10);
  }

  void anotherToolsRunIsShownOnTheMonitorAndOnlyRead() {
    // An llm.c log beside a run of ours: listed, shown on the Monitor with the charts of what it
    // has, compared, never renamed, trashed or continued.
    QTemporaryDir runs;
    makeRecordedRun(runs, "20261130-090000-tiny-a");
    QVERIFY(QDir(runs.path()).mkpath("llmc"));
    QFile log(runs.path() + "/llmc/main.log");
    QVERIFY(log.open(QIODevice::WriteOnly));
    for (int s = 1; s <= 20; ++s) log.write(QString("s:%1 trl:%2 lr:0.0006 norm:1.0\n").arg(s).arg(4.0 / s).toUtf8());
    log.close();
    MainWindow window(options(runs));
    QTRY_COMPARE(window.runList()->rowCount(), 2);
    const QString address = runs.path() + "/llmc/main.log";
    QTRY_VERIFY(window.runList()->isImported(address));
    QMenu* menu = window.runMenu({address});
    menu->deleteLater();
    for (const char* name : {"continueRun", "renameRun", "deleteRuns"})
      QVERIFY2(!menu->findChild<QAction*>(name)->isEnabled(), name);
    window.showRun(address);
    MonitorPage* monitor = window.monitorPage();
    QCOMPARE(window.findChild<QTabWidget*>("pages")->currentWidget(), monitor);
    QTRY_COMPARE(monitor->chart("loss")->graph(0)->dataCount(), 20);
    QTRY_COMPARE(monitor->chart("grad_norm")->graph(0)->dataCount(), 20);
    // What llm.c does not log has no chart: no throughput, no devices.
    QVERIFY(monitor->isChartShown("loss") && monitor->isChartShown("lr"));
    QVERIFY(!monitor->isChartShown("tokens_per_s"));
    QVERIFY(!monitor->isChartShown("device_util") && !monitor->isChartShown("device_memory"));
    QVERIFY(QFileInfo::exists(address));
    // The charts chosen by name are kept for the next start.
    monitor->setChartNames(MonitorPage::defaultChartNames() << "step_ms");
    // Given to --open from outside the runs root, the same.
    QTemporaryDir elsewhere;
    QVERIFY(QFile::copy(address, elsewhere.path() + "/main.log"));
    MainWindowOptions opened = options(runs);
    opened.openRun = elsewhere.path() + "/main.log";
    MainWindow second(opened);
    QCOMPARE(second.findChild<QTabWidget*>("pages")->currentWidget(), second.monitorPage());
    QTRY_COMPARE(second.monitorPage()->chart("loss")->graph(0)->dataCount(), 20);
    QCOMPARE(second.monitorPage()->chartNames(), MonitorPage::defaultChartNames() << "step_ms");
    // A run of ours has step time: its chart by name is shown there.
    second.showRun(runs.path() + "/20261130-090000-tiny-a");
    QTRY_VERIFY(second.monitorPage()->isChartShown("step_ms"));
    QVERIFY(second.monitorPage()->isChartShown("tokens_per_s"));
  }

  void openFolderListsAFolderOfRunsAndComparesThem() {
    // --open FOLDER (and File > Open folder…): a TrainDeck run, a Lightning CSV and an llm.c log
    // in a folder outside the runs root are listed beside its runs and shown on Compare.
    QTemporaryDir runs, folder, empty;
    makeRecordedRun(runs, "20261130-090000-in-root");
    makeRecordedRun(folder, "20261130-100000-elsewhere");
    QVERIFY(QDir(folder.path()).mkpath("lightning_logs/version_0"));
    QFile csv(folder.path() + "/lightning_logs/version_0/metrics.csv");
    QVERIFY(csv.open(QIODevice::WriteOnly));
    csv.write("epoch,step,train_loss\n0,9,2.5\n0,19,2.0\n1,29,1.5\n");
    csv.close();
    QVERIFY(QDir(folder.path()).mkpath("llmc"));
    QFile log(folder.path() + "/llmc/main.log");
    QVERIFY(log.open(QIODevice::WriteOnly));
    for (int s = 1; s <= 20; ++s) log.write(QString("s:%1 trl:%2 lr:0.0006 norm:1.0\n").arg(s).arg(4.0 / s).toUtf8());
    log.close();
    MainWindowOptions opened = options(runs);
    opened.openRun = folder.path();
    MainWindow window(opened);
    QCOMPARE(window.runList()->rowCount(), 4);
    QVERIFY(window.runList()->rowOfPath(folder.path() + "/20261130-100000-elsewhere") >= 0);
    QVERIFY(window.runList()->isImported(folder.path() + "/llmc/main.log"));
    QVERIFY(window.runList()->isImported(folder.path() + "/lightning_logs/version_0"));
    QCOMPARE(window.findChild<QTabWidget*>("pages")->currentWidget(), window.comparePage());
    QTRY_COMPARE(window.comparePage()->overlayCharts().front()->lines().size(), 3);
    // In the File menu; a folder with nothing readable is named in a message.
    QAction* openFolder = window.findChild<QAction*>("openFolderAction");
    QVERIFY(openFolder != nullptr);
    QVERIFY(window.menuBar()->actions().front()->menu()->actions().contains(openFolder));
    window.openFolder(empty.path());
    auto* message = window.findChild<QMessageBox*>("problemMessage");
    QVERIFY(message != nullptr);
    QVERIFY2(message->text().contains(empty.path()) && message->text().contains("trainer_state.json"),
             qPrintable(message->text()));
    QCOMPARE(window.runList()->rowCount(), 4);
  }

  // The demo preset's data, made in `data` from a tiny corpus.
  static bool makeDemoData(const QTemporaryDir& data) {
    useDataDir(data);
    const QString corpus = QDir(data.path()).filePath("corpus.txt");
    QFile text(corpus);
    if (!text.open(QIODevice::WriteOnly)) return false;
    for (int i = 0; i < 400; ++i)
      text.write(QString("the deck trains model %1 and watches the loss fall\n%\n").arg(i).toUtf8());
    text.close();
    return QProcess::execute(TRAINDECK_TRAIN_BIN, {"prepare", "--tokenizer", "byte", "--out", data.path() + "/demo",
                                                   "--val-fraction", "0.1", "--doc-separator", "%", corpus}) == 0;
  }

  void startsFollowsAndStopsAJob() {
    // The demo preset, with its data made here from a tiny corpus, started from the window.
    QTemporaryDir data, runs;
    QVERIFY(makeDemoData(data));
    MainWindow window(options(runs));
    window.openConfig("demo-cpu");
    QTRY_VERIFY(window.setupPage()->isStartable());
    const QString run = window.startRun({"--set", "schedule.max_steps=100000", "--set", "model.n_layer=2", "--set",
                                         "model.n_embd=64", "--set", "checkpoint.every=0"});
    QVERIFY(!run.isEmpty());
    MetricChart* loss = window.monitorPage()->charts().front();
    QTRY_VERIFY_WITH_TIMEOUT(loss->graph(0)->dataCount() >= 3, 60000);
    QTRY_VERIFY_WITH_TIMEOUT(window.logsPage()->visibleText().contains("all 2 ranks arrived"), 10000);
    QVERIFY(window.findChild<QAction*>("stopAction")->isEnabled());
    window.stopRun();
    QTRY_COMPARE_WITH_TIMEOUT(window.shownJob()->state(), Job::State::Finished, 60000);
    QVERIFY(!window.findChild<QAction*>("stopAction")->isEnabled());
    QFile json(run + "/run.json");
    QVERIFY(json.open(QIODevice::ReadOnly));
    QVERIFY(json.readAll().contains("\"status\":\"stopped\""));
    const QStringList checkpoints = QDir(run + "/checkpoints").entryList({"step-*"}, QDir::Dirs);
    QVERIFY(!checkpoints.isEmpty());
    QVERIFY(QFile::exists(run + "/checkpoints/" + checkpoints.last() + "/COMPLETE"));
  }

  void stopActsOnTheRunShownAndReattachesAfterARestart() {
    // Two runs going at once; Stop on the one shown stops that one only. The other goes on when
    // the window closes, and a new window finds it and stops it. A finished run has no Stop.
    QTemporaryDir data, runs;
    QVERIFY(makeDemoData(data));
    const QStringList small = {"--set", "schedule.max_steps=100000", "--set", "model.n_layer=1",
                               "--set", "model.n_embd=32",           "--set", "strategy.nproc_per_node=1",
                               "--set", "checkpoint.every=0"};
    const QString finished = makeRecordedRun(runs, "20261130-083449-tiny-ddp");
    QString first, second;
    {
      MainWindow window(options(runs));
      QTRY_VERIFY(window.setupPage()->isStartable());
      first = window.startRun(small);
      second = window.startRun(small);
      QVERIFY(!first.isEmpty() && !second.isEmpty() && first != second);
      QCOMPARE(window.currentRunDir(), second);  // a new run is the one shown
      QTRY_COMPARE_WITH_TIMEOUT(runStatus(first), std::string("running"), 60000);
      QTRY_COMPARE_WITH_TIMEOUT(runStatus(second), std::string("running"), 60000);
      window.showRun(first);
      QAction* stop = window.findChild<QAction*>("stopAction");
      QVERIFY(stop->isEnabled());
      stop->trigger();
      QTRY_COMPARE_WITH_TIMEOUT(runStatus(first), std::string("stopped"), 60000);
      QCOMPARE(runStatus(second), std::string("running"));
      QTRY_VERIFY(!stop->isEnabled());  // the run shown has ended
      window.showRun(finished);
      QVERIFY(!stop->isEnabled() && !window.findChild<QAction*>("killAction")->isEnabled());
      window.showRun(second);
      QVERIFY(stop->isEnabled());
    }
    QCOMPARE(runStatus(second), std::string("running"));  // the window closed; the run goes on
    MainWindow reopened(options(runs));
    QVERIFY(reopened.jobs()->jobFor(second) && reopened.jobs()->jobFor(second)->isActive());
    QVERIFY(!reopened.jobs()->jobFor(first));
    reopened.showRun(second);
    QAction* stop = reopened.findChild<QAction*>("stopAction");
    QVERIFY(stop->isEnabled());
    stop->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(runStatus(second), std::string("stopped"), 60000);
    QTRY_VERIFY(!stop->isEnabled());
  }

  void theStatusIsTheSameInTheHeaderTheProgressAndTheList() {
    QTemporaryDir data, runs;
    QVERIFY(makeDemoData(data));
    const QString failed = makeRecordedRun(runs, "20261130-083449-tiny-ddp");
    MainWindow window(options(runs));
    auto* header = window.findChild<QLabel*>("runLabel");
    auto* eta = window.findChild<QLabel*>("eta");
    RunListModel* list = window.runList();
    QVERIFY(header && eta && list);
    const auto listed = [&](const QString& dir) {
      const int row = list->rowOfPath(dir);
      return row >= 0 ? list->data(list->index(row, RunListModel::StatusColumn)).toString() : QString();
    };
    // The header and the progress text say what the list says; an ended run has no time left.
    const auto agree = [&](const QString& dir, const QString& status) {
      const bool ended = status != "running" && status != "starting";
      return listed(dir) == status && header->text().contains(" · " + status + " · ") &&
             (ended ? eta->text().endsWith("· " + status) : !eta->text().contains("stopped")) &&
             !header->text().contains("unknown");
    };
    window.showRun(failed);
    QTRY_VERIFY2(agree(failed, "failed"), qPrintable(header->text() + " | " + eta->text()));
    const QString run = window.startRun({"--set", "schedule.max_steps=100000", "--set", "model.n_layer=1", "--set",
                                         "model.n_embd=32", "--set", "strategy.nproc_per_node=1"});
    QVERIFY(!run.isEmpty());
    QVERIFY2(!header->text().contains("unknown"), qPrintable(header->text()));  // "starting" until run.json
    // The list too, from the moment the run's row appears (before or after run.json exists).
    QTRY_VERIFY(list->rowOfPath(run) >= 0);
    QVERIFY2(listed(run) == "starting" || listed(run) == "running", qPrintable(listed(run)));
    QTRY_VERIFY_WITH_TIMEOUT(agree(run, "running"), 60000);
    QTRY_VERIFY_WITH_TIMEOUT(eta->text().contains("%"), 60000);
    window.findChild<QAction*>("stopAction")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(agree(run, "stopped (asked by you)"), 60000);  // why it stopped, too
    QVERIFY2(!eta->text().contains("left"), qPrintable(eta->text()));
  }

  void theRunMenuResumesRenamesCopiesAndTrashes() {
    QTemporaryDir data, runs;
    QVERIFY(makeDemoData(data));
    MainWindow window(options(runs));
    QTRY_VERIFY(window.setupPage()->isStartable());
    const QString run =
        window.startRun({"--set", "schedule.max_steps=100000", "--set", "model.n_layer=1", "--set", "model.n_embd=32",
                         "--set", "strategy.nproc_per_node=1", "--set", "checkpoint.every=0"});
    QTRY_VERIFY_WITH_TIMEOUT(trainSteps(run).size() >= 3, 60000);
    const auto menuAction = [&](const char* name) {
      QMenu* menu = window.runMenu({run});
      menu->deleteLater();
      return menu->findChild<QAction*>(name);
    };
    QVERIFY(!menuAction("continueRun")->isEnabled());  // it is going
    QVERIFY(!menuAction("deleteRuns")->isEnabled());
    window.findChild<QAction*>("stopAction")->trigger();  // every rank saves a checkpoint
    QTRY_COMPARE_WITH_TIMEOUT(runStatus(run), std::string("stopped"), 60000);
    QTRY_VERIFY(menuAction("continueRun")->isEnabled());  // a run of this machine: it resumes here
    const qint64 stoppedAt = trainSteps(run).back();

    // Resume: the same folder goes on from its checkpoint, one curve, no step twice.
    menuAction("continueRun")->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(runStatus(run), std::string("running"), 60000);
    QTRY_VERIFY_WITH_TIMEOUT(trainSteps(run).back() > stoppedAt + 2, 60000);
    const QVector<qint64> steps = trainSteps(run);
    QCOMPARE(QSet<qint64>(steps.begin(), steps.end()).size(), steps.size());
    window.findChild<QAction*>("stopAction")->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(runStatus(run), std::string("stopped"), 60000);
    QTRY_VERIFY_WITH_TIMEOUT(!window.jobs()->jobFor(run)->isActive(), 30000);  // its supervisor gone too

    // Rename (an ended run's run.json), Copy config, Move to trash.
    QCOMPARE(window.renameRun(run, "  lr sweep A "), QString());
    RunListModel* list = window.runList();
    QTRY_COMPARE(list->runAt(list->rowOfPath(run)).name, QString("lr sweep A"));
    menuAction("copyRunConfig")->trigger();
    QVERIFY(QGuiApplication::clipboard()->text().contains("max_steps: 100000"));
    QTemporaryDir home;  // the desktop's trash, in $XDG_DATA_HOME/Trash
    const QByteArray oldDataHome = qgetenv("XDG_DATA_HOME");
    qputenv("XDG_DATA_HOME", home.path().toUtf8());
    window.trashRuns({run});
    qputenv("XDG_DATA_HOME", oldDataHome);
    QVERIFY(!QFileInfo::exists(run));
    QVERIFY(QFileInfo::exists(home.filePath("Trash/files/" + QFileInfo(run).fileName() + "/metrics.jsonl")));
    QTRY_COMPARE(list->rowOfPath(run), -1);
  }

  void aKilledRunSaysKilledEverywhereAndCanBeUsedAgain() {
    // Kill (Ctrl+Shift+K): run.json, the list, the header and the progress say "killed" at once,
    // here and after a restart; the run can be resumed, renamed and trashed.
    QTemporaryDir data, runs;
    QVERIFY(makeDemoData(data));
    QString run;
    {
      MainWindow window(options(runs));
      QTRY_VERIFY(window.setupPage()->isStartable());
      run = window.startRun({"--set", "schedule.max_steps=100000", "--set", "model.n_layer=1", "--set",
                             "model.n_embd=32", "--set", "strategy.nproc_per_node=1", "--set", "checkpoint.every=2"});
      QTRY_VERIFY_WITH_TIMEOUT(!CheckpointSync::newestCheckpoint(run).isEmpty(), 180000);  // a complete one
      QAction* kill = window.findChild<QAction*>("killAction");
      QCOMPARE(kill->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_K));
      QVERIFY(kill->isEnabled());
      kill->trigger();
      QTRY_COMPARE_WITH_TIMEOUT(runStatus(run), std::string("killed"), 10000);
      auto* header = window.findChild<QLabel*>("runLabel");
      auto* eta = window.findChild<QLabel*>("eta");
      RunListModel* list = window.runList();
      QTRY_COMPARE(list->data(list->index(list->rowOfPath(run), RunListModel::StatusColumn)).toString(),
                   QString("killed (asked by you)"));
      QTRY_VERIFY2(header->text().contains(" · killed (asked by you) · "), qPrintable(header->text()));
      QTRY_VERIFY2(eta->text().endsWith("· killed (asked by you)") && !eta->text().contains("left"),
                   qPrintable(eta->text()));
      QTRY_VERIFY(!kill->isEnabled() && !window.findChild<QAction*>("stopAction")->isEnabled());
      QMenu* menu = window.runMenu({run});
      for (const char* name : {"continueRun", "renameRun", "deleteRuns"})
        QVERIFY2(menu->findChild<QAction*>(name)->isEnabled(), name);
      delete menu;
    }
    MainWindow reopened(options(runs));  // after a restart: the same verdict, nothing followed
    QVERIFY(!reopened.jobs()->jobFor(run));
    QCOMPARE(runStatus(run), std::string("killed"));
    QCOMPARE(reopened.renameRun(run, "killed once"), QString());
    QCOMPARE(reopened.jobs()->continueRun(run).error, QString());  // from its newest checkpoint
    QTRY_COMPARE_WITH_TIMEOUT(runStatus(run), std::string("running"), 60000);
    reopened.jobs()->jobFor(run)->stop();
    QTRY_COMPARE_WITH_TIMEOUT(runStatus(run), std::string("stopped"), 60000);
  }

  void aLongRunNameNeverWidensTheWindow() {
    // A 190-character name (and an id made from it): the window's minimum width stays small, the
    // Name column keeps a width of its own (the name elided, whole in its tooltip) and the
    // Status column stays in view, also after a restart.
    QTemporaryDir data, runs;
    useDataDir(data);
    const QString name = QString("a very long run name about tokenizers and learning rates ").repeated(4).left(190);
    const QString id = "20261130-083449-" + QString(name).replace(' ', '-').left(150);
    const QString dir = makeRecordedRun(runs, id);
    QFile json(dir + "/run.json");
    QVERIFY(json.open(QIODevice::WriteOnly));
    json.write(QString(R"({"id":"%1","name":"%2","created":"2026-11-30T08:34:49Z","status":"finished","step":37})")
                   .arg(id, name)
                   .toUtf8());
    json.close();
    const auto check = [&](MainWindow& window, const QString& shot) {
      window.resize(1280, 800);
      window.show();
      QVERIFY(QTest::qWaitForWindowExposed(&window));
      window.showRun(dir);
      auto* list = window.findChild<QTableView*>("runList");
      QTRY_VERIFY(list->model()->rowCount() == 1);
      QVERIFY2(window.minimumSizeHint().width() < 1000, qPrintable(QString::number(window.minimumSizeHint().width())));
      QVERIFY2(window.minimumSize().width() < 1000, qPrintable(QString::number(window.minimumSize().width())));
      QVERIFY(window.width() <= 1280);
      const int nameWidth = list->columnWidth(RunListModel::NameColumn);
      QVERIFY2(nameWidth < 400, qPrintable(QString::number(nameWidth)));
      QVERIFY(list->columnViewportPosition(RunListModel::StatusColumn) < list->viewport()->width());
      QVERIFY(!list->horizontalHeader()->isHidden());
      QCOMPARE(list->model()->index(0, RunListModel::NameColumn).data(Qt::ToolTipRole).toString(), name);
      // To look at: once the Monitor page has drawn the run.
      QTRY_VERIFY(window.monitorPage()->charts().front()->graph(0)->dataCount() > 0);
      QCoreApplication::processEvents();  // the figures' relayout after the redraw
      QVERIFY(window.grab().save(QDir(TRAINDECK_SCREENSHOT_DIR).filePath(shot)));
      window.close();
    };
    QVERIFY(QDir().mkpath(TRAINDECK_SCREENSHOT_DIR));
    {
      MainWindow window(options(runs));
      check(window, "long-run-name.png");
    }
    MainWindow reopened(options(runs));
    check(reopened, "long-run-name-reopened.png");
  }

  void aRemoteStartIsListedShownAndSaidOnItsHost() {
    // A remote start still connecting (its proxy hangs): the header says "starting · on <host>",
    // the list has its row from the start on (before any run.json) and highlights it, not the
    // run shown before. Cancelled, it says failed on its host, as after a restart.
    QTemporaryDir data, runs;
    QVERIFY(makeDemoData(data));
    const QString before = makeRecordedRun(runs, "20261130-083449-tiny-ddp");
    MainWindow window(options(runs));
    window.resize(1280, 800);
    window.showRun(before);
    QTRY_VERIFY(window.setupPage()->isStartable());
    auto* yaml = window.findChild<QPlainTextEdit*>("yaml");
    yaml->setPlainText(yaml->toPlainText() +
                       "\ntarget:\n  kind: ssh\n  host: nobody@127.0.0.1:1\n  proxy_command: sleep 120\n");
    QTRY_VERIFY(window.setupPage()->config().target.kind == TargetKind::Ssh);
    const QString run = window.startRun();
    QVERIFY(!run.isEmpty());
    auto* header = window.findChild<QLabel*>("runLabel");
    auto* list = window.findChild<QTableView*>("runList");
    const auto selected = [&] {
      const QModelIndexList rows = list->selectionModel()->selectedRows();
      return rows.size() == 1 ? rows.front().data(RunListModel::PathRole).toString() : QString();
    };
    QVERIFY2(selected() != before, "the run shown before stays highlighted");
    QTRY_VERIFY2(header->text().contains(" · starting · on nobody@127.0.0.1:1 · "), qPrintable(header->text()));
    QTRY_COMPARE(window.runList()->rowOfPath(run) >= 0, true);
    RunListModel* model = window.runList();
    QCOMPARE(model->data(model->index(model->rowOfPath(run), RunListModel::StatusColumn)).toString(),
             QString("starting"));
    QVERIFY(model->data(model->index(model->rowOfPath(run), RunListModel::WhereColumn))
                .toString()
                .startsWith("nobody@127.0.0.1:1"));
    QTRY_COMPARE(selected(), run);
    QVERIFY(window.grab().save(QDir(TRAINDECK_SCREENSHOT_DIR).filePath("remote-start-listed.png")));
    window.findChild<QAction*>("stopAction")->trigger();  // cancels the start
    QTRY_VERIFY_WITH_TIMEOUT(!window.jobs()->jobFor(run)->isActive(), 20000);
    QTRY_VERIFY2(!header->text().contains("this machine") && header->text().contains(" · on nobody@127.0.0.1:1 · "),
                 qPrintable(header->text()));
  }

  void anUnreachableSshTargetSaysWhy() {
    QTemporaryDir data, runs;
    QVERIFY(makeDemoData(data));
    MainWindow window(options(runs));
    QTRY_VERIFY(window.setupPage()->isStartable());
    auto* yaml = window.findChild<QPlainTextEdit*>("yaml");
    // Nothing listens on port 1 here: the start fails at the connection, with a sentence.
    yaml->setPlainText(yaml->toPlainText() + "\ntarget:\n  kind: ssh\n  host: nobody@127.0.0.1:1\n");
    QTRY_VERIFY(window.setupPage()->config().target.kind == TargetKind::Ssh);
    QVERIFY(window.setupPage()->isStartable());
    const QString run = window.startRun();
    QVERIFY(!run.isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(window.findChild<QMessageBox*>("problemMessage"), 30000);
    const QString text = window.findChild<QMessageBox*>("problemMessage")->text();
    QVERIFY2(text.contains("127.0.0.1"), qPrintable(text));
    QCOMPARE(runStatus(run), std::string("failed"));
    QVERIFY(!window.findChild<QAction*>("stopAction")->isEnabled());
    // On its host, not "this machine": here and after a restart (no job, no remote.json).
    auto* header = window.findChild<QLabel*>("runLabel");
    QTRY_VERIFY2(header->text().contains(" · failed · on nobody@127.0.0.1:1 · "), qPrintable(header->text()));
    MainWindow reopened(options(runs));
    reopened.showRun(run);
    QVERIFY2(reopened.findChild<QLabel*>("runLabel")->text().contains(" · failed · on nobody@127.0.0.1:1 · "),
             qPrintable(reopened.findChild<QLabel*>("runLabel")->text()));
  }
};

}  // namespace traindeck

QTEST_MAIN(traindeck::MainWindowTest)
#include "main_window_test.moc"
