// One chart of the Compare page: a line per run in the run's colour (with its raw values faint
// behind when the line is smoothed), or per group of runs with its band filled between two
// graphs (QCustomPlot's channel fill) and its members faint behind when asked. Hovering shows a crosshair and each
// run's value at that x, and names the line under the pointer so that the page can highlight it on every chart;
// zooming or panning by hand is announced so that the page can give every chart the same range.
// Draws what it is given and holds no run data beyond that.
#pragma once

#include <QColor>
#include <QString>
#include <QVector>

#include <qcustomplot.h>

namespace traindeck {

// Who a line draws: a compared run (index into the Comparison), a group of runs (index into the
// page's groups), or both for a group's member. None of either: nothing (no line hovered).
struct LineOwner {
  int run = -1;
  int group = -1;
  bool any() const { return run >= 0 || group >= 0; }
  // Whether a line of this owner is highlighted while `hovered` is: a run's lines when that run
  // is hovered; a group's line when the group or one of its members is; a member's line when
  // its run is, or its group as a whole.
  bool isHighlightedBy(const LineOwner& hovered) const {
    return (run >= 0 && run == hovered.run) || (group >= 0 && group == hovered.group && (run < 0 || hovered.run < 0));
  }
  bool operator==(const LineOwner&) const = default;
};

struct CompareLine {
  QString name;
  QColor color;
  QVector<double> x, y;       // x ascending
  QVector<double> rawY;       // the unsmoothed values at the same x, drawn faint; empty: none
  QVector<double> low, high;  // a group's band at the same x, filled; empty: none
  bool member = false;        // one run of a group, drawn thin and faint, left out of the crosshair
  LineOwner owner{};
};

struct CrosshairValue {
  int line = -1;  // index into the lines
  double x = 0, y = 0;
};

class CompareChart : public QCustomPlot {
  Q_OBJECT
 public:
  CompareChart(const QString& title, const QString& valueLabel, QWidget* parent = nullptr);

  // The heading; one wider than the chart (a long run name) is elided in its middle, whole in the
  // tooltip over it.
  void setTitle(const QString& title, const QColor& color = {});
  QString title() const { return m_title; }
  QString shownTitle() const;
  // The chart's own minimum: a long heading does not widen it (it is elided).
  QSize minimumSizeHint() const override;
  void setLines(const QVector<CompareLine>& lines);
  // The same, a line at a time: a redraw after one run grew replaces only that run's line.
  void setLineCount(int count);
  void setLine(int index, const CompareLine& line);  // index < the line count
  const QVector<CompareLine>& lines() const { return m_lines; }
  void setShowLegend(bool on);
  // Draws the lines `hovered` highlights thicker and every other line faded; none hovered: all
  // as usual. Kept until the next call (setLine draws a line as usual).
  void setHighlight(const LineOwner& hovered);
  const QCPGraph* lineGraph(int index) const { return m_main.value(index); }
  // The owner of the line within a few pixels of `pos` (the nearest), or none.
  LineOwner lineOwnerAt(const QPointF& pos) const;
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
  void lineHovered(const traindeck::LineOwner& owner);  // none: the pointer is over no line
  void followingRequested();                            // a double-click: fit every chart to its data again

 protected:
  void mouseMoveEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;
  void changeEvent(QEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  enum class Emphasis { Normal, Highlighted, Faded };
  QString xText(double x) const;
  void applyEmphasis(int index, Emphasis emphasis);
  void showTitle();  // m_title, elided to the chart's width

  QString m_title;
  QCPTextElement* m_heading;
  QCPItemStraightLine* m_cursor;
  QVector<CompareLine> m_lines;
  QVector<QCPGraph*> m_main, m_raw, m_low, m_high;  // one of each per line
  bool m_following = true;
  bool m_userInput = false;  // inside a mouse or wheel handler: range changes are the user's
  bool m_wallClock = false;
};

}  // namespace traindeck
