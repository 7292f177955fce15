// Queued redraws (charts batch theirs) are let happen before each grab.
#include "page_screenshots.h"

#include <QCoreApplication>
#include <QDir>
#include <QPixmap>
#include <QStringList>
#include <QTabWidget>
#include <QThread>

#include "compare_page.h"

namespace traindeck {

namespace {
void settleBeforeScreenshot() {
  for (int spin = 0; spin < 10; ++spin) {
    QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
    QThread::msleep(10);
  }
}
}  // namespace

bool savePageScreenshots(QWidget* window, QTabWidget* pages, ComparePage* compare, bool comparing,
                         const QString& folder) {
  QDir().mkpath(folder);
  bool ok = true;
  const QStringList names = {"setup", "monitor", "logs", "compare", "sweep"};
  for (int i = 0; i < pages->count(); ++i) {
    pages->setCurrentIndex(i);
    settleBeforeScreenshot();
    ok = window->grab().save(QDir(folder).filePath(names.value(i, QString::number(i)) + ".png")) && ok;
    auto* setupTabs = pages->widget(i)->findChild<QTabWidget*>("setupTabs");
    if (i == 0 && setupTabs) {  // the Setup page's Sweep tab
      setupTabs->setCurrentIndex(1);
      settleBeforeScreenshot();
      ok = window->grab().save(QDir(folder).filePath("setup-sweep.png")) && ok;
      setupTabs->setCurrentIndex(0);
    }
  }
  if (comparing) {  // the Compare page's other mode
    compare->setMode(ComparePage::Mode::SmallMultiples);
    settleBeforeScreenshot();
    ok = window->grab().save(QDir(folder).filePath("compare-multiples.png")) && ok;
    compare->setMode(ComparePage::Mode::Overlay);
  }
  return ok;
}

}  // namespace traindeck
