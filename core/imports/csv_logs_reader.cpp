// Both loggers are read by one loop that differs in the column giving the step; records are
// split by csv_records.h whatever the line ends. A last row without its line end is one still
// being written: left for the next read.
#include "imports/csv_logs_reader.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <limits>
#include <optional>

#include "imports/csv_records.h"
#include "imports/import_error.h"
#include "imports/import_files.h"
#include "imports/not_read.h"
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
  if (isGitLfsPointer(bytes)) throw ImportError(gitLfsPointerSentence(file));
  std::vector<std::string> header;
  std::size_t stepIndex = 0;
  constexpr double kNoTime = std::numeric_limits<double>::quiet_NaN();
  const bool partial = forEachCsvRecord(bytes, ',', [&](std::vector<std::string>& cells, std::size_t lineNumber) {
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
    std::optional<std::int64_t> whole;
    if (cells.size() <= stepIndex || !parseCsvNumber(cells[stepIndex], step) || !(whole = wholeStep(step))) {
      into.addProblem(file.string() + ":" + std::to_string(lineNumber) + ": no whole " + stepColumn + "; row skipped");
      return true;
    }
    if (cells.size() > header.size())
      into.addProblem(file.string() + ":" + std::to_string(lineNumber) + ": " + std::to_string(cells.size()) +
                      " cells under " + std::to_string(header.size()) + " column names; the extra ones skipped");
    for (std::size_t i = 0; i < cells.size() && i < header.size(); ++i) {
      double value = 0;
      if (i != stepIndex && parseCsvNumber(cells[i], value)) into.add(header[i], *whole, kNoTime, value);
    }
    return true;
  });
  if (partial) into.setPartialTail(true);
}

}  // namespace

std::vector<std::string> csvHeader(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::string head(64 * 1024, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  std::vector<std::string> header;
  forEachCsvRecord(head, ',', [&](std::vector<std::string>& cells, std::size_t) {
    header = std::move(cells);  // complete: its line end was read
    return false;
  });
  return header;
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

const RunFormat& lightningCsvFormat() {
  static const PathFormat format(
      {.kind = SourceKind::LightningCsv,
       .name = "lightning-csv",
       .badge = "CSV",
       .signs = "metrics.csv",
       .isRunFolder = [](const std::filesystem::path& folder) { return isLightningMetricsCsv(folder / "metrics.csv"); },
       .isRunFile = nullptr,
       .read = readLightningCsvRun});
  return format;
}

const RunFormat& kerasCsvFormat() {
  static const PathFormat format({.kind = SourceKind::KerasCsv,
                                  .name = "keras-csv",
                                  .badge = "CSV",
                                  .signs = "*.csv or *.log with an epoch column",
                                  .isRunFolder = nullptr,
                                  .isRunFile = isKerasCsvLog,
                                  .read = readKerasCsvRun});
  return format;
}

}  // namespace traindeck
