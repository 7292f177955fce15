// The main window's Help menu: Tutorial (F1) and Documentation show docs/tutorial.md and the
// README in the app's own viewer (DocViewer), found beside the app's presets in the source tree or
// in share/doc/TrainDeck once installed; when a file is missing, the user is told where it was
// looked for. And About.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <functional>

class QMenuBar;
class QWidget;

namespace traindeck {

class DocViewer;

class HelpMenu : public QObject {
  Q_OBJECT
 public:
  using TellProblem = std::function<void(const QString& title, const QString& text)>;

  // Adds the menu to `bar`; `window` parents it and the About box.
  HelpMenu(QMenuBar* bar, const QStringList& presetDirs, QWidget* window, TellProblem tellProblem);

  QString docsPath() const;      // the README that Documentation opens, or empty
  QString tutorialPath() const;  // docs/tutorial.md, which Tutorial (F1) opens, or empty
  DocViewer* viewer() const { return m_viewer; }  // the docs' window, once one was shown

 private:
  // A file of the docs (README.md, docs/tutorial.md) where it is found, or empty.
  QString find(const QString& relative) const;
  void open(const QString& path, const QString& relative);

  QStringList m_presetDirs;
  QWidget* m_window;
  TellProblem m_tellProblem;
  DocViewer* m_viewer = nullptr;
};

}  // namespace traindeck
