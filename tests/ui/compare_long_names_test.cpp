// Issue 40: a run with a 190-character name widened Compare's summary, config diff and small
// multiples past the screen. Each now keeps to its room: the name is elided in the tables' cells,
// the config diff's header and the small multiples' headings, and is whole in their tooltips.
#include <QApplication>
#include <QHeaderView>
#include <QScreen>
#include <QTableView>
#include <QtTest>

#include "compare_chart.h"
#include "compare_page.h"
#include "compare_sweep.h"
#include "compare_tables.h"
#include "runs/comparison_summary_model.h"

using namespace traindeck;
using namespace traindeck::test;

namespace {

// 190 characters, as a sweep tool writes a name from every parameter.
QString longName() {
  QString name = "gpt2-small-wikitext-lr3e-4-warmup2000-cosine-wd0.1-bs512-seq1024-zero2-bf16";
  while (name.size() < 190) name += "-and-one-more-parameter";
  return name.left(190);
}

}  // namespace

class CompareLongNamesTest : public QObject, public CompareSweepFixture {
  Q_OBJECT

 private slots:
  void initTestCase() {
    writeSweepRoot();
    // Two runs of the sweep, one renamed to the long name.
    writeText(m_sweep[1] + "/run.json",
              QString(R"({"id":"lr0-seed2","name":"%1","status":"finished"})").arg(longName()).toUtf8());
  }
  void init() { makePage(); }
  void cleanup() { dropPage(); }

  void aLongNameStaysInItsRoom() {
    open({m_sweep[0], m_sweep[1]});
    QCOMPARE(m_comparison->run(1).label, longName());
    const int room = m_page->width();
    const int widest = m_page->fontMetrics().averageCharWidth() * CompareTables::kMaxColumnChars;

    QTableView* summary = m_page->tables()->summaryView();
    QTRY_COMPARE(summary->model()->rowCount(), 2);
    const int nameColumn = ComparisonSummaryModel::RunColumn;
    QVERIFY2(summary->columnWidth(nameColumn) <= widest, qPrintable(QString::number(summary->columnWidth(nameColumn))));
    int allColumns = 0;
    for (int c = 0; c < summary->model()->columnCount(); ++c) allColumns += summary->columnWidth(c);
    QVERIFY2(allColumns < 2 * room, qPrintable(QString::number(allColumns)));
    bool tipHasName = false;
    for (int r = 0; r < 2; ++r)
      tipHasName |= summary->model()->index(r, nameColumn).data(Qt::ToolTipRole).toString().startsWith(longName());
    QVERIFY(tipHasName);

    QTableView* diff = m_page->tables()->diffView();
    QTRY_VERIFY(diff->model()->columnCount() == 3);  // the key, then a column per run
    QVERIFY2(diff->columnWidth(2) <= widest, qPrintable(QString::number(diff->columnWidth(2))));
    QVERIFY(diff->model()->headerData(2, Qt::Horizontal, Qt::ToolTipRole).toString().startsWith(longName()));

    m_page->setMode(ComparePage::Mode::SmallMultiples);
    m_page->redrawNow();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    const QList<CompareChart*> grid = m_page->gridCharts();
    QCOMPARE(grid.size(), 2);
    QVERIFY(grid[1]->title().startsWith(longName()));
    QVERIFY2(grid[1]->shownTitle().size() < grid[1]->title().size(), qPrintable(grid[1]->shownTitle()));
    QVERIFY(grid[1]->shownTitle().contains(QChar(0x2026)));  // …
    for (CompareChart* chart : grid) {
      const int right = chart->mapTo(m_page.get(), QPoint(chart->width(), 0)).x();
      QVERIFY2(right <= room, qPrintable(QString("chart ends at %1 of %2").arg(right).arg(room)));
      QVERIFY(QFontMetrics(chart->font()).horizontalAdvance(chart->shownTitle()) <= chart->width());
    }
    QVERIFY2(m_page->minimumSizeHint().width() < room, qPrintable(QString::number(m_page->minimumSizeHint().width())));
  }
};

QTEST_MAIN(CompareLongNamesTest)
#include "compare_long_names_test.moc"
