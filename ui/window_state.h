// What the main window looks like from one session to the next, in QSettings: its geometry and
// toolbars, the splitter, the run list's hidden columns and sort and the folders it lists beside
// the runs root (Open folder…), the page, the run shown and the runs compared. Column widths are
// not kept: the list fits them to their contents. A small value over the window's parts; the
// window decides what to do with a run or page that is gone.
#pragma once

#include <QString>
#include <QStringList>

class QMainWindow;
class QSettings;
class QSplitter;
class QTabWidget;

namespace traindeck {

class RunListPanel;

class WindowState {
 public:
  struct Parts {
    QMainWindow* window = nullptr;
    QSplitter* splitter = nullptr;
    QTabWidget* pages = nullptr;
    RunListPanel* runList = nullptr;
  };
  // What was on show when the window closed, of it what is still there.
  struct Shown {
    QString run;           // empty when none, or its run.json is gone
    QStringList compared;  // the compared runs still there
    int page = 0;
  };

  explicit WindowState(const Parts& parts) : m_parts(parts) {}

  // Geometry, toolbars, splitter (else the list narrow beside the pages), the list's columns and sort.
  void restoreLayout(QSettings& settings) const;
  // The folders opened (Open folder…, --open) listed again, each that still exists.
  void reopenFolders(QSettings& settings) const;
  static Shown lastShown(QSettings& settings);
  void save(QSettings& settings, const QString& shownRun, const QStringList& comparedRuns) const;

 private:
  Parts m_parts;
};

}  // namespace traindeck
