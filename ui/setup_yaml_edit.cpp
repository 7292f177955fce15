// Minimal YAML edits for form changes. Only the simple block layout that configs use is edited
// in place (key and value on one line); anything else is left to the caller's regeneration.
#include "setup_yaml_edit.h"

#include <QRegularExpression>
#include <QStringList>

namespace traindeck {

namespace {

// Where the value that starts at `from` in `line` ends: a quoted scalar or flow sequence up to
// its closing character, a plain scalar up to a " #" comment. -1 when it does not end here.
int valueEnd(const QString& line, int from) {
  if (from >= line.size()) return from;
  const QChar first = line[from];
  if (first == '"') {
    for (int i = from + 1; i < line.size(); ++i) {
      if (line[i] == '\\')
        ++i;
      else if (line[i] == '"')
        return i + 1;
    }
    return -1;
  }
  if (first == '\'') {
    for (int i = from + 1; i < line.size(); ++i) {
      if (line[i] != '\'') continue;
      if (i + 1 < line.size() && line[i + 1] == '\'')
        ++i;
      else
        return i + 1;
    }
    return -1;
  }
  if (first == '[' || first == '{') {
    const int close = line.indexOf(first == '[' ? ']' : '}', from);
    return close < 0 ? -1 : close + 1;
  }
  if (first == '|' || first == '>') return -1;  // a block scalar: its text is on the next lines
  const int comment = line.indexOf(QRegularExpression("\\s#"), from);
  int end = comment < 0 ? line.size() : comment;
  while (end > from && line[end - 1].isSpace()) --end;
  return end;
}

bool isSectionHeader(const QString& line, const QString& name) {
  static const QRegularExpression header("^([A-Za-z_][A-Za-z0-9_]*)\\s*:\\s*(#.*)?$");
  const auto m = header.match(line);
  return m.hasMatch() && (name.isEmpty() || m.captured(1) == name);
}

bool isIndented(const QString& line) {
  return !line.isEmpty() && line[0].isSpace() && !line.trimmed().isEmpty();
}

// Inserts `key: value` into `section` (empty: the top level) of the lines.
void insertKey(QStringList& lines, const QString& section, const QString& key, const QString& value) {
  if (section.isEmpty()) {
    int at = 0;  // before the first section, after any leading comments and top-level keys
    while (at < lines.size() && !isSectionHeader(lines[at], {})) ++at;
    lines.insert(at, key + ": " + value);
    return;
  }
  for (int i = 0; i < lines.size(); ++i) {
    if (!isSectionHeader(lines[i], section)) continue;
    QString indent = "  ";
    int last = i;
    for (int j = i + 1; j < lines.size(); ++j) {
      const QString trimmed = lines[j].trimmed();
      if (trimmed.isEmpty() || (trimmed.startsWith('#') && !isIndented(lines[j]))) continue;
      if (!isIndented(lines[j])) break;
      if (last == i) indent = lines[j].left(lines[j].indexOf(QRegularExpression("\\S")));
      last = j;
    }
    lines.insert(last + 1, indent + key + ": " + value);
    return;
  }
  while (!lines.isEmpty() && lines.last().trimmed().isEmpty()) lines.removeLast();
  lines << section + ":"
        << "  " + key + ": " + value << QString();
}

}  // namespace

QString yamlScalar(const QString& value) {
  static const QRegularExpression special("[:#{}\\[\\],&*!|>'\"%@`\\n\\r\\t]");
  static const QRegularExpression reserved(
      "^(~|null|Null|NULL|true|True|TRUE|false|False|FALSE|yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF|y|n|Y|N)$");
  static const QRegularExpression number("^[-+]?(\\.?[0-9]|\\.(inf|Inf|INF|nan|NaN|NAN)$|0[xo])");
  const bool plain = !value.isEmpty() && !value.contains(special) && !value.front().isSpace() &&
                     !value.back().isSpace() && value.front() != '-' && value.front() != '?' &&
                     !value.contains(reserved) && !value.contains(number);
  if (plain) return value;
  QString out = value;
  out.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n").replace('\t', "\\t");
  return '"' + out + '"';
}

QString unquoteYaml(const QString& scalar) {
  if (scalar.size() >= 2 && scalar.front() == '\'' && scalar.back() == '\'')
    return scalar.mid(1, scalar.size() - 2).replace("''", "'");
  if (scalar.size() < 2 || scalar.front() != '"' || scalar.back() != '"') return scalar;
  QString out;
  for (int i = 1; i + 1 < scalar.size(); ++i) {
    if (scalar[i] != '\\' || i + 2 >= scalar.size()) {
      out += scalar[i];
      continue;
    }
    const QChar c = scalar[++i];
    if (c == 'n')
      out += '\n';
    else if (c == 't')
      out += '\t';
    else if (c == 'x' || c == 'u' || c == 'U') {
      const int digits = c == 'x' ? 2 : c == 'u' ? 4 : 8;
      out += QString::fromUcs4(std::u32string(1, char32_t(scalar.mid(i + 1, digits).toUInt(nullptr, 16))).data(), 1);
      i += digits;
    } else
      out += c;
  }
  return out;
}

std::optional<QString> withFieldValue(const QString& text, const std::map<std::string, SourcePlace>& places,
                                      const QString& path, const QString& valueYaml) {
  const int dot = path.indexOf('.');
  const QString section = dot < 0 ? QString() : path.left(dot);
  const QString key = dot < 0 ? path : path.mid(dot + 1);
  QStringList lines = text.split('\n');
  const auto place = places.find(path.toStdString());
  if (place == places.end()) {
    insertKey(lines, section, key, valueYaml);
    return lines.join('\n');
  }
  const int index = place->second.line - 1;
  if (index < 0 || index >= lines.size()) return std::nullopt;
  QString& line = lines[index];
  const QRegularExpression keyAt("^(\\s*)(" + QRegularExpression::escape(key) + ")\\s*:( *)");
  const auto m = keyAt.match(line);
  if (!m.hasMatch()) return std::nullopt;  // the value is not on the key's line
  const int from = m.capturedEnd(0);
  const int end = valueEnd(line, from);
  if (end < 0) return std::nullopt;
  QString rest = line.mid(end);
  line = m.captured(1) + key + ": " + valueYaml + rest;
  return lines.join('\n');
}

QMap<QString, QString> fieldValueTexts(const RunConfig& config) {
  QMap<QString, QString> out;
  const QStringList lines = QString::fromStdString(saveConfigText(config)).split('\n');
  static const QRegularExpression keyValue("^(\\s*)([A-Za-z_][A-Za-z0-9_]*):\\s?(.*)$");
  QString section;
  for (const QString& line : lines) {
    const auto m = keyValue.match(line);
    if (!m.hasMatch()) continue;
    const QString value = m.captured(3).trimmed();
    if (m.captured(1).isEmpty()) {
      if (value.isEmpty()) {
        section = m.captured(2);
        continue;
      }
      section.clear();
    }
    out.insert(section.isEmpty() ? m.captured(2) : section + '.' + m.captured(2), value);
  }
  return out;
}

}  // namespace traindeck
