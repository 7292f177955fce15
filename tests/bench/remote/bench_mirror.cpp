// The mirror of a remote run under load, against the tests' sshd (real OpenSSH on 127.0.0.1)
// through a socat ProxyCommand. A fake run (run.json "running", a sleeping process standing for
// its supervisor) is followed by RemoteJob::attach, as the app re-attaches to a run; a writer
// thread appends train records to its metrics.jsonl "there" (the remote work folder).
//   latency: 20 records/s for 10 s, each timed from its write to its arrival in the mirror, once
//            the follower's stream runs
//   rate: 20,000 records/s for 10 s: records mirrored per second, and the lag at the end
//   reconnect: the proxy killed while 1,000 records/s arrive: time until the mirror has caught up
//   channel: a command's output (50 MB) through RemoteHost, the path every stream and read takes
// Prints figures; asserts nothing.
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTimer>
#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

#include "event_loop_wait.h"
#include "remote_host.h"
#include "remote_job.h"
#include "remote_record.h"
#include "sshd_server.h"

using namespace traindeck;
using traindeck::test::SshdServer;
using traindeck::test_support::runEventsUntil;

namespace {

QString fileText(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()).trimmed() : QString();
}

qint64 fileSize(const QString& path) {
  return QFileInfo(path).size();
}

qint64 lineCount(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll().count('\n') : 0;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())))];
}

// Appends `perTick` records every `tickMs` to `path` until stopped; records each record's
// write time (ms on `clock`) by its sequence number.
struct Writer {
  QString path;
  int perTick = 1, tickMs = 50;
  std::atomic<bool> running{true};
  std::mutex mutex;
  std::vector<qint64> writtenAt;
  std::thread thread;
  const QElapsedTimer* clock = nullptr;

  void start() {
    thread = std::thread([this] {
      QFile out(path);
      out.open(QIODevice::Append);
      while (running) {
        QByteArray chunk;
        {
          std::lock_guard<std::mutex> lock(mutex);
          for (int i = 0; i < perTick; ++i) {
            const std::size_t seq = writtenAt.size();
            chunk +=
                QString("{\"kind\":\"train\",\"time\":1.7e9,\"step\":%1,\"tokens\":%2,\"loss\":3.25,\"lr\":0.0006}\n")
                    .arg(seq + 1)
                    .arg((seq + 1) * 1024)
                    .toUtf8();
            writtenAt.push_back(clock->elapsed());
          }
        }
        out.write(chunk);
        out.flush();
        std::this_thread::sleep_for(std::chrono::milliseconds(tickMs));
      }
    });
  }
  void stop() {
    running = false;
    if (thread.joinable()) thread.join();
  }
};

}  // namespace

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  if (const QString missing = SshdServer::missingPackage(); !missing.isEmpty()) {
    std::printf("bench_mirror: install %s\n", qPrintable(missing));
    return 0;
  }
  qunsetenv("SSH_AUTH_SOCK");
  SshdServer server;
  if (const QString e = server.start(); !e.isEmpty()) {
    std::printf("bench_mirror: sshd: %s\n", qPrintable(e));
    return 1;
  }
  QTemporaryDir remote, local;
  const QString work = remote.filePath("work"), runDir = work + "/runs/bench";
  QDir().mkpath(runDir + "/logs");
  QFile::copy(TRAINDECK_REMOTE_HELPER, work + "/traindeck-remote-bench.sh");
  QFile runJson(runDir + "/run.json");
  runJson.open(QIODevice::WriteOnly);
  runJson.write(R"({"id":"bench","name":"bench","status":"running","host":"there","world_size":1})");
  runJson.close();
  QFile(runDir + "/metrics.jsonl").open(QIODevice::WriteOnly);
  // The "supervisor": a process that lives while the bench runs.
  QProcess supervisor;
  supervisor.start("sleep", {"100000"});
  supervisor.waitForStarted();
  const QString startTime = SshdServer::processStartTime(supervisor.processId());

  const QString knownHosts = local.filePath("known_hosts");
  server.writeKnownHosts(knownHosts);
  const QString pidFile = local.filePath("proxy.pid");
  RemoteRecord record;
  record.ssh = SshTarget::parse(server.spec());
  record.ssh.host = "127.0.0.1";
  record.ssh.user = server.user();
  record.ssh.port = server.port();
  record.ssh.identityFiles = {server.clientKey()};
  record.ssh.proxyCommand = server.proxyCommand(pidFile);
  record.ssh.knownHostsFile = knownHosts;
  record.workDir = work;
  record.remoteRunDir = runDir;
  record.helper = work + "/traindeck-remote-bench.sh";
  record.pid = supervisor.processId();
  record.startTime = startTime;
  record.bootId = fileText("/proc/sys/kernel/random/boot_id");
  const QString mirrorDir = local.filePath("mirror");
  writeRemoteRecord(mirrorDir, record);

  RemoteJob job;
  if (const QString why = job.attach(mirrorDir, true); !why.isEmpty()) {
    std::printf("bench_mirror: %s\n", qPrintable(why));
    return 1;
  }
  runEventsUntil([&] { return job.link() == Job::Link::Following; }, 20000);
  const QString mirrored = mirrorDir + "/metrics.jsonl", source = runDir + "/metrics.jsonl";
  // The stream's channel takes a few hundred ms to open (a login shell there): the latency below
  // is the steady state's, measured once it runs (a start's own delay is the reconnect figure's).
  runEventsUntil([] { return false; }, 1500);

  QElapsedTimer clock;
  clock.start();
  // Latency: 20 records/s; each record's arrival is seen by polling the mirror's size every 2 ms.
  {
    Writer w;
    w.path = source;
    w.clock = &clock;
    w.perTick = 1;
    w.tickMs = 50;
    w.start();
    std::vector<double> latencies;
    qint64 seenBytes = fileSize(mirrored);
    std::size_t seenRecords = 0;
    const qint64 end = clock.elapsed() + 10000;
    QTimer watch;
    QObject::connect(&watch, &QTimer::timeout, [&] {
      const qint64 size = fileSize(mirrored);
      if (size == seenBytes) return;
      seenBytes = size;
      QFile f(mirrored);
      f.open(QIODevice::ReadOnly);
      const std::size_t records = static_cast<std::size_t>(f.readAll().count('\n'));
      std::lock_guard<std::mutex> lock(w.mutex);
      for (; seenRecords < records && seenRecords < w.writtenAt.size(); ++seenRecords)
        latencies.push_back(static_cast<double>(clock.elapsed() - w.writtenAt[seenRecords]));
    });
    watch.start(2);
    runEventsUntil([&] { return clock.elapsed() > end; }, 20000);
    w.stop();
    std::printf(
        "latency, a record written there -> in the mirror here (%zu records, streamed; polls every %d ms where "
        "no stream runs): p50 %.0f ms, p99 %.0f ms, max %.0f ms\n",
        latencies.size(), RemoteFollower::kPollMs, percentile(latencies, 0.5), percentile(latencies, 0.99),
        percentile(latencies, 1.0));
  }
  runEventsUntil([&] { return fileSize(mirrored) == fileSize(source); }, 20000);
  // Rate: 20,000 records/s for 10 s.
  {
    Writer w;
    w.path = source;
    w.clock = &clock;
    w.perTick = 210;  // a 10 ms timer fires a little late: 210 a tick is over 20,000 a second
    w.tickMs = 10;
    const qint64 startLines = lineCount(mirrored);
    const qint64 t0 = clock.elapsed();
    w.start();
    runEventsUntil([&] { return clock.elapsed() - t0 > 10000; }, 20000);
    w.stop();
    const double seconds = static_cast<double>(clock.elapsed() - t0) / 1000.0;
    const qint64 mirroredLines = lineCount(mirrored) - startLines;
    const qint64 lagBytes = fileSize(source) - fileSize(mirrored);
    const qint64 t1 = clock.elapsed();
    runEventsUntil([&] { return fileSize(mirrored) == fileSize(source); }, 60000);
    std::printf(
        "rate, %zu records written at %.0f/s: mirrored %.0f records/s while writing; %lld records (%lld bytes) "
        "behind at the end, caught up %lld ms later\n",
        w.writtenAt.size(), static_cast<double>(w.writtenAt.size()) / seconds,
        static_cast<double>(mirroredLines) / seconds,
        static_cast<long long>(static_cast<qint64>(w.writtenAt.size()) - mirroredLines),
        static_cast<long long>(lagBytes), static_cast<long long>(clock.elapsed() - t1));
  }
  // Reconnect: the proxy killed while 1,000 records/s arrive.
  {
    Writer w;
    w.path = source;
    w.clock = &clock;
    w.perTick = 10;
    w.tickMs = 10;
    w.start();
    runEventsUntil([] { return false; }, 1000);
    const qint64 killedAt = clock.elapsed();
    ::kill(static_cast<pid_t>(SshdServer::readPid(pidFile)), SIGKILL);
    runEventsUntil([&] { return job.link() != Job::Link::Following; }, 20000);
    const qint64 noticed = clock.elapsed();
    runEventsUntil([&] { return job.link() == Job::Link::Following; }, 60000);
    const qint64 back = clock.elapsed();
    w.stop();
    runEventsUntil([&] { return fileSize(mirrored) == fileSize(source); }, 60000);
    std::printf(
        "reconnect, proxy killed at 1,000 records/s: lost noticed after %lld ms, link back after %lld ms, "
        "mirror caught up %lld ms after the link was back (the writer stopped then); files equal: %s\n",
        static_cast<long long>(noticed - killedAt), static_cast<long long>(back - killedAt),
        static_cast<long long>(clock.elapsed() - back), fileText(mirrored) == fileText(source) ? "yes" : "NO");
  }
  // Channel: what one command's output may carry through the link (the pump that reads it).
  {
    RemoteHost host(record.ssh);
    host.setHostKeyPrompt([](const HostKeyInfo&) { return HostKeyDecision::AcceptOnce; });
    host.connectToHost();
    runEventsUntil([&] { return host.isReady(); }, 20000);
    qint64 bytes = 0;
    bool finished = false;
    QObject::connect(&host, &RemoteHost::execOutputAvailable, [&](int, const QByteArray& b, bool) { bytes += b.size(); });
    QObject::connect(&host, &RemoteHost::execFinished, [&](int, int) { finished = true; });
    QObject::connect(&host, &RemoteHost::operationFailed, [&](int, const QString&) { finished = true; });
    const qint64 t0 = clock.elapsed();
    host.exec("head -c 50000000 /dev/zero");
    runEventsUntil([&] { return finished; }, 120000);
    const qint64 ms = std::max<qint64>(1, clock.elapsed() - t0);
    std::printf("channel, a command's output through the link: %lld bytes in %lld ms, %.1f MB/s\n",
                static_cast<long long>(bytes), static_cast<long long>(ms), static_cast<double>(bytes) / 1000.0 / ms);
  }
  supervisor.kill();
  supervisor.waitForFinished();
  return 0;
}
