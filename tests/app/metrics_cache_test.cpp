// The metrics cache: a long history read once comes back from the cache on the next opening,
// the same records as a parse of the whole file, with only the lines appended since parsed; a
// cache that is cut, corrupt, of another version, or of bytes the file no longer begins with
// (another history, a truncation, a rewrite in place) is ignored, so the curves are never wrong.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include "batch_compare.h"
#include "bytes_hash.h"
#include "metrics_cache.h"
#include "metrics_cache_file.h"
#include "metrics_follower.h"
#include "prefix_fingerprint.h"
#include "run_registry.h"
#include "runlog/metrics_jsonl_parser.h"

using namespace traindeck;

namespace {

// About 200 bytes a line, every kind, now and then a line that is not JSON; `seed` changes the
// values, not the lengths.
QByteArray history(int lines, int seed) {
  QByteArray out = R"({"kind":"header","schema":1,"run_id":"r","total_steps":9999999,"tokens_per_step":2048})"
                   "\n";
  for (int i = 1; i <= lines; ++i) {
    const double loss = 5.0 / (1 + i) + 0.001 * ((i * 7 + seed) % 100);
    out += QStringLiteral(R"({"kind":"train","time":%1,"step":%2,"tokens":%3,"loss":%4,"lr":0.0006,)"
                          R"("grad_norm":%5,"tokens_per_s":20000.5,"step_ms":101.25})")
               .arg(1.7e9 + i, 0, 'f', 3)
               .arg(i)
               .arg(2048 * i)
               .arg(loss, 0, 'f', 6)
               .arg(1.0 + 0.0001 * ((i + seed) % 1000), 0, 'f', 4)
               .toUtf8() +
           "\n";
    if (i % 1000 == 0)
      out += QStringLiteral(R"({"kind":"eval","time":%1,"step":%2,"tokens":%3,"val_loss":%4})")
                 .arg(1.7e9 + i, 0, 'f', 3)
                 .arg(i)
                 .arg(2048 * i)
                 .arg(loss + 0.1, 0, 'f', 6)
                 .toUtf8() +
             "\n";
    if (i % 500 == 0)
      out += QStringLiteral(R"({"kind":"system","time":%1,"rank":%2,"device":"cuda:%2","util":0.5,)"
                            R"("mem_used":1000,"mem_total":2000,"power_w":300})")
                 .arg(1.7e9 + i, 0, 'f', 3)
                 .arg(i / 500 % 2)
                 .toUtf8() +
             "\n";
    if (i % 1000 == 0)
      out += QStringLiteral(R"({"kind":"event","time":%1,"level":"info","rank":0,"msg":"checkpoint saved","step":%2})")
                 .arg(1.7e9 + i, 0, 'f', 3)
                 .arg(i)
                 .toUtf8() +
             "\n";
    if (i % 50000 == 0) out += "not json\n";
  }
  return out;
}

// Lines enough for a file past MetricsCache::kFromBytes.
constexpr int kLongLines = 130000;

void write(const QString& path, const QByteArray& bytes, QIODevice::OpenMode mode = QIODevice::WriteOnly) {
  QFile f(path);
  QVERIFY(f.open(mode));
  QCOMPARE(f.write(bytes), bytes.size());
}

MetricsBatch parseWhole(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  const QByteArray bytes = f.readAll();
  MetricsJsonlParser parser;
  return parser.feed(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())));
}

// What a follower of `runDir` emits until it has read all there is, joined as a store would;
// `first` gets its first batch.
MetricsBatch follow(const QString& runDir, const MetricsCache& cache, MetricsBatch* first = nullptr) {
  MetricsFollower follower(runDir, cache);
  std::vector<MetricsBatch> batches;
  QObject::connect(&follower, &MetricsFollower::metricsAvailable,
                   [&](const SharedMetricsBatch& b) { batches.push_back(*b); });
  for (int i = 0; i < 20; ++i) follower.poll();
  if (first && !batches.empty()) *first = batches.front();
  MetricsBatch all;
  for (MetricsBatch& b : batches) appendBatch(all, std::move(b));
  return all;
}

// Follows `runDir` and checks the result against a parse of the whole file.
void checkSameAsWholeParse(const QString& runDir, const MetricsCache& cache) {
  const MetricsBatch followed = follow(runDir, cache);
  QCOMPARE(test::difference(followed, parseWhole(QDir(runDir).filePath("metrics.jsonl"))), std::string());
}

void flipByte(const QString& path, qint64 at) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::ReadWrite));
  QVERIFY(f.seek(at));
  char c = 0;
  QVERIFY(f.getChar(&c));
  QVERIFY(f.seek(at));
  QVERIFY(f.putChar(static_cast<char>(c ^ 0x10)));
}

std::int64_t modifiedNs(const QString& path) {
  struct stat st {};
  ::stat(QFile::encodeName(path).constData(), &st);
  return static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

}  // namespace

class MetricsCacheTest : public QObject {
  Q_OBJECT
 private slots:
  void theHashIsOfTheBytesNotOfTheirCuts() {
    QByteArray bytes(10007, '\0');
    for (char& c : bytes) c = static_cast<char>(QRandomGenerator::global()->bounded(256));
    const std::string_view all(bytes.constData(), static_cast<std::size_t>(bytes.size()));
    const std::uint64_t whole = hashBytes(all);
    for (std::size_t cut : {1u, 3u, 31u, 32u, 33u, 4096u}) {
      BytesHasher h;
      for (std::size_t at = 0; at < all.size(); at += cut) h.add(all.substr(at, cut));
      QCOMPARE(h.value(), whole);
    }
    QVERIFY(hashBytes(all.substr(0, all.size() - 1)) != whole);
    for (int at : {0, 5000, 10006}) {
      QByteArray changed = bytes;
      changed[at] = static_cast<char>(changed[at] ^ 1);
      QVERIFY(hashBytes(std::string_view(changed.constData(), all.size())) != whole);
    }
  }

  // The follower's fingerprint, fed what it reads in any pieces, is the one taken from the file.
  void theFingerprintFedIsTheOneReadFromTheFile() {
    QTemporaryDir dir;
    const QString path = dir.filePath("metrics.jsonl");
    const QByteArray bytes = history(20000, 1);  // ~4 MiB: several sampled blocks
    write(path, bytes);
    const int fd = ::open(QFile::encodeName(path).constData(), O_RDONLY);
    QVERIFY(fd >= 0);
    for (std::int64_t upTo : {std::int64_t(0), std::int64_t(100), std::int64_t(4096), std::int64_t(1 << 20) + 10,
                              static_cast<std::int64_t>(bytes.size())}) {
      PrefixFingerprint fed;
      std::int64_t at = 0;
      while (at < upTo) {
        const std::int64_t n = std::min<std::int64_t>(upTo - at, 1 + QRandomGenerator::global()->bounded(3 << 20));
        fed.feed(std::string_view(bytes.constData() + at, static_cast<std::size_t>(n)));
        at += n;
      }
      const std::optional<PrefixFingerprint> read = PrefixFingerprint::ofFile(fd, upTo);
      QVERIFY(read);
      QCOMPARE(read->bytes(), upTo);
      QCOMPARE(read->value(), fed.value());
    }
    QVERIFY(!PrefixFingerprint::ofFile(fd, bytes.size() + 1));  // past the end
    ::close(fd);
  }

  void aCacheFileReadsBackWhatWasWritten() {
    QTemporaryDir dir;
    const QString path = dir.filePath("metrics.jsonl");
    write(path, history(3000, 2));
    const MetricsBatch batch = parseWhole(path);
    QVERIFY(!batch.train.step.empty() && !batch.eval.step.empty() && !batch.system.empty() && !batch.events.empty());
    const MetricsCacheStamp stamp{.path = "/x/metrics.jsonl",
                                  .recordBytes = 123,
                                  .sampledBytes = 130,
                                  .fingerprint = 42,
                                  .fileSize = 140,
                                  .modifiedNs = 7};
    const std::string file = QFile::encodeName(dir.filePath("c.metrics")).toStdString();
    QVERIFY(writeMetricsCacheFile(file, stamp, batch));
    const std::optional<MetricsCacheContents> read = readMetricsCacheFile(file);
    QVERIFY(read);
    QVERIFY(read->stamp == stamp);
    QCOMPARE(readMetricsCacheStamp(file)->fingerprint, 42u);
    QCOMPARE(test::difference(read->batch, batch), std::string());
  }

  // Opened again, a long run comes from the cache in one batch (no preview), and lines appended
  // since are parsed after it: the same records as a parse of the whole file.
  void theNextOpeningReadsTheCacheAndParsesOnlyWhatCameSince() {
    QTemporaryDir dir, cacheDir;
    const MetricsCache cache(cacheDir.path());
    const QString path = dir.filePath("metrics.jsonl");
    write(path, history(kLongLines, 3));
    QVERIFY(QFileInfo(path).size() >= MetricsCache::kFromBytes);
    checkSameAsWholeParse(dir.path(), cache);  // the first opening: preview, then whole
    const QString cacheFile = cache.fileFor(QFileInfo(path).absoluteFilePath());
    QVERIFY(QFileInfo::exists(cacheFile));

    MetricsBatch first;
    const MetricsBatch again = follow(dir.path(), cache, &first);
    QCOMPARE(test::difference(again, parseWhole(path)), std::string());
    QCOMPARE(QString::fromStdString(test::difference(first, again)), QString());  // one batch, the whole run

    // Appended lines, and a partial last one that is held until its newline comes.
    QByteArray more = history(2000, 4).mid(history(0, 0).size());  // without its header
    write(path, more + "{\"kind\":\"train\",\"time\":1,\"st", QIODevice::Append);
    checkSameAsWholeParse(dir.path(), cache);
    write(path, "ep\":999999,\"loss\":1}\n", QIODevice::Append);
    checkSameAsWholeParse(dir.path(), cache);
    QVERIFY(cache.load(QFileInfo(path).absoluteFilePath()));
  }

  // The app's path: a session's store, opened cold and then again from the cache (the batch
  // handed over, its columns taken), holds what a parse of the whole file gives.
  void aSessionOpenedAgainStoresTheSameRecords() {
    QTemporaryDir dir, cacheDir;
    const QString path = dir.filePath("metrics.jsonl");
    write(path, history(kLongLines, 11));
    const MetricsBatch whole = parseWhole(path);
    for (int opening = 0; opening < 2; ++opening) {
      RunRegistry registry(nullptr, MetricsCache(cacheDir.path()));
      const std::shared_ptr<const RunSession> session = registry.session(dir.path(), RunRegistry::Follow::MetricsOnly);
      QTRY_COMPARE_WITH_TIMEOUT(session->metrics().train().size(), whole.train.size(), 20000);
      const MetricsStore& store = session->metrics();
      QCOMPARE(store.train().step, whole.train.step);
      QVERIFY(test::sameFloats(store.train().loss, whole.train.loss));
      QVERIFY(test::sameFloats(store.train().gradNorm, whole.train.gradNorm));
      QCOMPARE(store.eval().step, whole.eval.step);
      QCOMPARE(store.events().size(), whole.events.size());
      QCOMPARE(store.system().size(), std::size_t(2));
      QCOMPARE(store.garbageLines(), whole.garbageLines);
      QCOMPARE(store.header().totalSteps, whole.header.totalSteps);
      QTRY_VERIFY_WITH_TIMEOUT(MetricsCache(cacheDir.path()).load(QFileInfo(path).absoluteFilePath()), 20000);
    }
  }

  // A cache of bytes the file no longer begins with is never used.
  void aStaleCacheIsIgnored() {
    QTemporaryDir dir, cacheDir;
    const MetricsCache cache(cacheDir.path());
    const QString path = dir.filePath("metrics.jsonl");
    const QString absolute = QFileInfo(path).absoluteFilePath();
    const QByteArray original = history(kLongLines, 5);
    write(path, original);
    checkSameAsWholeParse(dir.path(), cache);
    QVERIFY(cache.load(absolute));

    // Another history of the same length, renamed over the file.
    const QByteArray other = history(kLongLines, 6);
    QCOMPARE(other.size(), original.size());
    write(dir.filePath("new.jsonl"), other);
    QVERIFY(::rename(QFile::encodeName(dir.filePath("new.jsonl")).constData(), QFile::encodeName(path).constData()) ==
            0);
    QVERIFY(!cache.load(absolute));
    checkSameAsWholeParse(dir.path(), cache);  // and the cache is made anew, of this one
    QVERIFY(cache.load(absolute));

    // Cut short, then longer again but another history past the cut.
    write(path, other.left(other.size() / 2));
    QVERIFY(!cache.load(absolute));
    write(path, other.left(other.size() / 2) + original.mid(other.size() / 2));
    QVERIFY(!cache.load(absolute));
    checkSameAsWholeParse(dir.path(), cache);

    // One value rewritten in place (same size): the modification time tells.
    QVERIFY(cache.load(absolute));
    const std::int64_t before = modifiedNs(path);
    QByteArray bytes = other.left(other.size() / 2) + original.mid(other.size() / 2);
    const qsizetype at = bytes.indexOf("\"loss\":", bytes.size() / 3) + 8;
    bytes[at] = bytes[at] == '1' ? '2' : '1';
    QTest::qWait(20);
    write(path, bytes);
    QVERIFY(modifiedNs(path) != before);
    QVERIFY(!cache.load(absolute));
    checkSameAsWholeParse(dir.path(), cache);
  }

  // A cache file that is cut, changed, of another version, or not one at all reads as none.
  void aCorruptCacheIsIgnored() {
    QTemporaryDir dir, cacheDir;
    const MetricsCache cache(cacheDir.path());
    const QString path = dir.filePath("metrics.jsonl");
    const QString absolute = QFileInfo(path).absoluteFilePath();
    write(path, history(kLongLines, 7));
    checkSameAsWholeParse(dir.path(), cache);
    const QString cacheFile = cache.fileFor(absolute);
    QFile file(cacheFile);
    const qint64 size = file.size();
    QVERIFY(size > 1000000);
    QVERIFY(cache.load(absolute));

    const auto damage = [&](const std::function<void()>& how) {
      QFile::remove(cacheFile + ".good");
      QVERIFY(QFile::copy(cacheFile, cacheFile + ".good"));
      how();
      QVERIFY(!cache.load(absolute));
      checkSameAsWholeParse(dir.path(), cache);  // parsed, and cached anew
      QVERIFY(cache.load(absolute));
    };
    damage([&] { flipByte(cacheFile, size / 2); });  // inside the columns
    damage([&] { flipByte(cacheFile, size - 3); });  // the last event
    damage([&] { flipByte(cacheFile, 60); });        // the stamp
    damage([&] { flipByte(cacheFile, 9); });         // the version
    damage([&] { QVERIFY(QFile::resize(cacheFile, size - 100)); });
    damage([&] { QVERIFY(QFile::resize(cacheFile, 20)); });
    damage([&] { write(cacheFile, QByteArray(4096, 'x')); });
    damage([&] { write(cacheFile, QByteArray()); });
  }

  // Another metrics file's cache under this file's name (a hash collision, a copied cache
  // folder) is not this file's.
  void anotherFilesCacheIsNotUsed() {
    QTemporaryDir a, b, cacheDir;
    const MetricsCache cache(cacheDir.path());
    const QByteArray bytes = history(kLongLines, 8);
    write(a.filePath("metrics.jsonl"), bytes);
    write(b.filePath("metrics.jsonl"), bytes);
    checkSameAsWholeParse(a.path(), cache);
    const QString pathB = QFileInfo(b.filePath("metrics.jsonl")).absoluteFilePath();
    QVERIFY(
        QFile::copy(cache.fileFor(QFileInfo(a.filePath("metrics.jsonl")).absoluteFilePath()), cache.fileFor(pathB)));
    QVERIFY(!cache.load(pathB));
  }

  void cachesOfGoneFilesAreRemoved() {
    QTemporaryDir cacheDir;
    const MetricsCache cache(cacheDir.path());
    auto gone = std::make_unique<QTemporaryDir>();
    QTemporaryDir kept;
    for (const QTemporaryDir* d : {gone.get(), &kept}) {
      write(d->filePath("metrics.jsonl"), history(kLongLines, 9));
      checkSameAsWholeParse(d->path(), cache);
    }
    write(cacheDir.filePath("junk.metrics"), "junk");
    write(cacheDir.filePath("0123.metrics.tmp-7f00"), "cut short");
    gone.reset();
    QCOMPARE(cache.removeGone(), 3);
    QCOMPARE(QDir(cacheDir.path()).entryList(QDir::Files).size(), 1);
    QVERIFY(cache.load(QFileInfo(kept.filePath("metrics.jsonl")).absoluteFilePath()));
  }

  // Without a cache, or for a short file, nothing is written.
  void shortFilesAndNoCacheWriteNothing() {
    QTemporaryDir dir, cacheDir;
    write(dir.filePath("metrics.jsonl"), history(1000, 1));
    checkSameAsWholeParse(dir.path(), MetricsCache(cacheDir.path()));
    QVERIFY(QDir(cacheDir.path()).isEmpty());
    checkSameAsWholeParse(dir.path(), MetricsCache());
  }
};

QTEST_GUILESS_MAIN(MetricsCacheTest)
#include "metrics_cache_test.moc"
