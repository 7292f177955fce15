// The docs are looked for at resources/presets/../../ (the source tree) and at
// share/traindeck/presets/../../doc/TrainDeck/ (installed), for each presets folder in turn.
#include "help_menu.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>

#include "doc_viewer.h"

namespace traindeck {

HelpMenu::HelpMenu(QMenuBar* bar, const QStringList& presetDirs, QWidget* window, TellProblem tellProblem)
    : QObject(window), m_presetDirs(presetDirs), m_window(window), m_tellProblem(std::move(tellProblem)) {
  QMenu* help = bar->addMenu(tr("&Help"));
  QAction* tutorial = help->addAction(tr("Tutorial"), this, [this] { open(tutorialPath(), "docs/tutorial.md"); });
  tutorial->setShortcut(QKeySequence::HelpContents);  // F1: the first hour, step by step
  tutorial->setObjectName("tutorialAction");
  QAction* docs = help->addAction(tr("Documentation (README)"), this, [this] { open(docsPath(), "README.md"); });
  docs->setObjectName("docsAction");
  help->addAction(tr("About TrainDeck"), this, [this] {
    QMessageBox::about(m_window, tr("About TrainDeck"),
                       tr("TrainDeck %1: train GPT-2-family models on many devices and watch them train.")
                           .arg(QCoreApplication::applicationVersion()));
  });
}

QString HelpMenu::docsPath() const {
  return find(QStringLiteral("README.md"));
}

QString HelpMenu::tutorialPath() const {
  return find(QStringLiteral("docs/tutorial.md"));
}

QString HelpMenu::find(const QString& relative) const {
  for (const QString& presets : m_presetDirs)
    for (const QString& candidate : {presets + "/../../" + relative, presets + "/../../doc/TrainDeck/" + relative})
      if (QFileInfo::exists(candidate)) return QFileInfo(candidate).absoluteFilePath();
  return {};
}

void HelpMenu::open(const QString& path, const QString& relative) {
  if (path.isEmpty())
    return m_tellProblem(tr("Not found"), tr("%1 was not found beside the app's presets (%2); it is %1 in TrainDeck's "
                                             "sources and in share/doc/TrainDeck once installed.")
                                              .arg(relative, QDir::toNativeSeparators(m_presetDirs.join(", "))));
  // Shown here: a bare desktop has no program that opens files (no xdg-open).
  if (!m_viewer) m_viewer = new DocViewer(m_window);
  m_viewer->showFile(path);
}

}  // namespace traindeck
