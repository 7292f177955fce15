// The Sweep page's table of trials: name, state, rung, metric, tokens (or steps), each swept
// parameter and the run folder, one row per trial of a SweepView; and the proxy that sorts it
// by value and hides the trials the page's brushes leave out.
#pragma once

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <memory>
#include <vector>

#include "sweep_view.h"

namespace traindeck {

class SweepTrialModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  static constexpr int kSortRole = Qt::UserRole;       // a number where the column has one
  static constexpr int kTrialRole = Qt::UserRole + 1;  // the trial's index in the view
  enum Column { Name, State, Rung, Metric, Progress, FirstParameter };

  using QAbstractTableModel::QAbstractTableModel;

  void setView(std::shared_ptr<const SweepView> view);
  const SweepView* view() const { return m_view.get(); }
  // The run folder's column (after the parameters).
  int runColumn() const { return FirstParameter + parameterCount(); }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  int parameterCount() const;
  QVariant display(const SweepTrialView& trial, int column, bool best) const;
  QVariant sortValue(const SweepTrialView& trial, int column) const;

  std::shared_ptr<const SweepView> m_view;
};

class SweepTrialFilterModel : public QSortFilterProxyModel {
  Q_OBJECT
 public:
  explicit SweepTrialFilterModel(QObject* parent = nullptr);
  // Which trials show, by index in the view; trials past its end show.
  void setPassing(std::vector<bool> passing);

 protected:
  bool filterAcceptsRow(int row, const QModelIndex& parent) const override;

 private:
  std::vector<bool> m_passing;
};

}  // namespace traindeck
