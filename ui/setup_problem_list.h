// The Setup page's problem list, a view of the job document (or, given its problems, of any
// file the page edits: the sweep's): everything wrong, one line each with its line number,
// errors and warnings by their icons; choosing one says where it is.
#pragma once

#include <QWidget>

#include "config/diagnostic.h"

class QListWidget;
class QListWidgetItem;

namespace traindeck {

class JobDocument;

class SetupProblemList : public QWidget {
  Q_OBJECT
 public:
  explicit SetupProblemList(JobDocument* document, QWidget* parent = nullptr);
  // A list that shows what it is given (showProblems), named `name` (tests find it so), with
  // `tooltip` on it.
  SetupProblemList(const QString& name, const QString& tooltip, QWidget* parent = nullptr);

  // `none`: what the list says when there are none.
  void showProblems(const Diagnostics& problems, const QString& none);

 signals:
  // A problem was clicked: the key it is about (may be empty) and its line (0: none).
  void problemChosen(const QString& path, int line);

 private:
  void showDocument();
  void choose(QListWidgetItem* item);

  JobDocument* m_document = nullptr;
  QListWidget* m_list = nullptr;
};

}  // namespace traindeck
