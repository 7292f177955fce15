// The Logs page: a view of a run's LogStore (every rank's lines, bounded), filtered to one rank
// or all, followed as they come, searchable, with warnings and errors coloured. When a run
// fails, a banner names the failing rank and its last lines come first. The page keeps no lines
// of its own: showLines() appends what the store holds past the last line shown, and rebuilds
// when the store says a rank's log began again.
#pragma once

#include <QPlainTextEdit>
#include <QWidget>
#include <cstdint>
#include <memory>

#include "runs/log_store.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;

namespace traindeck {

class LogsPage : public QWidget {
  Q_OBJECT
 public:
  explicit LogsPage(QWidget* parent = nullptr);

  // The store to show. `owner` (the run's shared session) is held until clear() or another
  // store is shown, so the store outlives its use here; empty when the caller sees to that.
  void showLines(const LogStore& store, std::shared_ptr<const void> owner = {});
  void clear();
  // A failed run: banner with the reason; the rank's last lines first, and the filter on it.
  void showFailure(int rank, const QString& reason);
  void setRankFilter(int rank);  // -1: all ranks
  bool findNext(const QString& text, bool backward = false);
  QString visibleText() const;

 private:
  void rebuild();
  void addRanks(std::size_t fromIndex);
  bool accepts(const LogLine& line) const;
  QString format(const LogLine& line) const;

  const LogStore* m_store = nullptr;
  std::shared_ptr<const void> m_owner;  // keeps m_store alive
  std::uint64_t m_shownEnd = 0;         // the store's endSequence() when last shown
  std::uint64_t m_generation = 0;       // the store's generation() when last shown
  int m_rankFilter = -1;
  int m_failedRank = -1;
  QComboBox* m_rankChooser;
  QCheckBox* m_follow;
  QLineEdit* m_search;
  QLabel* m_banner;
  QPlainTextEdit* m_view;
};

}  // namespace traindeck
