// bench_metrics [RECORDS]: writes RECORDS (default 1,000,000) train records in the trainer's
// format to a temp file, then reads it back into a MetricsStore in 64 MiB reads, as the
// follower does, and prints the time per phase and the memory per stored train point. Then the
// hand-written line scanner against simdjson's On-Demand API (where libsimdjson-dev is
// installed) on the same lines, one thread, on that file and on one with short numbers.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "metrics_store.h"
#include "runlog/file_tail.h"
#include "runlog/json_writer.h"
#include "runlog/metrics_jsonl_parser.h"
#include "runlog/metrics_record_scan.h"
#ifdef TRAINDECK_HAVE_SIMDJSON
#include "simdjson_scan.h"
#endif

using namespace traindeck;
using Clock = std::chrono::steady_clock;

static double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The best of three runs of `pass`, in ms.
template <class Pass>
static double bestOf3(Pass&& pass) {
  double best = 1e300;
  for (int i = 0; i < 3; ++i) {
    const auto t = Clock::now();
    pass();
    best = std::min(best, msSince(t));
  }
  return best;
}

// Each scanner on every line of `path`, one thread; `label` names the file.
static void compareScanners(const std::string& path, const char* label) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const double megabytes = static_cast<double>(bytes.size()) / 1e6;
  bytes.append(64, ' ');  // simdjson reads up to 64 bytes past a document's end
  const std::string_view text(bytes.data(), bytes.size() - 64);
  std::vector<std::string_view> lines;
  for (std::size_t pos = 0; pos < text.size();) {
    const std::size_t nl = text.find('\n', pos);
    lines.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  const auto report = [&](const char* what, double ms, std::size_t understood) {
    std::printf("  %-34s %7.1f ms (%4.0f MB/s), %zu of %zu lines\n", what, ms, megabytes / (ms / 1000), understood,
                lines.size());
  };
  std::printf("one thread, %s (%.1f MB, best of 3):\n", label, megabytes);
  std::size_t understood = 0;
  FlatRecord record;
  double ms = bestOf3([&] {
    understood = 0;
    for (std::string_view line : lines) {
      record.clear();
      understood += scanFlatRecord(line, record);
    }
  });
  report("hand-written scanFlatRecord", ms, understood);
  ms = bestOf3([&] {
    MetricsBatch batch;
    for (std::string_view line : lines) MetricsJsonlParser::parseLine(line, batch);
    understood = batch.train.size() + (batch.hasHeader ? 1 : 0);
  });
  report("hand-written parseLine into columns", ms, understood);
#ifdef TRAINDECK_HAVE_SIMDJSON
  bench::SimdjsonScan simd;
  ms = bestOf3([&] {
    understood = 0;
    for (std::string_view line : lines) understood += simd.scan(line, record);
  });
  report("simdjson On-Demand, line by line", ms, understood);
  std::size_t train = 0;
  ms = bestOf3([&] {
    train = 0;
    understood = simd.scanStream(text, train);
  });
  report("simdjson On-Demand, iterate_many", ms, understood);
#else
  std::printf("  simdjson: not measured (libsimdjson-dev not installed)\n");
#endif
}

int main(int argc, char** argv) {
  const long records = argc > 1 ? std::atol(argv[1]) : 1000000;
  const std::string path = "/tmp/bench_metrics_" + std::to_string(::getpid()) + ".jsonl";
  {
    std::ofstream out(path, std::ios::binary);
    double time = 1764491689.123456, loss = 11.0;
    for (long step = 1; step <= records; ++step) {
      time += 0.0123457;
      loss = loss * 0.99999 + 1e-5 * 3.1;
      JsonWriter r;
      r.beginObject().field("kind", "train").field("time", time);
      r.field("step", static_cast<std::int64_t>(step)).field("tokens", static_cast<std::int64_t>(step * 524288));
      r.field("loss", loss).field("lr", 6e-4 * (1.0 - static_cast<double>(step) / static_cast<double>(records)));
      r.field("grad_norm", 0.25 + 1.0 / static_cast<double>(step)).field("tokens_per_s", 1234567.891011);
      r.field("step_ms", 424.6618).field("comm_ms", 12.5).endObject();
      out << r.str() << '\n';
    }
  }
  std::ifstream sizeProbe(path, std::ios::binary | std::ios::ate);
  const double megabytes = static_cast<double>(sizeProbe.tellg()) / 1e6;

  // As the follower does: 64 MiB reads, each parsed into a batch, each batch appended.
  FileTail tail(path);
  MetricsJsonlParser parser;
  MetricsStore store;
  double readMs = 0, parseMs = 0, storeMs = 0;
  for (;;) {
    auto t = Clock::now();
    FileTail::Chunk chunk = tail.read(64u << 20);
    readMs += msSince(t);
    if (chunk.bytes.empty()) break;
    t = Clock::now();
    const MetricsBatch batch = parser.feed(chunk.bytes);
    parseMs += msSince(t);
    t = Clock::now();
    store.append(batch);
    storeMs += msSince(t);
  }
  const double totalMs = readMs + parseMs + storeMs;

  std::printf("records:                 %ld (%.1f MB, %.0f bytes per line)\n", records, megabytes,
              megabytes * 1e6 / static_cast<double>(records));
  std::printf("stored train points:     %zu, garbage lines %d\n", store.train().size(), store.garbageLines());
  std::printf("parse to batches:        %.1f ms (%.0f MB/s)\n", parseMs, megabytes / (parseMs / 1000));
  std::printf("append to store:         %.1f ms\n", storeMs);
  std::printf("parse + store:           %.1f ms (%.2f M records/s)\n", parseMs + storeMs,
              static_cast<double>(records) / (parseMs + storeMs) / 1000);
  std::printf("with file reads:         %.1f ms (reads %.1f ms)\n", totalMs, readMs);
  std::printf("bytes per train point:   %.1f allocated (%zu B of columns for %zu points)\n", store.bytesPerTrainPoint(),
              store.trainBytes(), store.train().size());

  compareScanners(path, "the trainer's format");
  ::unlink(path.c_str());
  // bench_monitor's lines: numbers of 1 to 6 decimals, as a logger with fixed precision writes.
  {
    std::ofstream out(path, std::ios::binary);
    char line[320];
    for (long step = 1; step <= records; ++step) {
      const double s = static_cast<double>(step);
      const int n = std::snprintf(line, sizeof line,
                                  "{\"kind\":\"train\",\"time\":%.3f,\"step\":%ld,\"tokens\":%ld,\"loss\":%.6f,"
                                  "\"lr\":0.0006,\"grad_norm\":%.4f,\"tokens_per_s\":%.1f,\"step_ms\":%.2f}\n",
                                  1.7e9 + 0.1 * s, step, 2048 * step, 5.0 / std::sqrt(1.0 + s) + 0.01 * std::sin(s),
                                  1.0 + 0.1 * std::cos(s), 20000.0 + 100 * std::sin(s / 10.0), 102.4);
      out.write(line, n);
    }
  }
  compareScanners(path, "short numbers (bench_monitor's lines)");
  ::unlink(path.c_str());
  return 0;
}
