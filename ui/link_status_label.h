// The status bar's word on followed runs whose link is down, while it lasts: the shown run's link
// text when its link is lost, else the first other such run's ("run: text"); hidden while every
// link is up.
#pragma once

#include <QLabel>
#include <QMap>
#include <QString>

namespace traindeck {

class Job;

class LinkStatusLabel : public QLabel {
  Q_OBJECT
 public:
  explicit LinkStatusLabel(QWidget* parent = nullptr);
  // The link of `runDir`'s job changed (`job` null: it has none here); `shownRun` is the run shown.
  void linkChanged(const QString& runDir, const Job* job, const QString& shownRun);

 private:
  QMap<QString, QString> m_lost;  // run directory -> its job's link text, while lost
};

}  // namespace traindeck
