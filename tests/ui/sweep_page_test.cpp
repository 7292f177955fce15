// The Sweep page on a sweep folder (sweep_folder_fixture.h): it lists the trials, a drag along
// an axis of the parallel coordinates filters the table and the charts, the pruning points are
// marked on the curves, the actions act on the selected trial, an unreadable sweep.json is a
// message; and in the main window, --open on a sweep folder, a trial's job on the Setup page
// and the page's screenshot.
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QtTest>

#include "config/config_io.h"
#include "main_window.h"
#include "setup_page.h"
#include "sweep_curves_chart.h"
#include "sweep_folder_fixture.h"
#include "sweep_importance_bars.h"
#include "sweep_page.h"
#include "sweep_parallel_view.h"
#include "sweep_scatter_grid.h"
#include "sweep_trial_model.h"

namespace traindeck {

using namespace test;

class SweepPageTest : public QObject {
  Q_OBJECT
  std::unique_ptr<QTemporaryDir> m_root;
  std::unique_ptr<QTemporaryDir> m_config;
  QString m_sweep;
  std::unique_ptr<SweepPage> m_page;

  int tableRows() const { return m_page->table()->model()->rowCount(); }

  // Drags along axis `axis` of the parallel coordinates from fraction `from` to `to` (0 bottom).
  void drag(int axis, double from, double to) {
    SweepParallelView* view = m_page->parallel();
    const int x = view->axisX(axis);
    QTest::mousePress(view, Qt::LeftButton, {}, QPoint(x, view->fractionY(from)));
    QMouseEvent move(QEvent::MouseMove, QPointF(x, view->fractionY(to)),
                     view->mapToGlobal(QPointF(x, view->fractionY(to))), Qt::NoButton, Qt::LeftButton, {});
    QCoreApplication::sendEvent(view, &move);
    QTest::mouseRelease(view, Qt::LeftButton, {}, QPoint(x, view->fractionY(to)));
  }

 private slots:
  void initTestCase() {
    m_config = std::make_unique<QTemporaryDir>();
    qputenv("XDG_CONFIG_HOME", m_config->path().toUtf8());
    QCoreApplication::setOrganizationName("TrainDeckTest");
  }

  void init() {
    m_root = std::make_unique<QTemporaryDir>();
    m_sweep = writeSweepFolder(m_root->path());
    m_page = std::make_unique<SweepPage>();
    m_page->resize(1100, 800);
    m_page->show();
    m_page->showSweep(m_sweep);
  }

  void cleanup() { m_page.reset(); }

  void showsEveryTrial() {
    QCOMPARE(tableRows(), 6);
    QVERIFY(m_page->header()->text().contains("6 trials"));
    QVERIFY(m_page->header()->text().contains("lr=1e-3"));  // the best, named
    QVERIFY(m_page->message()->isHidden());
    QCOMPARE(m_page->scatters()->plots().size(), std::size_t{3});
    QCOMPARE(m_page->importance()->fractions().size(), std::size_t{3});
    QCOMPARE(m_page->selectedTrial(), 0);  // the best, until another is picked
  }

  void brushingAnAxisFiltersTheTrials() {
    const SweepAxis& lr = m_page->view()->axes[0];
    // From lr = 4e-4 to 4e-3: trials 0 (1e-3), 3 (3e-3) and 4 (5e-4).
    drag(0, lr.fraction(4e-4), lr.fraction(4e-3));
    QVERIFY(m_page->filter().brushes.contains("optimizer.lr"));
    QCOMPARE(tableRows(), 3);
    QSet<int> shown;
    for (int row = 0; row < tableRows(); ++row)
      shown << m_page->table()->model()->index(row, 0).data(SweepTrialModel::kTrialRole).toInt();
    QCOMPARE(shown, QSet<int>({0, 3, 4}));
    QDir().mkpath(TRAINDECK_SCREENSHOT_DIR);  // to look at: the others faint
    QCoreApplication::processEvents();        // the charts' queued replots
    QVERIFY(m_page->grab().save(QDir(TRAINDECK_SCREENSHOT_DIR).filePath("sweep-brushed.png")));
    QCOMPARE(m_page->importance()->fractions().size(), std::size_t{3});
    // A second brush, on the metric: the trials with a val_loss, up to 3.
    const SweepAxis& metric = m_page->view()->axes.back();
    drag(3, -0.05, metric.fraction(3.0));
    QCOMPARE(tableRows(), 1);
    // A click on the lr axis clears its brush; the metric's stays.
    drag(0, 0.5, 0.5);
    QVERIFY(!m_page->filter().brushes.contains("optimizer.lr"));
    QCOMPARE(tableRows(), 1);
    m_page->clearBrushes();
    QCOMPARE(tableRows(), 6);
  }

  void curvesMarkThePruningPoints() {
    QCPGraph* pruned = m_page->curves()->prunedMarks();
    QCOMPARE(pruned->dataCount(), 2);  // trials 1 and 2, at rung 0
    for (int i = 0; i < 2; ++i) QCOMPARE(pruned->data()->at(i)->key, double(kRungTokens[0]));
    QCOMPARE(m_page->curves()->rungMarks()->dataCount(), 2 + 1 + 1 + 2);  // trials 0 to 3
  }

  void actionsActOnTheSelectedTrial() {
    QSignalSpy promote(m_page.get(), &SweepPage::promoteRequested);
    QSignalSpy run(m_page.get(), &SweepPage::runRequested);
    QSignalSpy job(m_page.get(), &SweepPage::fullRunRequested);
    auto* promoteButton = m_page->findChild<QPushButton*>("promoteTrial");
    auto* showRunButton = m_page->findChild<QPushButton*>("showTrialRun");
    QVERIFY(!promoteButton->isEnabled());  // the best finished
    m_page->selectTrial(1);                // pruned
    QVERIFY(promoteButton->isEnabled());
    promoteButton->click();
    QCOMPARE(promote.size(), 1);
    QCOMPARE(promote.front().at(0).toString(), m_sweep);
    QCOMPARE(promote.front().at(1).toString(), QString::fromStdString(m_page->view()->trials[1].record.params.id));
    m_page->findChild<QPushButton*>("showTrialRun")->click();
    QCOMPARE(run.size(), 1);
    QCOMPARE(run.front().at(0).toString(), QDir::cleanPath(m_root->path() + "/runs/trial-1"));
    auto* rerunButton = m_page->findChild<QPushButton*>("rerunTrial");
    QVERIFY(!rerunButton->isEnabled());  // pruned: Promote, not Run again
    m_page->selectTrial(4);              // failed, its run folder gone
    QVERIFY(!showRunButton->isEnabled());
    QVERIFY(rerunButton->isEnabled());
    QVERIFY(!promoteButton->isEnabled());
    QSignalSpy rerun(m_page.get(), &SweepPage::rerunRequested);
    rerunButton->click();
    QCOMPARE(rerun.size(), 1);
    QCOMPARE(rerun.front().at(1).toString(), QString::fromStdString(m_page->view()->trials[4].record.params.id));
    m_page->findChild<QPushButton*>("startFullRun")->click();
    QCOMPARE(job.size(), 1);
    QCOMPARE(loadConfigText(job.front().at(0).toString().toStdString()).config.optimizer.lr, 5e-4);
    // A click on a trial's line in the parallel coordinates selects it.
    SweepParallelView* parallel = m_page->parallel();
    const auto& axes = m_page->view()->axes;
    const SweepTrialView& trial3 = m_page->view()->trials[3];
    const double y0 = parallel->fractionY(axes[0].fraction(axes[0].valueOf(trial3)));
    const double y1 = parallel->fractionY(axes[1].fraction(axes[1].valueOf(trial3)));
    QTest::mouseClick(
        parallel, Qt::LeftButton, {},
        QPoint((parallel->axisX(0) + parallel->axisX(1)) / 2, static_cast<int>(std::lround((y0 + y1) / 2))));
    QCOMPARE(m_page->selectedTrial(), 3);
    // Picking a row in the table selects its trial.
    m_page->table()->selectRow(0);
    QCOMPARE(m_page->selectedTrial(), m_page->table()->model()->index(0, 0).data(SweepTrialModel::kTrialRole).toInt());
  }

  void anUnreadableSweepJsonIsAClearMessage() {
    writeText(m_sweep + "/sweep.json", "{\"schema\":1,\"trials\":[{\"id\":");
    QTRY_VERIFY_WITH_TIMEOUT(!m_page->message()->isHidden(), 5000);
    QVERIFY(m_page->message()->text().contains("not valid JSON"));
    QCOMPARE(tableRows(), 0);
    m_page->grab();  // draws without trials
    // A folder that is no sweep at all.
    m_page->showSweep(m_root->path());
    QVERIFY(m_page->message()->text().contains("no sweep.json"));
  }

  void theMainWindowOpensASweepFolder() {
    m_page.reset();
    MainWindowOptions options;
    options.presetDirs = {TRAINDECK_PRESETS_SOURCE_DIR};
    options.runsRoot = m_root->path() + "/runs";
    options.trainBinary = "traindeck-train";
    options.openRun = m_sweep;
    MainWindow window(options);
    window.resize(1400, 900);
    window.show();
    SweepPage* page = window.sweepPage();
    QCOMPARE(page->sweepDir(), m_sweep);
    QCOMPARE(page->table()->model()->rowCount(), 6);
    QVERIFY(page->isVisible());
    QVERIFY(window.saveScreenshots(TRAINDECK_SCREENSHOT_DIR));
    QVERIFY(QFileInfo(QDir(TRAINDECK_SCREENSHOT_DIR).filePath("sweep.png")).size() > 20000);
    // A trial's job opens on the Setup page as a new job, not saved.
    page->selectTrial(3);
    page->findChild<QPushButton*>("startFullRun")->click();
    QVERIFY(window.setupPage()->isVisible());
    QVERIFY(window.setupPage()->filePath().isEmpty());
    QCOMPARE(window.setupPage()->config().optimizer.lr, 3e-3);
    // Closed and opened again, the window shows the same sweep.
    window.close();
    options.openRun.clear();
    MainWindow reopened(options);
    QCOMPARE(reopened.sweepPage()->sweepDir(), m_sweep);
    QCOMPARE(reopened.sweepPage()->table()->model()->rowCount(), 6);
  }
};

}  // namespace traindeck

QTEST_MAIN(traindeck::SweepPageTest)
#include "sweep_page_test.moc"
