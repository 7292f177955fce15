// Runs grouped by what they share (config keys, every key but some, their source, or a pattern
// over their names), and a group's members as one line with a band: each member resampled onto
// a common x grid, then per grid point the mean (or median) and the min–max, ±1 standard
// deviation or 95% interval of the members that cover it. Plain functions over data already read.
#pragma once

#include <QString>
#include <QStringList>
#include <QVector>

#include "config/config_flatten.h"
#include "metric_series.h"

namespace traindeck {

struct GroupBy {
  enum class Kind { None, ConfigKeys, ConfigKeysExcept, Source, NamePattern };
  Kind kind = Kind::None;
  QStringList keys{};  // ConfigKeys: these; ConfigKeysExcept: every key but these ("seed")
  // NamePattern: a regular expression over the run's label; its first capture group, else the
  // whole match, names the group ("^(.*)-seed\d+$"). A run it does not match is a group alone.
  QString pattern{};
};

struct GroupableRun {
  QString label;
  QString source;  // the badge of another tool's run; empty for TrainDeck's own
  FlatConfig config;
};

struct RunGroup {
  QString name;          // "optimizer.lr=0.001, model.layers=4": only the keys whose values vary
  QVector<int> members;  // indices into the runs, in their order
};

// Groups in the order of their first member. Kind::None: a group per run. An empty `pattern`
// or one that is not a valid expression: a group per run, and `error` (if given) says why.
QVector<RunGroup> groupRuns(const QVector<GroupableRun>& runs, const GroupBy& by, QString* error = nullptr);

enum class GroupCenter { Mean, Median };
enum class GroupBand { MinMax, StdDev, Interval95 };

struct GroupStats {
  QVector<double> x, center, low, high;  // NaN where no member covers x
  QVector<int> count;                    // members covering each x
};

// Members (x ascending after NaN values are dropped; unsorted ones are sorted) resampled by
// linear interpolation onto one grid: every distinct x of the members in [lo, hi] when there are
// at most maxPoints of them (runs logged at the same steps keep their points), else maxPoints
// evenly spaced. A member covers the x between its first and last point. StdDev and
// Interval95 use the sample standard deviation s (n − 1; 0 for one member): mean ± s and
// mean ± 1.96 s / √n. lo > hi: the members' whole span.
GroupStats groupStatistics(const QVector<MetricSeries>& members, GroupCenter center, GroupBand band, double lo = 1,
                           double hi = 0, int maxPoints = 1000);

}  // namespace traindeck
