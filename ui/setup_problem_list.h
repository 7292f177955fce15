// The Setup page's problem list, a view of the job document: everything wrong with the job, one
// line each with its line number, errors and warnings by their icons; choosing one says where it is.
#pragma once

#include <QWidget>

class QListWidget;
class QListWidgetItem;

namespace traindeck {

class JobDocument;

class SetupProblemList : public QWidget {
  Q_OBJECT
 public:
  explicit SetupProblemList(JobDocument* document, QWidget* parent = nullptr);

 signals:
  // A problem was clicked: the key it is about (may be empty) and its line (0: none).
  void problemChosen(const QString& path, int line);

 private:
  void showDocument();
  void choose(QListWidgetItem* item);

  JobDocument* m_document;
  QListWidget* m_list = nullptr;
};

}  // namespace traindeck
