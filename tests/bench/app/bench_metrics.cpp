// bench_metrics [RECORDS]: writes RECORDS (default 1,000,000) train records in the trainer's
// format to a temp file, then reads it back into a MetricsStore in 64 MiB reads, as the
// follower does, and prints the time per phase and the memory per stored train point.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "metrics_store.h"
#include "runlog/file_tail.h"
#include "runlog/json_writer.h"
#include "runlog/metrics_jsonl_parser.h"

using namespace traindeck;
using Clock = std::chrono::steady_clock;

static double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
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
  ::unlink(path.c_str());

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
  return 0;
}
