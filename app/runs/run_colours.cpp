// Categories take the comparison palette without its two greys: grey means "no value" here.
#include "run_colours.h"

#include <QMap>
#include <QObject>
#include <algorithm>

namespace traindeck {

namespace {

// Ten hues, then the same hues lighter: neighbours in the list differ in hue first.
const QColor kComparisonPalette[kComparisonColorCount] = {
    {31, 119, 180},  {255, 127, 14},  {44, 160, 44},   {214, 39, 40},   {148, 103, 189},
    {140, 86, 75},   {227, 119, 194}, {127, 127, 127}, {188, 189, 34},  {23, 190, 207},
    {120, 170, 220}, {255, 175, 100}, {130, 210, 110}, {245, 130, 130}, {190, 160, 220},
    {190, 140, 120}, {245, 170, 215}, {185, 185, 185}, {215, 215, 120}, {120, 220, 230}};
constexpr int kPaletteGreys[] = {7, 17};

// viridis at t = 0, 0.1, ..., 1 (matplotlib's table, sampled).
const QColor kViridis[] = {{0x44, 0x01, 0x54}, {0x48, 0x24, 0x75}, {0x41, 0x44, 0x87}, {0x35, 0x5f, 0x8d},
                           {0x2a, 0x78, 0x8e}, {0x21, 0x91, 0x8c}, {0x22, 0xa8, 0x84}, {0x44, 0xbf, 0x70},
                           {0x7a, 0xd1, 0x51}, {0xbd, 0xdf, 0x26}, {0xfd, 0xe7, 0x25}};

QColor categoryColour(int category) {
  constexpr int kHues = kComparisonColorCount - static_cast<int>(std::size(kPaletteGreys));
  int slot = category % kHues;
  for (int grey : kPaletteGreys)
    if (slot >= grey) ++slot;
  return kComparisonPalette[slot];
}

// The distinct values in their colour order: as numbers when all of them are numbers.
QStringList orderedValues(const QVector<ColourableRun>& runs) {
  QStringList values;
  for (const ColourableRun& run : runs)
    if (run.configValue && !values.contains(*run.configValue)) values << *run.configValue;
  bool allNumbers = true;
  QMap<QString, double> numbers;
  for (const QString& value : values) {
    bool ok = false;
    numbers[value] = value.toDouble(&ok);
    allNumbers = allNumbers && ok;
  }
  std::sort(values.begin(), values.end(), [&](const QString& a, const QString& b) {
    if (allNumbers && numbers[a] != numbers[b]) return numbers[a] < numbers[b];
    return a < b;
  });
  return values;
}

QString formatted(double value) {
  return QString::number(value, 'g', 4);
}

}  // namespace

QColor comparisonColor(int slot) {
  constexpr int n = kComparisonColorCount;
  return kComparisonPalette[((slot % n) + n) % n];
}

RunColours assignRunColours(const QVector<ColourableRun>& runs, const ColourBy& by) {
  RunColours out;
  out.colours.reserve(runs.size());
  out.notes.reserve(runs.size());
  out.values.reserve(runs.size());
  switch (by.kind) {
    case ColourBy::Kind::Run:
      for (const ColourableRun& run : runs) {
        out.colours << comparisonColor(run.slot);
        out.notes << QString();
        out.values << QString();
      }
      break;
    case ColourBy::Kind::ByHand:
      for (const ColourableRun& run : runs) {
        out.colours << (run.byHand.isValid() ? run.byHand : comparisonColor(run.slot));
        out.notes << (run.byHand.isValid() ? QObject::tr("picked by hand") : QString());
        out.values << QString();
      }
      break;
    case ColourBy::Kind::ConfigKey: {
      const QStringList values = orderedValues(runs);
      for (const ColourableRun& run : runs) {
        out.colours << (run.configValue ? categoryColour(static_cast<int>(values.indexOf(*run.configValue)))
                                        : missingValueColour());
        out.values << run.configValue.value_or(QObject::tr("none"));
        out.notes << QStringLiteral("%1=%2").arg(by.key, run.configValue.value_or(QObject::tr("(none)")));
      }
      break;
    }
    case ColourBy::Kind::Metric: {
      for (const ColourableRun& run : runs)
        if (std::isfinite(run.metric)) {
          out.low = std::isnan(out.low) ? run.metric : std::min(out.low, run.metric);
          out.high = std::isnan(out.high) ? run.metric : std::max(out.high, run.metric);
        }
      const QString statistic = statisticName(by.statistic);
      for (const ColourableRun& run : runs) {
        if (!std::isfinite(run.metric)) {
          out.colours << missingValueColour();
          out.notes << QObject::tr("no %1").arg(by.key);
          out.values << QObject::tr("none");
          continue;
        }
        const double t = out.high > out.low ? (run.metric - out.low) / (out.high - out.low) : 0.5;
        out.colours << rampColour(t);
        out.values << formatted(run.metric);
        out.notes << QStringLiteral("%1 %2 %3").arg(by.key, statistic, out.values.back());
      }
      break;
    }
  }
  return out;
}

bool RunColours::operator==(const RunColours& other) const {
  const auto same = [](double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); };
  return colours == other.colours && notes == other.notes && values == other.values && same(low, other.low) &&
         same(high, other.high);
}

QColor rampColour(double t) {
  constexpr int kLast = static_cast<int>(std::size(kViridis)) - 1;
  const double at = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0) * kLast;
  const int i = std::min(static_cast<int>(at), kLast - 1);
  const double f = at - i;
  const QColor& a = kViridis[i];
  const QColor& b = kViridis[i + 1];
  const auto mix = [f](int x, int y) { return static_cast<int>(std::lround(x + (y - x) * f)); };
  return QColor(mix(a.red(), b.red()), mix(a.green(), b.green()), mix(a.blue(), b.blue()));
}

QColor missingValueColour() {
  return QColor(160, 160, 160);
}

QString statisticName(ColourBy::Statistic statistic) {
  return statistic == ColourBy::Statistic::Min ? QStringLiteral("min") : QStringLiteral("last");
}

}  // namespace traindeck
