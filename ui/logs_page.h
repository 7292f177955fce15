// The Logs page: every rank's log lines, filtered to one rank or all, followed as they come,
// searchable, with warnings and errors coloured. When a run fails, a banner names the failing
// rank and its last lines come first. The page keeps the lines it shows (its display model).
#pragma once

#include <QPlainTextEdit>
#include <QVector>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;

namespace traindeck {

struct LogEntry {
  int rank = 0;
  QString level;  // error, warn, info, or empty for other output
  QString text;
};

class LogsPage : public QWidget {
  Q_OBJECT
 public:
  explicit LogsPage(QWidget* parent = nullptr);

  void appendLines(const QVector<LogEntry>& lines);
  void clear();
  // A failed run: banner with the reason; the rank's last lines first, and the filter on it.
  void showFailure(int rank, const QString& reason);
  void setRankFilter(int rank);  // -1: all ranks
  bool findNext(const QString& text, bool backward = false);
  QString visibleText() const;

 private:
  void rebuild();
  bool accepts(const LogEntry& entry) const;
  QString format(const LogEntry& entry) const;

  QVector<LogEntry> m_lines;
  int m_rankFilter = -1;
  int m_failedRank = -1;
  QComboBox* m_rankChooser;
  QCheckBox* m_follow;
  QLineEdit* m_search;
  QLabel* m_banner;
  QPlainTextEdit* m_view;
};

}  // namespace traindeck
