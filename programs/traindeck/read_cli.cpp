// Runs are found through the importer table (core/imports/run_formats.cpp); what was found and
// not read goes to stderr. Records print train columns, eval rows, then each named scalar; floats
// as the shortest text that reads back ("0.001"), times as digits, a missing time as null.
#include "read_cli.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <string>
#include <string_view>

#include "imports/import_error.h"
#include "imports/run_discovery.h"
#include "runlog/json_writer.h"
#include "runlog/metrics_keys.h"

namespace traindeck {

namespace {

constexpr const char* kReadUsage = "usage: traindeck --read PATH\n";

class RecordPrinter {
 public:
  RecordPrinter(std::FILE* out, std::string run) : m_out(out), m_run(std::move(run)) {}

  void print(std::string_view metric, std::int64_t step, double value, double time, bool asFloat) {
    JsonWriter line;
    line.beginObject().field("run", m_run).field("metric", metric).field("step", step).key("value");
    if (asFloat && std::isfinite(value)) {
      char text[32];
      const auto end = std::to_chars(text, text + sizeof text, static_cast<float>(value)).ptr;
      line.raw(std::string_view(text, static_cast<std::size_t>(end - text)));
    } else {
      line.value(value);
    }
    line.key("time");
    if (std::isfinite(time)) {  // unix seconds as digits ("1718000000", not "1.718e+09")
      char text[48];
      const auto end = std::to_chars(text, text + sizeof text, time, std::chars_format::fixed).ptr;
      line.raw(std::string_view(text, static_cast<std::size_t>(end - text)));
    } else {
      line.null();
    }
    line.endObject();
    std::fprintf(m_out, "%s\n", line.str().c_str());
    ++m_lines;
  }
  long lines() const { return m_lines; }

 private:
  std::FILE* m_out;
  std::string m_run;
  long m_lines = 0;
};

void printRun(const ImportedRun& run, RecordPrinter& p) {
  namespace key = metrics_key;
  const TrainColumns& t = run.metrics.train;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t.tokens[i] != 0) p.print(key::kTokens, t.step[i], static_cast<double>(t.tokens[i]), t.time[i], false);
    const std::pair<std::string_view, float> columns[] = {
        {key::kLoss, t.loss[i]},         {key::kLr, t.lr[i]},
        {key::kGradNorm, t.gradNorm[i]}, {key::kTokensPerSecond, t.tokensPerSecond[i]},
        {key::kStepMs, t.stepMs[i]},     {key::kMfu, t.mfu[i]}};
    for (const auto& [name, value] : columns)
      if (!std::isnan(value)) p.print(name, t.step[i], value, t.time[i], true);
  }
  const EvalColumns& e = run.metrics.eval;
  for (std::size_t i = 0; i < e.size(); ++i)
    if (!std::isnan(e.valLoss[i])) p.print(key::kValLoss, e.step[i], e.valLoss[i], e.time[i], true);
  for (const ScalarSeries& s : run.scalars)
    for (std::size_t i = 0; i < s.size(); ++i) p.print(s.name, s.step[i], s.value[i], s.time[i], false);
}

}  // namespace

bool isReadCliCommand(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--read") == 0 || std::strncmp(argv[i], "--read=", 7) == 0) return true;
  return false;
}

int runReadCli(int argc, char** argv, std::FILE* out, std::FILE* err) {
  std::string path;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--read") == 0 && i + 1 == argc) {
      break;  // no PATH after it
    } else if (std::strcmp(argv[i], "--read") == 0 && path.empty()) {
      path = argv[++i];
    } else if (std::strncmp(argv[i], "--read=", 7) == 0 && path.empty()) {
      path = argv[i] + 7;
    } else {
      std::fprintf(err, "traindeck: --read takes one PATH and no other option (got %s)\n%s", argv[i], kReadUsage);
      return 2;
    }
  }
  if (path.empty()) {
    std::fprintf(err, "traindeck: --read needs a PATH\n%s", kReadUsage);
    return 2;
  }
  const RunSearch search = searchRuns(path);
  // What looks like a run's file but was not read (a Git LFS pointer, an empty .wandb, a run
  // MLflow deleted), and what to do about it.
  for (const NotRead& skipped : search.notRead) std::fprintf(err, "traindeck: %s\n", skipped.reason.c_str());
  const std::vector<RunSource>& sources = search.runs;
  if (sources.empty()) {
    std::fprintf(err, "traindeck: no runs at %s (formats read: %s)\n", path.c_str(), runFormatsRead().c_str());
    return 1;
  }
  int failed = 0;
  for (const RunSource& source : sources) {
    try {
      const ImportedRun run = readRun(source);
      for (const std::string& problem : run.problems) std::fprintf(err, "traindeck: %s\n", problem.c_str());
      RecordPrinter printer(out, run.name);
      printRun(run, printer);
    } catch (const ImportError& e) {
      std::fprintf(err, "traindeck: %s\n", e.what());
      ++failed;
    }
  }
  std::fflush(out);
  return failed == 0 ? 0 : 1;
}

}  // namespace traindeck
