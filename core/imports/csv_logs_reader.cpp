// Both loggers are read by one loop that differs in the column giving the step. A last line
// without its newline is a row still being written: left for the next read.
#include "imports/csv_logs_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>

#include "imports/import_files.h"
#include "imports/run_builder.h"

namespace traindeck {

namespace {

bool parseCsvNumber(std::string_view text, double& out) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  if (text.empty()) return false;
  const auto parsed = std::from_chars(text.data(), text.data() + text.size(), out);
  return parsed.ec == std::errc() && parsed.ptr == text.data() + text.size();
}

void readCsvRows(const std::filesystem::path& file, const std::string& stepColumn, RunBuilder& into) {
  const std::string bytes = readFileBytes(file);
  std::vector<std::string> header;
  std::size_t stepIndex = 0;
  constexpr double kNoTime = std::numeric_limits<double>::quiet_NaN();
  const bool partial = forEachCompleteLine(bytes, [&](std::string_view line, std::size_t lineNumber) {
    std::vector<std::string> cells = splitCsvLine(line);
    if (header.empty()) {
      header = std::move(cells);
      const auto found = std::find(header.begin(), header.end(), stepColumn);
      if (found == header.end()) {
        into.addProblem(file.string() + ": no \"" + stepColumn + "\" column");
        return false;
      }
      stepIndex = static_cast<std::size_t>(found - header.begin());
      return true;
    }
    double step = 0;
    if (cells.size() <= stepIndex || !parseCsvNumber(cells[stepIndex], step) || step != std::floor(step)) {
      into.addProblem(file.string() + ":" + std::to_string(lineNumber) + ": no whole " + stepColumn + "; row skipped");
      return true;
    }
    for (std::size_t i = 0; i < cells.size() && i < header.size(); ++i) {
      double value = 0;
      if (i != stepIndex && parseCsvNumber(cells[i], value))
        into.add(header[i], static_cast<std::int64_t>(step), kNoTime, value);
    }
    return true;
  });
  if (partial) into.setPartialTail(true);
}

}  // namespace

std::vector<std::string> splitCsvLine(std::string_view line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cells.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cells.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells.emplace_back();
    } else {
      cells.back() += c;
    }
  }
  return cells;
}

std::vector<std::string> csvHeader(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::string line;
  if (!in || !std::getline(in, line) || in.eof()) return {};  // no newline yet: not a header
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return splitCsvLine(line);
}

bool isLightningMetricsCsv(const std::filesystem::path& file) {
  if (file.filename() != "metrics.csv") return false;
  const std::vector<std::string> header = csvHeader(file);
  return std::find(header.begin(), header.end(), "step") != header.end();
}

bool isKerasCsvLog(const std::filesystem::path& file) {
  const std::string ext = file.extension().string();
  if (ext != ".csv" && ext != ".log") return false;
  const std::vector<std::string> header = csvHeader(file);
  return header.size() >= 2 && header.front() == "epoch" &&
         std::find(header.begin(), header.end(), "step") == header.end();
}

ImportedRun readLightningCsvRun(const std::filesystem::path& folder, std::string name) {
  RunBuilder builder(SourceKind::LightningCsv, std::move(name), folder.string());
  readCsvRows(folder / "metrics.csv", "step", builder);
  if (isRegularFile(folder / "hparams.yaml")) addYamlConfig(folder / "hparams.yaml", builder);
  return builder.take();
}

ImportedRun readKerasCsvRun(const std::filesystem::path& file, std::string name) {
  RunBuilder builder(SourceKind::KerasCsv, std::move(name), file.string());
  readCsvRows(file, "epoch", builder);
  return builder.take();
}

}  // namespace traindeck
