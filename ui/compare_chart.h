// One chart of the Compare page: a line per run in the run's colour (with its raw values faint
// behind when the line is smoothed), or per group of runs with its band filled between two
// graphs (QCustomPlot's channel fill) and its members faint behind when asked. Hovering shows a crosshair and each
// run's value at that x; zooming or panning by hand is announced so that the page can give every chart the same range.
// Draws what it is given and holds no run data beyond that.
#pragma once

#include <QColor>
#include <QString>
#include <QVector>

#include <qcustomplot.h>

namespace traindeck {

struct CompareLine {
  QString name;
  QColor color;
  QVector<double> x, y;       // x ascending
  QVector<double> rawY;       // the unsmoothed values at the same x, drawn faint; empty: none
  QVector<double> low, high;  // a group's band at the same x, filled; empty: none
  bool member = false;        // one run of a group, drawn thin and faint, left out of the crosshair
};

struct CrosshairValue {
  int line = -1;  // index into the lines
  double x = 0, y = 0;
};

class CompareChart : public QCustomPlot {
  Q_OBJECT
 public:
  CompareChart(const QString& title, const QString& valueLabel, QWidget* parent = nullptr);

  void setTitle(const QString& title, const QColor& color = {});
  void setLines(const QVector<CompareLine>& lines);
  // The same, a line at a time: a redraw after one run grew replaces only that run's line.
  void setLineCount(int count);
  void setLine(int index, const CompareLine& line);  // index < the line count
  const QVector<CompareLine>& lines() const { return m_lines; }
  void setShowLegend(bool on);
  void setLogScale(bool on);
  void setWallClockX(bool on, const QString& label);  // date-time ticks for unix seconds

  // The range of the data (over all lines, finite values only); found is false when empty.
  QCPRange dataXRange(bool& found) const;
  QCPRange dataYRange(bool& found) const;
  bool following() const { return m_following; }
  void setFollowing(bool on) { m_following = on; }

  // Each line's point nearest to x (lines without points are left out).
  QVector<CrosshairValue> valuesAt(double x) const;
  QString crosshairText(double x) const;  // rich text: the x, then a coloured row per line
  void showCrosshair(double x);
  void hideCrosshair();

 signals:
  void xRangeChangedByUser(const QCPRange& range);
  void crosshairMoved(double x);
  void crosshairLeft();
  void followingRequested();  // a double-click: fit every chart to its data again

 protected:
  void mouseMoveEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;
  void changeEvent(QEvent* event) override;

 private:
  QString xText(double x) const;

  QCPTextElement* m_heading;
  QCPItemStraightLine* m_cursor;
  QVector<CompareLine> m_lines;
  QVector<QCPGraph*> m_main, m_raw, m_low, m_high;  // one of each per line
  bool m_following = true;
  bool m_userInput = false;  // inside a mouse or wheel handler: range changes are the user's
  bool m_wallClock = false;
};

}  // namespace traindeck
