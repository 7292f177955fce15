// Rebuilt on every change of the document: a job has a handful of problems at most.
#include "setup_problem_list.h"

#include <QLabel>
#include <QListWidget>
#include <QStyle>
#include <QVBoxLayout>

#include "job_document.h"

namespace traindeck {

SetupProblemList::SetupProblemList(JobDocument* document, QWidget* parent)
    : SetupProblemList("problems", tr("Everything wrong with the job; click one to go to its field."), parent) {
  m_document = document;
  connect(m_document, &JobDocument::changed, this, &SetupProblemList::showDocument);
  showDocument();
}

SetupProblemList::SetupProblemList(const QString& name, const QString& tooltip, QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(new QLabel(QStringLiteral("<b>%1</b>").arg(tr("Problems")), this));
  m_list = new QListWidget(this);
  m_list->setObjectName(name);
  m_list->setWordWrap(true);
  m_list->setToolTip(tooltip);
  layout->addWidget(m_list, 1);
  connect(m_list, &QListWidget::itemClicked, this, &SetupProblemList::choose);
  connect(m_list, &QListWidget::itemActivated, this, &SetupProblemList::choose);
}

void SetupProblemList::showDocument() {
  showProblems(m_document->problems(), tr("No problems: the job can start."));
}

void SetupProblemList::showProblems(const Diagnostics& problems, const QString& none) {
  m_list->clear();
  for (const Diagnostic& d : problems) {
    const bool error = d.severity == Severity::Error;
    QString text = QString::fromStdString(d.format("")).mid(d.line > 0 ? 1 : 0);
    if (d.line > 0) text = tr("line %1").arg(text);
    auto* item = new QListWidgetItem(
        style()->standardIcon(error ? QStyle::SP_MessageBoxCritical : QStyle::SP_MessageBoxWarning), text, m_list);
    item->setData(Qt::UserRole, QString::fromStdString(d.path));
    item->setData(Qt::UserRole + 1, d.line);
    item->setToolTip(text);
  }
  if (problems.empty()) m_list->addItem(none);
}

void SetupProblemList::choose(QListWidgetItem* item) {
  emit problemChosen(item->data(Qt::UserRole).toString(), item->data(Qt::UserRole + 1).toInt());
}

}  // namespace traindeck
