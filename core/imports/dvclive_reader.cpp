// The .tsv files are written with os.linesep, so "\r\n" on Windows: records are split by
// csv_records.h. A last row without its line end is still being written: left for the next read.
#include "imports/dvclive_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <set>

#include "imports/csv_records.h"
#include "imports/import_files.h"
#include "imports/not_read.h"
#include "imports/run_builder.h"
#include "runlog/json_value.h"

namespace traindeck {

namespace {

bool parseTsvNumber(std::string_view text, double& out) {
  if (text.empty()) return false;
  const auto parsed = std::from_chars(text.data(), text.data() + text.size(), out);
  return parsed.ec == std::errc() && parsed.ptr == text.data() + text.size();
}

void readMetricTsv(const std::filesystem::path& file, const std::string& name, RunBuilder& into) {
  const std::string bytes = readFileBytes(file);
  if (isGitLfsPointer(bytes)) {
    into.addProblem(gitLfsPointerSentence(file));
    return;
  }
  std::vector<std::string> header;
  std::ptrdiff_t timeColumn = -1, stepColumn = -1;
  const bool partial = forEachCsvRecord(bytes, '\t', [&](std::vector<std::string>& cells, std::size_t line) {
    if (header.empty()) {
      header = std::move(cells);
      const auto at = [&](const char* column) {
        const auto it = std::find(header.begin(), header.end(), column);
        return it == header.end() ? std::ptrdiff_t{-1} : it - header.begin();
      };
      timeColumn = at("timestamp");
      stepColumn = at("step");
      if (stepColumn < 0 || header.size() < 2) {
        into.addProblem(file.string() + ": no \"step\" column; not read");
        return false;
      }
      return true;
    }
    double step = 0, value = 0, ms = 0;
    const std::size_t valueColumn = header.size() - 1;  // DVCLive writes the value last
    std::optional<std::int64_t> whole;
    if (cells.size() != header.size() || !parseTsvNumber(cells[static_cast<std::size_t>(stepColumn)], step) ||
        !(whole = wholeStep(step)) || !parseTsvNumber(cells[valueColumn], value)) {
      into.addProblem(file.string() + ":" + std::to_string(line) + ": not \"step<TAB>value\"; row skipped");
      return true;
    }
    const double time = timeColumn >= 0 && parseTsvNumber(cells[static_cast<std::size_t>(timeColumn)], ms)
                            ? ms / 1000.0
                            : std::numeric_limits<double>::quiet_NaN();
    into.add(name, *whole, time, value);
    return true;
  });
  if (partial) into.setPartialTail(true);
}

void forEachTsv(const std::filesystem::path& root, const std::filesystem::path& folder, int depth,
                const std::function<void(const std::filesystem::path&, const std::string&)>& onFile) {
  if (depth > 8) return;
  for (const auto& entry : sortedEntries(folder)) {
    if (isDirectory(entry)) {
      forEachTsv(root, entry, depth + 1, onFile);
    } else if (entry.extension() == ".tsv" && isRegularFile(entry)) {
      std::string name = entry.lexically_relative(root).generic_string();
      name.resize(name.size() - 4);
      onFile(entry, name);
    }
  }
}

// metrics.json's numbers by their path ("train/loss"), except "step", and those already read.
void addSummaryLeaves(const JsonValue& v, const std::string& name, std::int64_t step, const std::set<std::string>& read,
                      RunBuilder& into) {
  if (v.isObject()) {
    for (const auto& [key, member] : v.members())
      if (!(name.empty() && key == "step"))
        addSummaryLeaves(member, name.empty() ? key : name + "/" + key, step, read, into);
  } else if (v.isNumber() && !read.contains(name)) {
    into.add(name, step, std::numeric_limits<double>::quiet_NaN(), v.numberOr(0));
  }
}

}  // namespace

bool isDvcLiveFolder(const std::filesystem::path& folder) {
  return isDirectory(folder / "plots" / "metrics") ||
         (folder.filename() == "dvclive" && isRegularFile(folder / "metrics.json"));
}

ImportedRun readDvcLiveRun(const std::filesystem::path& folder, std::string name) {
  RunBuilder builder(SourceKind::DvcLive, std::move(name), folder.string());
  std::set<std::string> read;
  const std::filesystem::path metrics = folder / "plots" / "metrics";
  forEachTsv(metrics, metrics, 0, [&](const std::filesystem::path& file, const std::string& metric) {
    readMetricTsv(file, metric, builder);
    read.insert(metric);
  });
  if (const auto summary = folder / "metrics.json"; isRegularFile(summary)) {
    const JsonParseResult parsed = parseJson(readFileBytes(summary));
    if (parsed.ok())
      addSummaryLeaves(parsed.value, {}, parsed.value.integerOr("step", 0), read, builder);
    else
      builder.addProblem(summary.string() + ": not read as JSON: " + parsed.error);
  }
  if (isRegularFile(folder / "params.yaml")) addYamlConfig(folder / "params.yaml", builder);
  return builder.take();
}

const RunFormat& dvcLiveFormat() {
  static const PathFormat format({.kind = SourceKind::DvcLive,
                                  .name = "dvclive",
                                  .badge = "DVCLive",
                                  .signs = "dvclive/",
                                  .isRunFolder = isDvcLiveFolder,
                                  .isRunFile = nullptr,
                                  .read = readDvcLiveRun});
  return format;
}

}  // namespace traindeck
