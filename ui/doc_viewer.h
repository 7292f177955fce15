// The docs shown in the app: a window with one Markdown file of TrainDeck's docs (the tutorial,
// the README), its links to the other docs followed in place and links to the web opened in the
// browser. It needs no program to open files (a bare desktop has no xdg-open).
#pragma once

#include <QDialog>

class QTextBrowser;

namespace traindeck {

class DocViewer : public QDialog {
  Q_OBJECT
 public:
  explicit DocViewer(QWidget* parent = nullptr);

  // Shows the Markdown file at `path` (absolute) and raises the window.
  void showFile(const QString& path);
  QString shownFile() const;
  QString text() const;  // what is shown, as plain text

 private:
  QTextBrowser* m_text = nullptr;
};

}  // namespace traindeck
