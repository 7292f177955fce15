// The plan panel's "which kinds fit": one row a strategy kind the job's world size allows (kind,
// memory per rank, fits or not, largest micro-batch that fits), the job's own kind in bold.
#pragma once

#include <QTableWidget>
#include <vector>

#include "config/kind_fits.h"

namespace traindeck {

class KindFitsTable : public QTableWidget {
  Q_OBJECT
 public:
  explicit KindFitsTable(QWidget* parent = nullptr);
  void setFits(const std::vector<KindFit>& fits, StrategyKind chosen);
  // "zero3 | 13.9 GiB | fits | 2" a row, for tests and the panel's summary.
  QStringList rowTexts() const;
};

}  // namespace traindeck
