// The Sweep tab's other places: the SSH hosts saved in the Hosts dialog (a Colab runtime is one
// too), each ticked to take trials beside the job's own target, with how many trials run there
// at once (`traindeck --sweep --on HOST=N` in the window). Unticked, a host takes none.
#pragma once

#include <QList>
#include <QMap>
#include <QString>
#include <QTableWidget>

#include "host_store.h"

namespace traindeck {

class SweepHostsPicker : public QTableWidget {
  Q_OBJECT
 public:
  explicit SweepHostsPicker(QWidget* parent = nullptr);

  // The saved hosts; a host still there keeps its tick and its count.
  void setHosts(const QList<HostEntry>& hosts);
  // The ticked hosts: name -> trials at once there.
  QMap<QString, int> chosen() const;
  // Ticks (or not) a host by name, with its trials at once; false when there is no such host.
  bool choose(const QString& name, bool ticked, int slotCount = 1);
};

}  // namespace traindeck
