// A run is addressed by run_id where the file has it, so that two runs given one name (Trackio
// allows it) stay two; the search shows such names with their id beside them.
#include "imports/trackio_reader.h"

#include <cctype>
#include <cmath>
#include <limits>

#include "imports/import_error.h"
#include "imports/import_files.h"
#include "imports/iso_time.h"
#include "imports/run_builder.h"
#include "imports/sqlite_file.h"
#include "runlog/json_copy.h"
#include "runlog/json_value.h"

namespace traindeck {

namespace {

constexpr const char* kNotTrackio = "not a Trackio project";

bool isTrackioDatabase(sqlite3* db) {
  return sqliteHasColumns(db, "metrics", {"run_name", "step", "timestamp", "metrics"});
}

// Python's json.dumps writes NaN and Infinity bare (Trackio before serialize_values did):
// quoted here, outside strings, so that the strict parser reads them as Trackio's own spelling.
std::string quoteBareNonFinite(std::string_view text) {
  std::string out;
  bool inString = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (inString) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) out += text[++i];
      if (c == '"') inString = false;
      continue;
    }
    if (c == '"') inString = true;
    bool replaced = false;
    for (const std::string_view word : {"-Infinity", "Infinity", "NaN"})
      if (text.substr(i).starts_with(word)) {
        out.append("\"").append(word).append("\"");
        i += word.size() - 1;
        replaced = true;
        break;
      }
    if (!replaced) out += c;
  }
  return out;
}

JsonParseResult parseTrackioJson(std::string_view text) {
  JsonParseResult parsed = parseJson(text);
  if (!parsed.ok()) parsed = parseJson(quoteBareNonFinite(text));
  return parsed;
}

bool trackioNumber(const JsonValue& v, double& out) {
  if (v.isNumber()) {
    out = v.numberOr(0);
    return true;
  }
  const std::string& t = v.text();
  if (!v.isString() || (t != "NaN" && t != "Infinity" && t != "-Infinity")) return false;
  out = t == "NaN" ? std::numeric_limits<double>::quiet_NaN()
                   : (t[0] == '-' ? -1 : 1) * std::numeric_limits<double>::infinity();
  return true;
}

void addMetricsRow(const std::filesystem::path& file, std::string_view json, const std::string& prefix,
                   std::int64_t step, double time, RunBuilder& into) {
  const JsonParseResult parsed = parseTrackioJson(json);
  if (!parsed.ok()) {
    into.addProblem(file.string() + ": a metrics row of step " + std::to_string(step) + " is not JSON (" +
                    parsed.error + "); skipped");
    return;
  }
  for (const auto& [key, value] : parsed.value.members()) {
    double number = 0;
    if (trackioNumber(value, number)) into.add(prefix + key, step, time, number);
  }
}

class TrackioFormat final : public RunFormat {
 public:
  SourceKind kind() const override { return SourceKind::Trackio; }
  std::string_view name() const override { return "trackio"; }
  std::string_view badge() const override { return "Trackio"; }
  std::string_view signs() const override { return "*.db"; }
  bool findInFile(const std::filesystem::path& file, FoundRuns& found) const override {
    if (!isSqliteStoreFile(file)) return false;
    std::vector<TrackioRun> runs;
    try {
      runs = listTrackioRuns(file);
    } catch (const ImportError&) {
      return false;
    }
    const std::size_t first = found.runs.size();
    for (TrackioRun& run : runs) {
      found.add(kind(), file, run.key, run.name);
      found.runs.back().displayName = run.name;
      if (run.key != run.name) found.runs.back().id = run.key;
    }
    makeNamesUnique(found.runs, first);
    return true;
  }
  ImportedRun read(const RunSource& source) const override { return readTrackioRun(source.path, source.key); }
};

}  // namespace

std::vector<TrackioRun> listTrackioRuns(const std::filesystem::path& database) {
  const SqliteDb db = openSqliteReadOnly(database);
  if (!isTrackioDatabase(db.get())) throw ImportError(database.string() + ": " + kNotTrackio);
  const bool byId = sqliteHasColumns(db.get(), "metrics", {"run_id"});
  const SqliteStatement list =
      prepareSqlite(db.get(), database,
                    byId ? "SELECT run_id, run_name, MIN(id) AS first FROM metrics GROUP BY run_id ORDER BY first"
                         : "SELECT run_name, run_name, MIN(id) AS first FROM metrics GROUP BY run_name ORDER BY first",
                    kNotTrackio);
  std::vector<TrackioRun> runs;
  while (sqliteNextRow(db.get(), list.get(), database))
    runs.push_back(TrackioRun{.key = sqliteText(list.get(), 0), .name = sqliteText(list.get(), 1)});
  return runs;
}

ImportedRun readTrackioRun(const std::filesystem::path& database, const std::string& key) {
  const SqliteDb db = openSqliteReadOnly(database);
  if (!isTrackioDatabase(db.get())) throw ImportError(database.string() + ": " + kNotTrackio);
  const bool byId = sqliteHasColumns(db.get(), "metrics", {"run_id"});
  const std::string column = byId ? "run_id" : "run_name";
  RunBuilder builder(SourceKind::Trackio, key, database.string());
  builder.setConfig("trackio.project", database.stem().string());

  const std::string metricsSql =
      "SELECT run_name, step, timestamp, metrics FROM metrics WHERE " + column + " = ?1 ORDER BY step, id";
  const SqliteStatement metrics = prepareSqlite(db.get(), database, metricsSql.c_str(), kNotTrackio);
  sqlite3_bind_text(metrics.get(), 1, key.c_str(), -1, SQLITE_TRANSIENT);
  bool any = false;
  while (sqliteNextRow(db.get(), metrics.get(), database)) {
    if (!any) builder.setName(sqliteText(metrics.get(), 0));
    any = true;
    addMetricsRow(database, sqliteText(metrics.get(), 3), {}, sqlite3_column_int64(metrics.get(), 1),
                  isoTimeToUnixSeconds(sqliteText(metrics.get(), 2)), builder);
  }
  if (!any) throw ImportError(database.string() + ": no run " + key + " in this Trackio project (deleted?)");

  if (sqliteHasColumns(db.get(), "system_metrics", {"timestamp", "metrics", column.c_str()})) {
    const std::string sql = "SELECT timestamp, metrics FROM system_metrics WHERE " + column + " = ?1 ORDER BY id";
    const SqliteStatement system = prepareSqlite(db.get(), database, sql.c_str(), kNotTrackio);
    sqlite3_bind_text(system.get(), 1, key.c_str(), -1, SQLITE_TRANSIENT);
    for (std::int64_t sample = 0; sqliteNextRow(db.get(), system.get(), database); ++sample)
      addMetricsRow(database, sqliteText(system.get(), 1), "system/", sample,
                    isoTimeToUnixSeconds(sqliteText(system.get(), 0)), builder);
  }

  if (sqliteHasColumns(db.get(), "configs", {"config", column.c_str()})) {
    const std::string sql = "SELECT config FROM configs WHERE " + column + " = ?1";
    const SqliteStatement config = prepareSqlite(db.get(), database, sql.c_str(), kNotTrackio);
    sqlite3_bind_text(config.get(), 1, key.c_str(), -1, SQLITE_TRANSIENT);
    if (sqliteNextRow(db.get(), config.get(), database)) {
      const JsonParseResult parsed = parseTrackioJson(sqliteText(config.get(), 0));
      for (const auto& [name, value] : parsed.value.members()) {
        if (!name.starts_with("_")) {
          addJsonConfig(value, builder, name);
          continue;
        }
        std::string own = "trackio.";
        for (char c : name.substr(1)) own += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        builder.setConfig(own, value.isString() ? value.text() : jsonText(value));
      }
      if (!parsed.ok()) builder.addProblem(database.string() + ": the run's config is not JSON: " + parsed.error);
    }
  }
  return builder.take();
}

const RunFormat& trackioFormat() {
  static const TrackioFormat format;
  return format;
}

}  // namespace traindeck
