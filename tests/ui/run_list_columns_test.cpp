// The run list's metric columns as the user meets them, offscreen: a metric picked by name in the
// header's "Metric columns" menu gives its last, best and best-step columns, which sort as numbers
// with the runs that never logged it last in either order, and which a restart brings back with
// the sort (QSettings, WindowState). The folders opened in the main window are listed again after
// a restart until File > Close opened folders.
#include <QDir>
#include <QFile>
#include <QHeaderView>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include "main_window.h"
#include "run_list_panel.h"
#include "runs/run_list_model.h"
#include "window_state.h"

namespace traindeck {

namespace {

void makeRun(const QString& root, const QString& id, const QString& name, const QByteArray& metrics) {
  const QString dir = QDir(root).filePath(id);
  QVERIFY(QDir().mkpath(dir));
  QFile json(dir + "/run.json");
  QVERIFY(json.open(QIODevice::WriteOnly));
  json.write(QString(R"({"id":"%1","name":"%2","status":"finished","created":"2026-12-01T10:00:00Z"})")
                 .arg(id, name)
                 .toUtf8());
  QFile file(dir + "/metrics.jsonl");
  QVERIFY(file.open(QIODevice::WriteOnly));
  file.write(metrics);
}

QByteArray lossLines(double first, double lowest) {
  return QString(
             "{\"kind\":\"train\",\"time\":1,\"step\":1,\"loss\":%1}\n"
             "{\"kind\":\"train\",\"time\":2,\"step\":2,\"loss\":%2}\n")
      .arg(first)
      .arg(lowest)
      .toUtf8();
}

QStringList namesInViewOrder(const QTableView* table) {
  QStringList names;
  for (int r = 0; r < table->model()->rowCount(); ++r)
    names << table->model()->index(r, RunListModel::NameColumn).data().toString();
  return names;
}

}  // namespace

class RunListColumnsTest : public QObject {
  Q_OBJECT
  QTemporaryDir m_home;

 private slots:
  void initTestCase() {
    QVERIFY(m_home.isValid());
    qputenv("XDG_CONFIG_HOME", QFile::encodeName(m_home.path() + "/config"));
    qputenv("XDG_CACHE_HOME", QFile::encodeName(m_home.path() + "/cache"));
    QCoreApplication::setOrganizationName("TrainDeckTest");
  }

  void metricColumnsArePickedByNameSortedAndRestored() {
    QTemporaryDir root, cache;
    makeRun(root.path(), "20261201-100000-a", "ten", lossLines(11, 10));
    makeRun(root.path(), "20261201-100001-b", "nine", lossLines(12, 9));
    makeRun(root.path(), "20261201-100002-c", "two", lossLines(3, 2));  // as text "2" sorts after "10"
    makeRun(root.path(), "20261201-100003-d", "none", "{\"kind\":\"eval\",\"time\":1,\"step\":1,\"val_loss\":4}\n");
    QSettings().clear();
    QMainWindow window;
    auto* splitter = new QSplitter(&window);
    auto* pages = new QTabWidget(splitter);
    RunListModel model(nullptr, cache.path());
    auto* panel = new RunListPanel(&model, root.path(), splitter);
    model.setRunsRoot(root.path());
    QTRY_VERIFY(model.runIndex()->idle());
    QTRY_VERIFY(model.runIndex()->metricNames().contains("loss"));

    QMenu* menu = panel->columnMenu();
    auto* metrics = menu->findChild<QMenu*>("metricColumnsMenu");
    QVERIFY(metrics != nullptr);
    QAction* loss = metrics->findChild<QAction*>("metricColumn:loss");
    QVERIFY(loss != nullptr && !loss->isChecked());
    QVERIFY(metrics->findChild<QAction*>("metricColumn:val_loss") != nullptr);
    loss->setChecked(true);
    delete menu;
    QCOMPARE(model.metricColumns(), defaultMetricColumns("loss"));
    QCOMPARE(QSettings().value(RunListPanel::kMetricColumnsKey).toStringList(),
             QStringList({"loss last", "loss min", "loss best step"}));

    QTableView* table = panel->table();
    const int lossMin = model.firstMetricColumn() + 1;
    QCOMPARE(table->model()->headerData(lossMin, Qt::Horizontal).toString(), QString("loss min"));
    table->sortByColumn(lossMin, Qt::AscendingOrder);
    QCOMPARE(namesInViewOrder(table), QStringList({"two", "nine", "ten", "none"}));
    table->sortByColumn(lossMin, Qt::DescendingOrder);
    QCOMPARE(namesInViewOrder(table), QStringList({"ten", "nine", "two", "none"}));
    QCOMPARE(table->model()->index(0, lossMin + 1).data().toLongLong(), 2);  // best step

    // A restart: the columns from QSettings, the sort from WindowState, by the column's title.
    QSettings settings;
    WindowState({.window = &window, .splitter = splitter, .pages = pages, .runList = panel}).save(settings, {}, {});
    QMainWindow again;
    auto* splitterAgain = new QSplitter(&again);
    auto* pagesAgain = new QTabWidget(splitterAgain);
    RunListModel modelAgain(nullptr, cache.path());
    auto* panelAgain = new RunListPanel(&modelAgain, root.path(), splitterAgain);
    modelAgain.setRunsRoot(root.path());
    WindowState({.window = &again, .splitter = splitterAgain, .pages = pagesAgain, .runList = panelAgain})
        .restoreLayout(settings);
    QCOMPARE(modelAgain.metricColumns(), defaultMetricColumns("loss"));
    const QHeaderView* header = panelAgain->table()->horizontalHeader();
    QCOMPARE(header->sortIndicatorSection(), lossMin);
    QCOMPARE(header->sortIndicatorOrder(), Qt::DescendingOrder);
    QCOMPARE(namesInViewOrder(panelAgain->table()), QStringList({"ten", "nine", "two", "none"}));
    QCOMPARE(modelAgain.metricsBytesRead(), qint64(0));  // drawn from the index's cache

    // Unchecking a metric's column removes it; unchecking the metric removes the rest.
    menu = panelAgain->columnMenu();
    menu->findChild<QAction*>("column:loss best step")->setChecked(false);
    delete menu;
    QCOMPARE(metricColumnTitles(modelAgain.metricColumns()), QStringList({"loss last", "loss min"}));
    menu = panelAgain->columnMenu();
    menu->findChild<QAction*>("metricColumn:loss")->setChecked(false);
    delete menu;
    QVERIFY(modelAgain.metricColumns().isEmpty());
    QVERIFY(QSettings().value(RunListPanel::kMetricColumnsKey).toStringList().isEmpty());
  }

  // Showing a run (a click elsewhere, a start) selects it alone: runs selected before for Compare
  // are let go, also when the run shown is already the current row or its row comes later.
  void showingARunSelectsItAlone() {
    QTemporaryDir root, cache;
    makeRun(root.path(), "20261201-100000-a", "a", lossLines(3, 2));
    makeRun(root.path(), "20261201-100001-b", "b", lossLines(3, 2));
    QSettings().clear();
    RunListModel model(nullptr, cache.path());
    RunListPanel panel(&model, root.path());
    model.setRunsRoot(root.path());
    QTRY_COMPARE(model.rowCount(), 2);
    QTableView* table = panel.table();
    const auto selectBoth = [&] {
      table->selectAll();
      table->selectionModel()->setCurrentIndex(table->model()->index(0, 0), QItemSelectionModel::NoUpdate);
      QCOMPARE(panel.selectedRunDirs().size(), 2);
    };
    selectBoth();
    const auto* proxy = qobject_cast<const QSortFilterProxyModel*>(table->model());
    const QString current = model.runAt(proxy->mapToSource(table->currentIndex()).row()).path;
    panel.selectRun(current);  // the current row already: the other is let go all the same
    QCOMPARE(panel.selectedRunDirs(), QStringList({current}));

    selectBoth();
    const QString started = root.filePath("20261201-100002-started");
    panel.selectRun(started);  // a start: its folder is listed a moment later
    makeRun(root.path(), "20261201-100002-started", "started", lossLines(3, 2));
    model.rescan();
    QTRY_COMPARE(model.rowCount(), 3);
    QTRY_COMPARE(panel.selectedRunDirs(), QStringList({started}));
  }

  void openedFoldersAreListedAgainAfterARestartUntilClosed() {
    QTemporaryDir root, folder, goneFolder;
    makeRun(folder.path(), "20261201-100000-opened", "opened", lossLines(3, 2));
    makeRun(goneFolder.path(), "20261201-100001-gone", "gone", lossLines(3, 2));
    QSettings().clear();
    MainWindowOptions options;
    options.presetDirs = {TRAINDECK_PRESETS_SOURCE_DIR};
    options.runsRoot = root.path();
    options.openRun = folder.path();  // --open
    {
      MainWindow window(options);
      window.openFolder(goneFolder.path());    // Open folder…
      window.openFolder(folder.path() + "/");  // again: listed once
      QCOMPARE(window.runList()->openedFolders(), QStringList({folder.path(), goneFolder.path()}));
      QCOMPARE(window.runList()->rowCount(), 2);
      window.close();
    }
    // A folder gone since is skipped without a word.
    QVERIFY(QDir(goneFolder.path()).removeRecursively());
    options.openRun.clear();
    {
      MainWindow again(options);
      QCOMPARE(again.runList()->openedFolders(), QStringList({folder.path()}));
      QCOMPARE(again.runList()->rowCount(), 1);
      QVERIFY(again.runList()->rowOfPath(folder.filePath("20261201-100000-opened")) >= 0);
      QVERIFY(again.findChild<QMessageBox*>() == nullptr);
      auto* close = again.findChild<QAction*>("closeOpenedFoldersAction");
      QVERIFY(close != nullptr && close->isEnabled());
      QVERIFY(again.menuBar()->actions().front()->menu()->actions().contains(close));  // in the File menu
      close->trigger();
      QCOMPARE(again.runList()->rowCount(), 0);
      QVERIFY(!close->isEnabled());
      again.close();
    }
    MainWindow closed(options);
    QVERIFY(closed.runList()->openedFolders().isEmpty());
    QCOMPARE(closed.runList()->rowCount(), 0);
    QVERIFY(!closed.findChild<QAction*>("closeOpenedFoldersAction")->isEnabled());
  }
};

}  // namespace traindeck

QTEST_MAIN(traindeck::RunListColumnsTest)
#include "run_list_columns_test.moc"
