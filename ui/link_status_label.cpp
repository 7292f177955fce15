// Red and bold, in the status bar's permanent area, so no passing message covers it.
#include "link_status_label.h"

#include <QFileInfo>

#include "jobs/job.h"

namespace traindeck {

LinkStatusLabel::LinkStatusLabel(QWidget* parent) : QLabel(parent) {
  setObjectName("linkStatus");
  setStyleSheet(QStringLiteral("color: #c0392b; font-weight: bold"));
  hide();
}

void LinkStatusLabel::linkChanged(const QString& runDir, const Job* job, const QString& shownRun) {
  if (job && job->linkLost())
    m_lost[runDir] = job->linkText();
  else
    m_lost.remove(runDir);
  QString text = m_lost.value(shownRun);
  if (text.isEmpty() && !m_lost.isEmpty())
    text = tr("%1: %2").arg(QFileInfo(m_lost.firstKey()).fileName(), m_lost.first());
  setText(text);
  setVisible(!text.isEmpty());
}

}  // namespace traindeck
