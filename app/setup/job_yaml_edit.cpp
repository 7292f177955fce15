// Only the layouts configs use are edited in place: top-level keys and sections at column 0, a
// block section's keys one indentation in, a flow section on one line. A value that spans lines
// in a block section (a block sequence, a `|` scalar) is replaced whole by the new one.
#include "job_yaml_edit.h"

#include <QRegularExpression>
#include <QStringList>
#include <algorithm>

#include "config/config_fields.h"
#include "config/config_io.h"

namespace traindeck {

namespace {

bool isContent(const QString& line) {  // not blank, not only a comment
  const QString trimmed = line.trimmed();
  return !trimmed.isEmpty() && !trimmed.startsWith('#');
}

int indentOf(const QString& line) {
  int i = 0;
  while (i < line.size() && line[i] == ' ') ++i;
  return i;
}

// One past the quote that closes the one at `from`; -1 when it does not close on this line.
int quotedEnd(const QString& line, int from) {
  const QChar quote = line[from];
  for (int i = from + 1; i < line.size(); ++i) {
    if (quote == '"' && line[i] == '\\') {
      ++i;
      continue;
    }
    if (line[i] != quote) continue;
    if (quote == '\'' && i + 1 < line.size() && line[i + 1] == '\'') {
      ++i;
      continue;
    }
    return i + 1;
  }
  return -1;
}

// One past the end of the quoted scalar or flow collection at `from`, minding nesting and
// quotes; -1 when it does not end on this line.
int closingEnd(const QString& line, int from) {
  int depth = 0;
  for (int i = from; i < line.size(); ++i) {
    const QChar c = line[i];
    if (c == '"' || c == '\'') {
      const int end = quotedEnd(line, i);
      if (end < 0) return -1;
      if (depth == 0) return end;
      i = end - 1;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if ((c == ']' || c == '}') && --depth == 0) {
      return i + 1;
    }
  }
  return -1;
}

// Where the value that starts at `from` ends on its line: a quoted scalar or flow collection at
// its closing character, a plain scalar before a " #" comment. -1 when it goes on past the line.
int valueEnd(const QString& line, int from) {
  if (from >= line.size() || line[from] == '#') return from;  // nothing here
  const QChar first = line[from];
  if (first == '"' || first == '\'' || first == '[' || first == '{') return closingEnd(line, from);
  if (first == '|' || first == '>') return -1;  // a block scalar: its text is on the next lines
  static const QRegularExpression comment("\\s#");
  const int hash = static_cast<int>(line.indexOf(comment, from));
  int end = hash < 0 ? static_cast<int>(line.size()) : hash;
  while (end > from && line[end - 1].isSpace()) --end;
  return end;
}

// Whether `line` is `name:` at column `indent`; `*valueAt` is then where its value starts.
bool keyAt(const QString& line, int indent, const QString& name, int* valueAt) {
  if (indentOf(line) != indent || line.mid(indent, name.size()) != name) return false;
  int i = indent + static_cast<int>(name.size());
  while (i < line.size() && line[i] == ' ') ++i;
  if (i >= line.size() || line[i] != ':') return false;
  ++i;
  if (i < line.size() && !line[i].isSpace()) return false;  // "name:x" is a scalar, not a key
  while (i < line.size() && line[i] == ' ') ++i;
  *valueAt = i;
  return true;
}

// One past the last line that belongs to the key on line `at` (indented `indent`): the lines of
// a value that spans lines, or a section's keys. Blank and comment lines after them are not.
int blockEnd(const QStringList& lines, int at, int indent) {
  int end = at + 1;
  for (int j = at + 1; j < lines.size(); ++j) {
    if (!isContent(lines[j])) continue;
    const int inner = indentOf(lines[j]);
    const bool item = inner == indent && lines[j].mid(inner).startsWith('-');  // a sequence at the key's indent
    if (inner <= indent && !item) break;
    end = j + 1;
  }
  return end;
}

// Sets the value of the key on line `at` (at column `indent`, its value from `valueAt`).
bool replaceValue(QStringList& lines, int at, int indent, int valueAt, const QString& valueYaml) {
  QString& line = lines[at];
  const int end = valueEnd(line, valueAt);
  const bool blockScalar = valueAt < line.size() && (line[valueAt] == '|' || line[valueAt] == '>');
  if (end < 0 && !blockScalar) return false;  // a flow value or a quote over several lines
  if (end >= 0 && end > valueAt) {
    line.replace(valueAt, end - valueAt, valueYaml);
    return true;
  }
  // The value is on the lines under the key (or a block scalar's): they make way for it; a
  // comment after the key stays.
  QString head = line.left(valueAt);
  if (!head.endsWith(' ')) head += ' ';
  const QString comment = blockScalar ? QString() : line.mid(valueAt);
  line = head + valueYaml + (comment.isEmpty() ? QString() : "  " + comment);
  const int last = blockEnd(lines, at, indent);
  lines.erase(lines.begin() + at + 1, lines.begin() + last);
  return true;
}

// Sets `key` in the flow map whose '{' is at `open` in `line`: its value in place, or the key
// added after the last one. False when the map does not close on this line.
bool setInFlowMap(QString& line, int open, const QString& key, const QString& valueYaml) {
  const int close = closingEnd(line, open) - 1;
  if (close < 0) return false;
  int start = open + 1;
  int lastEnd = -1;  // where the last entry's text ends
  for (int i = open + 1; i <= close; ++i) {
    const QChar c = line[i];
    if (i < close && (c == '"' || c == '\'' || c == '[' || c == '{')) {
      const int end = closingEnd(line, i);
      if (end < 0) return false;
      i = end - 1;
      continue;
    }
    if (i < close && c != ',') continue;
    const QString entry = line.mid(start, i - start);
    int lead = 0, trail = static_cast<int>(entry.size());
    while (lead < trail && entry[lead].isSpace()) ++lead;
    while (trail > lead && entry[trail - 1].isSpace()) --trail;
    if (trail > lead) {
      lastEnd = start + trail;
      int valueAt = 0;
      if (keyAt(QString(lead, ' ') + entry.mid(lead, trail - lead), lead, key, &valueAt)) {
        line.replace(start + valueAt, trail - valueAt, valueYaml);
        return true;
      }
    }
    start = i + 1;
  }
  if (lastEnd < 0)
    line.replace(open + 1, close - open - 1, key + ": " + valueYaml);
  else
    line.insert(lastEnd, ", " + key + ": " + valueYaml);
  return true;
}

bool startsSection(const QString& line) {
  static const std::vector<std::string> sections = configSections();
  for (const std::string& section : sections) {
    int valueAt = 0;
    if (keyAt(line, 0, QString::fromStdString(section), &valueAt)) return true;
  }
  return false;
}

bool setTopLevel(QStringList& lines, const QString& key, const QString& valueYaml) {
  for (int i = 0; i < lines.size(); ++i) {
    int valueAt = 0;
    if (keyAt(lines[i], 0, key, &valueAt)) return replaceValue(lines, i, 0, valueAt, valueYaml);
  }
  int at = 0;  // before the first section
  while (at < lines.size() && !startsSection(lines[at])) ++at;
  lines.insert(at, key + ": " + valueYaml);
  return true;
}

bool setInSection(QStringList& lines, const QString& section, const QString& key, const QString& valueYaml) {
  int header = -1, valueAt = 0;
  for (int i = 0; i < lines.size() && header < 0; ++i)
    if (keyAt(lines[i], 0, section, &valueAt)) header = i;
  if (header < 0) {  // a new section at the end
    while (!lines.isEmpty() && lines.last().trimmed().isEmpty()) lines.removeLast();
    lines << section + ":"
          << "  " + key + ": " + valueYaml << QString();
    return true;
  }
  if (valueAt < lines[header].size() && lines[header][valueAt] == '{')
    return setInFlowMap(lines[header], valueAt, key, valueYaml);
  if (valueAt < lines[header].size() && lines[header][valueAt] != '#') return false;  // not a map
  const int end = blockEnd(lines, header, 0);
  int indent = 2, last = header;
  for (int j = header + 1; j < end; ++j) {
    if (!isContent(lines[j])) continue;
    if (last == header) indent = indentOf(lines[j]);
    last = j;
  }
  for (int j = header + 1; j < end; ++j) {
    int at = 0;
    if (keyAt(lines[j], indent, key, &at)) return replaceValue(lines, j, indent, at, valueYaml);
  }
  lines.insert(last + 1, QString(indent, ' ') + key + ": " + valueYaml);
  return true;
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

std::optional<QString> withKeyValue(const QString& text, const QString& path, const QString& valueYaml) {
  QStringList lines = text.split('\n');
  const qsizetype dot = path.indexOf('.');
  const bool done =
      dot < 0 ? setTopLevel(lines, path, valueYaml) : setInSection(lines, path.left(dot), path.mid(dot + 1), valueYaml);
  if (!done) return std::nullopt;
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
