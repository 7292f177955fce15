// One chart of the Monitor page: a QCustomPlot with a faint raw line, a bold smoothed line,
// optional extra lines (validation loss, one per rank), and event markers with tooltips.
// Zoom and pan with the mouse; double-click rescales. Owns no run data: it draws what it is given.
// Each line keeps its points in a SeriesPyramid; QCustomPlot gets what the visible range needs
// at the chart's width (every point of a short line, or of a zoomed-in stretch of a long one).
#pragma once

#include <QString>
#include <QVector>

#include <qcustomplot.h>

#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "runs/series_pyramid.h"

namespace traindeck {

// The keys' and finite values' extent of some series, widened as points arrive, so following a
// live run never rescans its points.
struct SeriesBounds {
  QCPRange keys, values;
  bool any = false;
  void extend(const QVector<double>& x, const QVector<double>& y);
  void extend(const std::vector<double>& x, const std::vector<double>& y);
  void extend(std::span<const double> x, std::span<const double> y);
  void extend(const SeriesBounds& other);
};

struct ChartMarker {
  double x = 0;
  QString level;  // info, warn, error
  QString text;
};

class MetricChart : public QCustomPlot {
  Q_OBJECT
 public:
  MetricChart(const QString& title, const QString& valueLabel, QWidget* parent = nullptr);
  QString title() const;

  // The main series: raw points faint, and the same smoothed bold (when smoothed is not empty).
  void setSeries(const QVector<double>& x, const QVector<double>& raw, const QVector<double>& smoothed);
  // The same, taking the vectors over (a long run's million points are not copied again).
  void takeSeries(std::vector<double> x, std::vector<double> raw, std::vector<double> smoothed);
  // The same over the x of `xChart`'s series, which must outlive this one's and be given its
  // x first, also when points are appended (the Monitor's train charts share one x of a
  // million points, the loss chart's).
  void takeSeriesOverXOf(const MetricChart& xChart, std::vector<double> raw, std::vector<double> smoothed);
  // More points after those setSeries gave (x increasing, smoothed empty where it was empty).
  void appendSeries(const std::vector<double>& x, const std::vector<double>& raw, const std::vector<double>& smoothed);
  // Extra named lines drawn over the main one (val loss; one per rank on device charts).
  void setExtraLines(const QVector<QString>& names, const QVector<QVector<double>>& xs,
                     const QVector<QVector<double>>& ys);
  void setMarkers(const QVector<ChartMarker>& markers);
  void setXAxisLabel(const QString& label);
  void setLogScale(bool on);
  // Fits the axes to the data unless the user has zoomed or panned since the last fit.
  void fitIfFollowing();
  // Follows the data again, whatever the user's zoom: another run is shown (the zoom was the
  // last run's). A chart with no data gets the default ranges, not the last run's.
  void follow();
  // The y range leaves out the top and bottom 1% of the points (a loss spike, a slow first step),
  // as TensorBoard's option does.
  void setIgnoreOutliers(bool on);
  // A zoom or pan of the x axis, as the mouse makes one: no longer following, y fitted to what
  // is visible.
  void zoomX(const QCPRange& range);
  // What hovering at this x pixel shows: the nearest point's x and value ("Step 50: 2.4817,
  // smoothed 2.5032"), or empty when no point is near.
  QString valueTextAt(double pixelX) const;
  bool showsEmpty() const { return m_emptyText->visible(); }  // "No data yet", no tick labels
  // The main series' points, however few of them QCustomPlot is handed to draw.
  std::size_t pointCount() const { return m_rawLine.points.size(); }
  // PNG, SVG or PDF by the file's extension; false when it could not be written.
  bool exportTo(const QString& path);

 protected:
  void mouseMoveEvent(QMouseEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void changeEvent(QEvent* event) override;  // follows light and dark palettes

 private:
  // A line's points and what of them its graph holds now (the range and width they were
  // picked for), so that a replot with nothing changed picks nothing again.
  struct Line {
    QCPGraph* graph = nullptr;
    SeriesPyramid points;
    QCPRange drawnKeys;
    int drawnWidth = -1;
    std::size_t drawnSize = 0;
    bool whole = false;  // the graph holds every point
  };
  // Hands `line.graph` the points to draw: all of a short line; of a long one, those its
  // pyramid picks for the visible x range at the chart's width. `changed`: the points did (a
  // long line's are then picked before the next replot, once the axes fit them).
  void pickPoints(Line& line, bool changed);
  // The main series from its raw and smoothed values over `xs` (owned by `xOwner`, or to be:
  // `takeRaw` gives the raw line its values, while the smoothed line is built beside it).
  void buildSeries(std::span<const double> xs, const SeriesPyramid* xOwner, std::vector<double> raw,
                   std::vector<double> smoothed, const std::function<void(std::vector<double>&&)>& takeRaw);
  void pickAllPoints();  // before each replot: the range or the width may have moved
  std::vector<const Line*> visibleLines() const;
  void applyPalette();
  void showEmpty(bool empty);
  // The y range of the lines (markers excluded), within `keys` when given; nullopt when none.
  // Without `keys` and outliers kept, it comes from the bounds kept as points arrive.
  std::optional<QCPRange> dataRange(const std::optional<QCPRange>& keys) const;
  SeriesBounds visibleBounds() const;  // of the lines drawn now
  void fitY(const QCPRange& data);     // a readable band around a constant series, 5% margin
  void fitYToVisibleX();

  QCPTextElement* m_heading;
  QCPItemText* m_emptyText = nullptr;
  QCPGraph* m_raw;
  QCPGraph* m_smooth;
  QVector<QCPGraph*> m_extra;
  Line m_rawLine, m_smoothLine;
  std::vector<Line> m_extraLines;  // one per m_extra graph
  QCPGraph* m_markerGraph;
  QVector<ChartMarker> m_markers;
  SeriesBounds m_mainBounds;            // raw and smoothed
  QVector<SeriesBounds> m_extraBounds;  // one per extra line
  bool m_following = true;
  bool m_dragging = false;  // a mouse button went down on this chart: a range change is the user's
  bool m_ignoreOutliers = false;
};

}  // namespace traindeck
