// Resampling walks each member once along the sorted grid (a cursor per member), so a group of
// m members on g grid points costs O(m (g + points)).
#include "run_groups.h"

#include <QHash>
#include <QRegularExpression>
#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

namespace traindeck {

namespace {

QString groupsConfigValue(const FlatConfig& config, const std::string& key, bool& present) {
  for (const auto& [k, v] : config.entries)
    if (k == key) {
      present = true;
      return QString::fromStdString(v);
    }
  present = false;
  return {};
}

// The keys a grouping by config looks at, in first-seen order over the runs.
std::vector<std::string> groupsKeysOf(const QVector<GroupableRun>& runs, const GroupBy& by) {
  std::vector<std::string> keys;
  if (by.kind == GroupBy::Kind::ConfigKeys) {
    for (const QString& key : by.keys) keys.push_back(key.toStdString());
    return keys;
  }
  for (const GroupableRun& run : runs)
    for (const auto& [key, value] : run.config.entries)
      if (!by.keys.contains(QString::fromStdString(key)) && std::find(keys.begin(), keys.end(), key) == keys.end())
        keys.push_back(key);
  return keys;
}

QVector<RunGroup> groupsByConfig(const QVector<GroupableRun>& runs, const GroupBy& by) {
  const std::vector<std::string> keys = groupsKeysOf(runs, by);
  // A key whose value is the same in every run tells the groups nothing: left out of the names.
  std::vector<bool> varies(keys.size(), false);
  std::vector<QStringList> values(static_cast<std::size_t>(runs.size()));
  for (std::size_t k = 0; k < keys.size(); ++k) {
    QString first;
    for (qsizetype r = 0; r < runs.size(); ++r) {
      bool present = false;
      QString value = groupsConfigValue(runs[r].config, keys[k], present);
      if (!present) value = QStringLiteral("(none)");
      if (r == 0) first = value;
      if (value != first) varies[k] = true;
      values[static_cast<std::size_t>(r)] << value;
    }
  }
  QVector<RunGroup> groups;
  QHash<QStringList, int> groupOf;
  for (qsizetype r = 0; r < runs.size(); ++r) {
    const QStringList& key = values[static_cast<std::size_t>(r)];
    auto it = groupOf.find(key);
    if (it == groupOf.end()) {
      QStringList parts;
      for (std::size_t k = 0; k < keys.size(); ++k)
        if (varies[k]) parts << QString::fromStdString(keys[k]) + '=' + key[static_cast<qsizetype>(k)];
      groups.push_back({parts.isEmpty() ? QObject::tr("all runs") : parts.join(QStringLiteral(", ")), {}});
      it = groupOf.insert(key, static_cast<int>(groups.size() - 1));
    }
    groups[*it].members << static_cast<int>(r);
  }
  return groups;
}

QVector<RunGroup> groupsByName(const QVector<GroupableRun>& runs, const std::function<QString(int)>& nameOf) {
  QVector<RunGroup> groups;
  QHash<QString, int> groupOf;
  for (qsizetype r = 0; r < runs.size(); ++r) {
    const QString name = nameOf(static_cast<int>(r));
    auto it = groupOf.find(name);
    if (it == groupOf.end()) {
      groups.push_back({name, {}});
      it = groupOf.insert(name, static_cast<int>(groups.size() - 1));
    }
    groups[*it].members << static_cast<int>(r);
  }
  return groups;
}

// One member's finite points, by x.
struct GroupsMember {
  std::vector<std::pair<double, double>> points;
};

GroupsMember groupsMemberOf(const MetricSeries& s) {
  GroupsMember m;
  m.points.reserve(static_cast<std::size_t>(s.x.size()));
  for (qsizetype i = 0; i < s.x.size() && i < s.y.size(); ++i)
    if (std::isfinite(s.x[i]) && std::isfinite(s.y[i])) m.points.emplace_back(s.x[i], s.y[i]);
  if (!std::is_sorted(m.points.begin(), m.points.end()))
    std::stable_sort(m.points.begin(), m.points.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return m;
}

// The members' distinct x in [lo, hi], merged from their sorted points; once there are more
// than maxPoints of them, maxPoints evenly spaced instead (the merge stops there).
std::vector<double> groupsGrid(const std::vector<GroupsMember>& members, double lo, double hi, int maxPoints) {
  std::vector<double> xs;
  std::vector<std::size_t> head(members.size(), 0);
  double from = INFINITY, to = -INFINITY;
  for (std::size_t m = 0; m < members.size(); ++m) {
    const auto& p = members[m].points;
    head[m] = static_cast<std::size_t>(
        std::lower_bound(p.begin(), p.end(), lo, [](const auto& point, double x) { return point.first < x; }) -
        p.begin());
    const auto end =
        std::upper_bound(p.begin(), p.end(), hi, [](double x, const auto& point) { return x < point.first; });
    const std::size_t last = static_cast<std::size_t>(end - p.begin());  // one past the last point <= hi
    if (head[m] < last) {
      from = std::min(from, p[head[m]].first);
      to = std::max(to, p[last - 1].first);
    }
  }
  while (true) {
    double next = INFINITY;
    for (std::size_t m = 0; m < members.size(); ++m)
      if (head[m] < members[m].points.size()) next = std::min(next, members[m].points[head[m]].first);
    if (!(next <= hi)) break;
    xs.push_back(next);
    if (maxPoints >= 2 && static_cast<int>(xs.size()) > maxPoints) {
      std::vector<double> even(static_cast<std::size_t>(maxPoints));
      for (int i = 0; i < maxPoints; ++i) even[static_cast<std::size_t>(i)] = from + (to - from) * i / (maxPoints - 1);
      return even;
    }
    for (std::size_t m = 0; m < members.size(); ++m)
      while (head[m] < members[m].points.size() && members[m].points[head[m]].first == next) ++head[m];
  }
  return xs;
}

}  // namespace

QVector<RunGroup> groupRuns(const QVector<GroupableRun>& runs, const GroupBy& by, QString* error) {
  const auto alone = [&runs](int r) { return runs[r].label; };
  switch (by.kind) {
    case GroupBy::Kind::None: {
      QVector<RunGroup> groups;
      for (qsizetype r = 0; r < runs.size(); ++r) groups.push_back({runs[r].label, {static_cast<int>(r)}});
      return groups;
    }
    case GroupBy::Kind::ConfigKeys:
    case GroupBy::Kind::ConfigKeysExcept:
      return groupsByConfig(runs, by);
    case GroupBy::Kind::Source:
      return groupsByName(
          runs, [&runs](int r) { return runs[r].source.isEmpty() ? QStringLiteral("TrainDeck") : runs[r].source; });
    case GroupBy::Kind::NamePattern: {
      const QRegularExpression pattern(by.pattern);
      if (by.pattern.isEmpty() || !pattern.isValid()) {
        if (error)
          *error = by.pattern.isEmpty()
                       ? QObject::tr("Type a pattern to group runs by their names")
                       : QObject::tr("The pattern is not a regular expression: %1").arg(pattern.errorString());
        return groupRuns(runs, GroupBy{}, nullptr);
      }
      return groupsByName(runs, [&](int r) {
        const QRegularExpressionMatch match = pattern.match(runs[r].label);
        if (!match.hasMatch()) return alone(r);
        return pattern.captureCount() >= 1 ? match.captured(1) : match.captured(0);
      });
    }
  }
  return {};
}

GroupStats groupStatistics(const QVector<MetricSeries>& series, GroupCenter center, GroupBand band, double lo,
                           double hi, int maxPoints) {
  std::vector<GroupsMember> members;
  for (const MetricSeries& s : series) members.push_back(groupsMemberOf(s));
  if (lo > hi) {
    lo = INFINITY;
    hi = -INFINITY;
    for (const GroupsMember& m : members)
      if (!m.points.empty()) {
        lo = std::min(lo, m.points.front().first);
        hi = std::max(hi, m.points.back().first);
      }
  }
  GroupStats stats;
  const std::vector<double> grid = groupsGrid(members, lo, hi, maxPoints);
  std::vector<std::size_t> cursor(members.size(), 0);
  std::vector<double> values;
  for (double x : grid) {
    values.clear();
    for (std::size_t m = 0; m < members.size(); ++m) {
      const auto& p = members[m].points;
      if (p.empty() || x < p.front().first || x > p.back().first) continue;
      std::size_t& i = cursor[m];  // p[i].first <= x < p[i + 1].first, or i is the last point
      while (i + 1 < p.size() && p[i + 1].first <= x) ++i;
      if (p[i].first == x || i + 1 == p.size()) {
        values.push_back(p[i].second);
      } else {
        const double t = (x - p[i].first) / (p[i + 1].first - p[i].first);
        values.push_back(p[i].second + t * (p[i + 1].second - p[i].second));
      }
    }
    const int n = static_cast<int>(values.size());
    stats.x << x;
    stats.count << n;
    if (n == 0) {
      stats.center << std::nan("");
      stats.low << std::nan("");
      stats.high << std::nan("");
      continue;
    }
    const double mean = std::accumulate(values.begin(), values.end(), 0.0) / n;
    double middle = mean;
    if (center == GroupCenter::Median) {
      std::sort(values.begin(), values.end());
      middle = n % 2 ? values[static_cast<std::size_t>(n / 2)]
                     : (values[static_cast<std::size_t>(n / 2 - 1)] + values[static_cast<std::size_t>(n / 2)]) / 2;
    }
    double squares = 0;
    for (double v : values) squares += (v - mean) * (v - mean);
    const double sd = n > 1 ? std::sqrt(squares / (n - 1)) : 0;
    stats.center << middle;
    switch (band) {
      case GroupBand::MinMax:
        stats.low << *std::min_element(values.begin(), values.end());
        stats.high << *std::max_element(values.begin(), values.end());
        break;
      case GroupBand::StdDev:
        stats.low << mean - sd;
        stats.high << mean + sd;
        break;
      case GroupBand::Interval95:
        stats.low << mean - 1.96 * sd / std::sqrt(n);
        stats.high << mean + 1.96 * sd / std::sqrt(n);
        break;
    }
  }
  return stats;
}

}  // namespace traindeck
