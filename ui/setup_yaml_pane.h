// The Setup page's YAML pane, a view of the job document: its text as typed (handed to the
// document 300 ms after the last key, or at once before any other edit), Undo and Redo of the
// document's one history, each problem marked at its line, a line for a text that cannot be read
// and one that says what the last Undo or Redo changed.
#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QTimer;
class QToolButton;

namespace traindeck {

class JobDocument;

class SetupYamlPane : public QWidget {
  Q_OBJECT
 public:
  explicit SetupYamlPane(JobDocument* document, QWidget* parent = nullptr);

  // The typing the document has not read yet goes to it now.
  void flush();
  // What the last Undo or Redo changed (empty: nothing since, or none).
  QString historyNote() const;
  void goToLine(int line);
  void moveInHistory(bool undo);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void handOver();  // the typing, to the document
  void showDocument();
  void showHistoryMove(bool undone, const QStringList& changes);
  void showText(const QString& text);
  void showProblems();
  void showUndoState();
  void showContextMenu(const QPoint& at);

  JobDocument* m_document;
  QString m_shownText;  // the document's text as last shown; the editor differs while typing
  bool m_settingText = false;
  QPlainTextEdit* m_yaml = nullptr;
  QLabel* m_error = nullptr;
  QLabel* m_historyNote = nullptr;
  QToolButton* m_undo = nullptr;
  QToolButton* m_redo = nullptr;
  QTimer* m_debounce = nullptr;
};

}  // namespace traindeck
