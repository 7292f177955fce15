// MetricsJsonlParser and MetricsStore on a recorded metrics.jsonl: the same records however the
// bytes are chunked, garbage skipped and counted, the fast path agreeing with parseJson, and
// "the later record wins" for steps a resumed run logs again.
#include <QFile>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <cstdio>
#include <string_view>

#include "batch_compare.h"
#include "metrics_store.h"
#include "runlog/json_value.h"
#include "runlog/metrics_jsonl_parser.h"
#include "runlog/metrics_keys.h"
#include "runlog/metrics_preview.h"
#include "runlog/metrics_record_scan.h"

using namespace traindeck;

namespace {

std::string_view view(const QByteArray& bytes) {
  return {bytes.constData(), static_cast<std::size_t>(bytes.size())};
}

MetricsBatch parseInChunks(std::string_view bytes, const std::vector<std::size_t>& sizes) {
  MetricsJsonlParser parser;
  MetricsBatch all;
  std::size_t pos = 0, k = 0;
  while (pos < bytes.size()) {
    const std::size_t n = std::min(sizes[k++ % sizes.size()], bytes.size() - pos);
    appendBatch(all, parser.feed(bytes.substr(pos, n)));
    pos += n;
  }
  return all;
}

}  // namespace

class MetricsParserTest : public QObject {
  Q_OBJECT
 private slots:
  // The scanner matches keys by length first; every key the trainer writes through
  // core/runlog/metrics_keys.h must land on its own slot (a renamed key would read as absent).
  void everySharedKeyHasItsSlot() {
    namespace key = metrics_key;
    const std::pair<std::string_view, FlatKey> keys[] = {{key::kKind, FlatKey::Kind},
                                                         {key::kTime, FlatKey::Time},
                                                         {key::kStep, FlatKey::Step},
                                                         {key::kTokens, FlatKey::Tokens},
                                                         {key::kLoss, FlatKey::Loss},
                                                         {key::kLr, FlatKey::Lr},
                                                         {key::kGradNorm, FlatKey::GradNorm},
                                                         {key::kTokensPerSecond, FlatKey::TokensPerSecond},
                                                         {key::kStepMs, FlatKey::StepMs},
                                                         {key::kMfu, FlatKey::Mfu},
                                                         {key::kValLoss, FlatKey::ValLoss},
                                                         {key::kRank, FlatKey::Rank},
                                                         {key::kDevice, FlatKey::Device},
                                                         {key::kUtil, FlatKey::Util},
                                                         {key::kMemUsed, FlatKey::MemUsed},
                                                         {key::kMemTotal, FlatKey::MemTotal},
                                                         {key::kPowerW, FlatKey::PowerW},
                                                         {key::kTempC, FlatKey::TempC},
                                                         {key::kLevel, FlatKey::Level},
                                                         {key::kMsg, FlatKey::Msg},
                                                         {key::kSchema, FlatKey::Schema},
                                                         {key::kRunId, FlatKey::RunId},
                                                         {key::kParameters, FlatKey::Parameters},
                                                         {key::kWorldSize, FlatKey::WorldSize},
                                                         {key::kTokensPerStep, FlatKey::TokensPerStep},
                                                         {key::kTotalSteps, FlatKey::TotalSteps},
                                                         {key::kStartStep, FlatKey::StartStep}};
    QCOMPARE(std::size(keys), static_cast<std::size_t>(FlatKey::Count));
    for (const auto& [name, slot] : keys) QVERIFY2(flatKeyOf(name) == slot, std::string(name).c_str());
    QVERIFY(flatKeyOf("comm_ms") == FlatKey::Count);  // written, not read: ignored
  }

  void wholeFixture() {
    const QByteArray bytes = test::readFixture("metrics.jsonl");
    QVERIFY(!bytes.isEmpty());
    MetricsJsonlParser parser;
    const MetricsBatch b = parser.feed(view(bytes));
    QVERIFY(b.hasHeader);
    QCOMPARE(b.header.runId, std::string("20261130-083449-tiny-ddp"));
    QCOMPARE(b.header.totalSteps, 40);
    QCOMPARE(b.header.worldSize, 2);
    QCOMPARE(b.train.size(), std::size_t(30));
    QCOMPARE(b.train.step.front(), 1);
    QCOMPARE(b.train.step.back(), 30);
    QCOMPARE(b.train.tokens[9], 2560);
    QVERIFY(std::isnan(b.train.loss[16]));  // step 17 logged null
    QVERIFY(std::isnan(b.train.mfu[0]));    // absent
    QCOMPARE(b.train.stepMs[0], 400.25f);
    QCOMPARE(b.train.time[0], 1764491689.65);
    QCOMPARE(b.eval.size(), std::size_t(3));
    QCOMPARE(b.eval.step[2], 30);
    QCOMPARE(b.system.size(), std::size_t(8));
    QCOMPARE(b.system[1].rank, 1);
    QCOMPARE(b.system[1].device, std::string("cuda:1"));
    QCOMPARE(b.system[1].powerW, 212.5f);
    QCOMPARE(b.system[1].tempC, 61.f);
    QCOMPARE(b.system[0].powerW, -1.f);
    QCOMPARE(b.system[0].memTotal, 16777216000LL);
    QCOMPARE(b.events.size(), std::size_t(6));
    QCOMPARE(b.events[2].level, std::string("warn"));
    QCOMPARE(b.events[2].step, 17);
    QCOMPARE(b.events[0].step, -1);
    QCOMPARE(b.events[1].message, std::string("checkpoint saved: \"step-00000010\" \u2014 ok"));
    QCOMPARE(b.events[5].message, std::string("rank 1 exited with code 1\ttab"));
    QCOMPARE(b.garbageLines, 0);
    QCOMPARE(parser.pendingBytes(), std::size_t(0));
  }

  void chunkingDoesNotMatter() {
    const QByteArray bytes = test::readFixture("metrics.jsonl");
    MetricsJsonlParser parser;
    const MetricsBatch whole = parser.feed(view(bytes));
    const MetricsBatch byByte = parseInChunks(view(bytes), {1});
    QCOMPARE(test::difference(whole, byByte), std::string());
    QRandomGenerator random(20261130);
    for (int round = 0; round < 50; ++round) {
      std::vector<std::size_t> sizes;
      for (int i = 0; i < 64; ++i) sizes.push_back(1 + random.bounded(400));
      QCOMPARE(test::difference(whole, parseInChunks(view(bytes), sizes)), std::string());
    }
  }

  // A big read is parsed by several threads in pieces that end at newlines: the same records in
  // the same order as line by line, headers, garbage, an overlong line and a partial last line
  // included, wherever the pieces fall.
  void aBigReadParsedInPiecesEqualsOneByOne() {
    const QByteArray fixture = test::readFixture("metrics.jsonl");
    QByteArray bytes;
    for (int copy = 0; bytes.size() < static_cast<qsizetype>(MetricsJsonlParser::kParallelBytes) * 2; ++copy) {
      bytes += fixture;
      if (copy % 97 == 5) bytes += "not json\n";
      if (copy == 200) bytes += QByteArray(static_cast<qsizetype>(MetricsJsonlParser::kMaxLineBytes) + 3, 'x') + "\n";
    }
    bytes += "{\"kind\":\"train\",\"time\":9,\"step\":9,\"lo";
    MetricsBatch byLine;
    MetricsJsonlParser lineParser;
    for (const QByteArray& line : bytes.split('\n').mid(0, bytes.count('\n')))
      appendBatch(byLine, lineParser.feed(view(line + "\n")));
    MetricsJsonlParser parser;
    const MetricsBatch whole = parser.feed(view(bytes));
    QVERIFY(whole.train.size() > 10000);
    QVERIFY(whole.garbageLines > 10);
    QCOMPARE(test::difference(byLine, whole), std::string());
    QVERIFY(parser.pendingBytes() > 0);  // the partial last line waits for its newline
    const MetricsBatch last = parser.feed("ss\":1.5}\n");
    QCOMPARE(last.train.size(), std::size_t(1));
    QCOMPARE(last.train.loss[0], 1.5f);
  }

  // A whole file parsed at once (each thread reading its own stretch): the records a parse of
  // its bytes gives, up to its last newline; the partial line after it is left, and so is
  // everything of a file with no newline at all.
  void aFileParsedAtOnceEqualsItsBytesParsed() {
    const QByteArray fixture = test::readFixture("metrics.jsonl");
    QByteArray bytes;
    for (int copy = 0; bytes.size() < static_cast<qsizetype>(MetricsJsonlParser::kParallelBytes) * 2; ++copy) {
      bytes += fixture;
      if (copy % 89 == 3) bytes += "{\"kind\":\"train\",\"step\":\"x\"}\n";
      if (copy == 150) bytes += QByteArray(static_cast<qsizetype>(MetricsJsonlParser::kMaxLineBytes) + 3, 'y') + "\n";
    }
    const qsizetype whole = bytes.size();
    bytes += "{\"kind\":\"train\",\"time\":9,\"step\":9,\"lo";
    QTemporaryDir dir;
    const QString path = dir.filePath("metrics.jsonl");
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(bytes);
    file.close();
    QVERIFY(file.open(QIODevice::ReadOnly));
    const std::optional<MetricsFileRecords> read = parseMetricsFile(file.handle());
    QVERIFY(read.has_value());
    QCOMPARE(read->recordBytes, static_cast<std::int64_t>(whole));
    MetricsJsonlParser parser;
    const MetricsBatch expected = parser.feed(view(bytes.left(whole)));
    QVERIFY(expected.train.size() > 10000 && expected.garbageLines > 10);
    QCOMPARE(test::difference(expected, read->batch), std::string());
    file.close();

    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write("{\"kind\":\"train\",\"step\":1}");
    file.close();
    QVERIFY(file.open(QIODevice::ReadOnly));
    const std::optional<MetricsFileRecords> none = parseMetricsFile(file.handle());
    QVERIFY(none.has_value());
    QCOMPARE(none->recordBytes, std::int64_t(0));
    QVERIFY(none->batch.empty());
  }

  void partialLastLineIsHeldBack() {
    MetricsJsonlParser parser;
    MetricsBatch b = parser.feed(R"({"kind":"train","time":1,"step":1,"loss":2.5})"
                                 "\n"
                                 R"({"kind":"train","ti)");
    QCOMPARE(b.train.size(), std::size_t(1));
    QVERIFY(parser.pendingBytes() > 0);
    b = parser.feed(R"(me":2,"step":2,"loss":2.25})");
    QVERIFY(b.empty());
    b = parser.feed("\n");
    QCOMPARE(b.train.size(), std::size_t(1));
    QCOMPARE(b.train.step[0], 2);
    QCOMPARE(b.train.loss[0], 2.25f);
  }

  void garbageIsSkippedAndCounted() {
    const QByteArray bytes = test::readFixture("metrics.jsonl");
    const QList<QByteArray> lines = bytes.split('\n');
    const QByteArray junk[] = {
        QByteArray("\x00\xff\xfe\x80garbage\x01", 11),
        QByteArray(R"({"kind":"train","time":1,"step":)"),
        QByteArray(R"([{"kind":"train","step":5}])"),
        QByteArray(),
        QByteArray(R"({"kind":"train","step":1.5,"loss":1})"),  // a train record without an integer step
        QByteArray(R"({"kind":"train","step":01,"loss":1})"),   // not JSON: a leading zero
        QByteArray(R"({"kind":"train","step":7,"loss":1} x)"),
        QByteArray("{\"kind\":\"event\",\"msg\":\"bad utf-8 \xc3\x28\"}"),
    };
    QByteArray mixed;
    int inserted = 0;
    for (qsizetype i = 0; i + 1 < lines.size(); ++i) {  // the last element is after the final newline
      mixed += lines[i] + '\n';
      if (i % 6 == 2) {
        mixed += junk[inserted % std::size(junk)] + '\n';
        ++inserted;
      }
    }
    MetricsJsonlParser clean;
    const MetricsBatch expected = clean.feed(view(bytes));
    MetricsJsonlParser parser;
    MetricsBatch got = parser.feed(view(mixed));
    QCOMPARE(got.garbageLines, inserted);
    got.garbageLines = 0;
    QCOMPARE(test::difference(expected, got), std::string());
    // The same in random chunks.
    QRandomGenerator random(7);
    std::vector<std::size_t> sizes;
    for (int i = 0; i < 64; ++i) sizes.push_back(1 + random.bounded(97));
    MetricsBatch chunked = parseInChunks(view(mixed), sizes);
    QCOMPARE(chunked.garbageLines, inserted);
  }

  void fastPathAgreesWithParseJson() {
    const QByteArray bytes = test::readFixture("metrics.jsonl");
    int fast = 0;
    for (const QByteArray& line : bytes.split('\n')) {
      if (line.isEmpty()) continue;
      FlatRecord quick, slow;
      const bool scanned = scanFlatRecord(view(line), quick);
      const JsonParseResult parsed = parseJson(view(line));
      QVERIFY(parsed.ok());
      flatRecordFromJson(parsed.value, slow);
      if (!scanned) continue;  // escapes, nesting, non-ASCII: the slow path's lines
      ++fast;
      for (int k = 0; k < static_cast<int>(FlatKey::Count); ++k) {
        const FlatValue &a = quick[FlatKey(k)], &b = slow[FlatKey(k)];
        QCOMPARE(a.type, b.type);
        QCOMPARE(a.exactInteger, b.exactInteger);
        if (a.exactInteger) QCOMPARE(a.integer, b.integer);
        if (a.type == FlatValue::Type::Number) QCOMPARE(a.number, b.number);
        QCOMPARE(a.text, b.text);
      }
    }
    QVERIFY(fast >= 30);  // nested unknown fields and escaped strings take the slow path
  }

  void fastNumbersMatchParseJson() {
    QRandomGenerator random(42);
    const char* formats[] = {"%.17g", "%.15g", "%.9g", "%.6g", "%.3e", "%.16e", "%.10f"};
    for (int i = 0; i < 20000; ++i) {
      const double magnitude = std::pow(10.0, random.bounded(40.0) - 20.0);
      const double x = (random.bounded(2) ? -1 : 1) * random.generateDouble() * magnitude;
      char number[64];
      std::snprintf(number, sizeof number, formats[i % std::size(formats)], x);
      const std::string line = std::string("{\"loss\":") + number + "}";
      FlatRecord quick;
      QVERIFY2(scanFlatRecord(line, quick), line.c_str());
      const JsonParseResult parsed = parseJson(line);
      QVERIFY(parsed.ok());
      const double expected = parsed.value.numberOr("loss", 0);
      QVERIFY2(quick[FlatKey::Loss].number == expected, line.c_str());
    }
  }

  void neverCrashesOnMutatedInput() {
    const QByteArray bytes = test::readFixture("metrics.jsonl");
    QRandomGenerator random(99);
    for (int round = 0; round < 300; ++round) {
      QByteArray mutated = bytes;
      for (int i = 0; i < 20; ++i)
        mutated[random.bounded(static_cast<int>(mutated.size()))] = static_cast<char>(random.bounded(256));
      MetricsJsonlParser parser;
      const MetricsBatch b = parser.feed(view(mutated));
      QVERIFY(b.train.size() <= 30);
      MetricsStore store;
      store.append(b);
    }
  }

  void overlongLineIsDropped() {
    MetricsJsonlParser parser;
    const std::string big(MetricsJsonlParser::kMaxLineBytes + 10, 'x');
    MetricsBatch b = parser.feed(big.substr(0, 100));
    int garbage = b.garbageLines;
    b = parser.feed(big.substr(100));  // over the limit: dropped now, not held
    garbage += b.garbageLines;
    QCOMPARE(parser.pendingBytes(), std::size_t(0));
    b = parser.feed("tail\n{\"kind\":\"eval\",\"step\":3,\"val_loss\":1.5}\n");  // its rest is skipped
    garbage += b.garbageLines;
    QCOMPARE(garbage, 1);
    QCOMPARE(b.eval.size(), std::size_t(1));
  }

  void storeKeepsLaterRecordsAfterResume() {
    // A run logs steps 1..20, dies after its checkpoint at 10, resumes and logs 11..25.
    std::string text = R"({"kind":"header","time":0,"schema":1,"run_id":"r","total_steps":25,"start_step":0})"
                       "\n";
    auto train = [&](int step, double loss) {
      text += "{\"kind\":\"train\",\"time\":" + std::to_string(step) + ",\"step\":" + std::to_string(step) +
              ",\"loss\":" + std::to_string(loss) + "}\n";
    };
    auto eval = [&](int step, double loss) {
      text += "{\"kind\":\"eval\",\"step\":" + std::to_string(step) + ",\"val_loss\":" + std::to_string(loss) + "}\n";
    };
    for (int s = 1; s <= 20; ++s) {
      train(s, 100 + s);
      if (s % 10 == 0) eval(s, 100 + s);
    }
    text += R"({"kind":"header","time":30,"schema":1,"run_id":"r","total_steps":25,"start_step":10})"
            "\n";
    for (int s = 11; s <= 25; ++s) {
      train(s, 200 + s);
      if (s % 10 == 0) eval(s, 200 + s);
    }
    for (const std::size_t chunk : {text.size(), std::size_t(1), std::size_t(37)}) {
      MetricsStore store;
      MetricsJsonlParser parser;
      for (std::size_t pos = 0; pos < text.size(); pos += chunk)
        store.append(parser.feed(std::string_view(text).substr(pos, chunk)));
      QCOMPARE(store.train().size(), std::size_t(25));
      for (std::size_t i = 0; i < 25; ++i) {
        const int step = static_cast<int>(i) + 1;
        QCOMPARE(store.train().step[i], step);
        QCOMPARE(store.train().loss[i], static_cast<float>(step <= 10 ? 100 + step : 200 + step));
      }
      QCOMPARE(store.eval().size(), std::size_t(2));
      QCOMPARE(store.eval().valLoss[0], 110.f);
      QCOMPARE(store.eval().valLoss[1], 220.f);
      QCOMPARE(store.header().startStep, 10);
    }
  }

  void storeSplitsSystemByRankAndRestarts() {
    const QByteArray bytes = test::readFixture("metrics.jsonl");
    MetricsJsonlParser parser;
    MetricsStore store;
    store.append(parser.feed(view(bytes)));
    QCOMPARE(store.system().size(), std::size_t(2));
    QCOMPARE(store.system().at(1).size(), std::size_t(4));
    QCOMPARE(store.events().size(), std::size_t(6));
    QVERIFY(store.bytesPerTrainPoint() >= 48);
    MetricsBatch restart;
    restart.restart = true;
    store.append(restart);
    QCOMPARE(store.train().size(), std::size_t(0));
    QVERIFY(store.system().empty());
  }

  // A preview samples whole lines, in file order, each parsed as the whole file parses it; the
  // header and the last complete record are in it, a partial last line is not.
  void previewSamplesWholeLines() {
    QTemporaryDir dir;
    const QString path = dir.filePath("metrics.jsonl");
    QByteArray bytes = "{\"kind\":\"header\",\"time\":1.7e9,\"schema\":1,\"total_steps\":30000}\n";
    for (int step = 1; step <= 20000; ++step) {
      bytes += "{\"kind\":\"train\",\"time\":" + QByteArray::number(1.7e9 + step, 'f', 3) +
               ",\"step\":" + QByteArray::number(step) + ",\"loss\":" + QByteArray::number(5.0 / step, 'g', 9) + "}\n";
      if (step % 1000 == 0) bytes += "{\"kind\":\"eval\",\"step\":" + QByteArray::number(step) + ",\"val_loss\":2}\n";
    }
    bytes += "{\"kind\":\"train\",\"time\":1,\"st";  // being written
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(bytes);
    file.close();
    const MetricsBatch whole = MetricsJsonlParser().feed(view(bytes));
    const MetricsBatch preview = metricsPreview(path.toStdString(), 500);
    QVERIFY(preview.hasHeader);
    QCOMPARE(preview.header.totalSteps, 30000);
    QCOMPARE(preview.garbageLines, 0);
    QVERIFY2(preview.train.size() > 400 && preview.train.size() <= 502,
             qPrintable(QString::number(preview.train.size())));
    QCOMPARE(preview.eval.step.back(), 20000);  // the last complete record (an eval)
    for (std::size_t i = 0; i < preview.train.size(); ++i) {
      if (i > 0) QVERIFY(preview.train.step[i] > preview.train.step[i - 1]);
      const auto row = static_cast<std::size_t>(preview.train.step[i] - 1);
      QCOMPARE(preview.train.loss[i], whole.train.loss[row]);
      QCOMPARE(preview.train.time[i], whole.train.time[row]);
    }
    // Spread over the whole file, not bunched at its start.
    QVERIFY(preview.train.step[preview.train.size() / 2] > 8000 &&
            preview.train.step[preview.train.size() / 2] < 12000);
    QVERIFY(metricsPreview(dir.filePath("missing.jsonl").toStdString(), 500).empty());
  }
};

QTEST_GUILESS_MAIN(MetricsParserTest)
#include "metrics_parser_test.moc"
