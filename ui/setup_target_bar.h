// The Setup page's "Where to run", a view of the job document: this machine or a saved host
// (the job's target.kind and target.host), what that machine has (this machine's CPU and GPUs,
// a host's last probe), and Hosts…. A choice is one undoable edit of the document.
#pragma once

#include <QList>
#include <QMap>
#include <QWidget>

#include "host_store.h"

class QComboBox;
class QLabel;

namespace traindeck {

class JobDocument;

class SetupTargetBar : public QWidget {
  Q_OBJECT
 public:
  explicit SetupTargetBar(JobDocument* document, QWidget* parent = nullptr);
  // The saved hosts offered, and what each was last found to have (by spec).
  void setHosts(const QList<HostEntry>& hosts, const QMap<QString, HostStore::StoredProbe>& probes);

 signals:
  void hostsRequested();  // the Hosts… button

 private:
  void showDocument();
  void choose(int index);

  JobDocument* m_document;
  QList<HostEntry> m_hosts;
  QMap<QString, HostStore::StoredProbe> m_probes;
  QComboBox* m_target = nullptr;
  QLabel* m_info = nullptr;
};

}  // namespace traindeck
