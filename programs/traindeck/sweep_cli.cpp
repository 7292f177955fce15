// The sweep folder goes first on stdout, then a line per trial state change (stderr too for a
// person, stdout for a script), and the exit code says how it ended: 0 the sweep ran out (every
// trial ended, or the budget is spent), 1 it could not run, 130 detached by Ctrl-C (the trials
// go on; --attach takes them up again).
#include "sweep_cli.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QTimer>
#include <cstdio>
#include <cstring>
#include <vector>

#include "job_controller.h"
#include "remote_cli_follow.h"
#include "runs_root.h"
#include "ssh_cli_options.h"
#include "sweep/sweep_state_file.h"
#include "sweep/sweep_status.h"
#include "sweep_folder.h"
#include "sweep_places.h"
#include "sweep_runner.h"

namespace traindeck {

namespace {

constexpr int kInterruptPollMs = 200;

const char* kUsage =
    "usage: traindeck --sweep SWEEP.yaml [--slots N] [--on [user@]host[:port][=N]]... [--runs-root DIR]\n"
    "                 [--identity KEY] [--known-hosts FILE] [--proxy-command CMD] [--batch]\n"
    "       traindeck --sweep-status SWEEP_DIR\n"
    "       traindeck --attach SWEEP_DIR [--slots N] [--on HOST]... [--rerun TRIAL]...\n";

int usage(const QString& why) {
  std::fprintf(stderr, "traindeck: %s\n%s", qPrintable(why), kUsage);
  return 2;
}

// The value of `--name V` or `--name=V` in argv, or nullptr.
const char* optionValue(int argc, char** argv, const char* name) {
  const std::size_t n = std::strlen(name);
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], name) == 0) return i + 1 < argc ? argv[i + 1] : "";
    if (std::strncmp(argv[i], name, n) == 0 && argv[i][n] == '=') return argv[i] + n + 1;
  }
  return nullptr;
}

int printStatus(const QString& dir) {
  const SweepStateRead read = readSweepState(SweepFolder{QDir(dir).absolutePath()}.statePath().toStdString());
  if (read.missing || !read.ok()) {
    std::fprintf(stderr, "traindeck: %s\n",
                 read.missing ? qPrintable(QObject::tr("%1 is not a sweep folder (it has no sweep.json)").arg(dir))
                              : read.error.c_str());
    return 1;
  }
  for (const TrialRecord& trial : read.state.trials) std::printf("%s\n", trialStatusJson(trial).c_str());
  return 0;
}

int runSweep(const QCommandLineParser& parser, const SshCliOptions& ssh, const QString& sweepFile,
             const QString& sweepDir, const QString& runsRoot, int slotCount, int pack,
             const std::vector<HostSlots>& hosts, const QStringList& reruns = {}) {
  JobController::RemoteOptions remote;
  remote.payloadDir = QDir(QCoreApplication::applicationDirPath()).filePath("../share/traindeck/remote");
  remote.knownHostsFile = parser.value(ssh.knownHosts);
  remote.sshConfigFile = parser.value(ssh.sshConfig);
  remote.batch = true;  // many trials, no one to ask: unknown host keys are refused
  JobController jobs(runsRoot, QDir(QCoreApplication::applicationDirPath()).filePath("traindeck-train"));
  jobs.setRemoteOptions(remote);
  std::vector<SweepPlace> places;
  // Neither --slots nor --on: where the sweep ran last (sweep.json), else the job's target, one slot.
  if (parser.isSet("slots") || parser.isSet("pack"))
    places.push_back({QObject::tr("the job's target"), std::nullopt, slotCount, pack});
  for (const HostSlots& host : hosts)
    places.push_back(placeOf({host.host.toStdString(), host.slotCount, host.host.toStdString(),
                              parser.value(ssh.identity).toStdString(), parser.value(ssh.proxyCommand).toStdString()}));
  SweepRunner runner(jobs);
  QObject::connect(&runner, &SweepRunner::trialChanged, [](const QString&, const QString& line) {
    std::printf("%s\n", qPrintable(line));
    std::fflush(stdout);
  });
  int code = 0;
  QObject::connect(&runner, &SweepRunner::finished, [&](const QString& why) {
    say(QObject::tr("Sweep ended: %1.").arg(why));
    QCoreApplication::exit(0);
  });
  std::printf("%s\n", qPrintable(sweepDir));
  std::fflush(stdout);
  if (const QString why = runner.begin(sweepFile, sweepDir, places); !why.isEmpty()) {
    say(why);
    return 1;
  }
  for (const QString& trial : reruns)
    if (const QString why = runner.rerun(trial); !why.isEmpty()) say(QObject::tr("Not run again: %1.").arg(why));
  if (runner.isDone()) return 0;
  detachOnInterrupt();
  QTimer poll;
  QObject::connect(&poll, &QTimer::timeout, [&] {
    if (!interrupted()) return;
    say(QObject::tr("Detached; the trials go on. Take the sweep up again with: traindeck --attach %1").arg(sweepDir));
    code = 130;
    QCoreApplication::exit(130);
  });
  poll.start(kInterruptPollMs);
  const int exited = QCoreApplication::exec();
  return code != 0 ? code : exited;
}

}  // namespace

bool isSweepCliCommand(int argc, char** argv) {
  if (optionValue(argc, argv, "--sweep") || optionValue(argc, argv, "--sweep-status")) return true;
  const char* attach = optionValue(argc, argv, "--attach");
  return attach && isSweepFolder(attach);
}

int runSweepCli(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  QCommandLineParser parser;
  const QCommandLineOption sweep{"sweep", "Run this sweep.", "SWEEP.yaml"};
  const QCommandLineOption status{"sweep-status", "Print a sweep folder's trials as JSON lines.", "DIR"};
  const QCommandLineOption attach{"attach", "Take a sweep folder's sweep up again.", "DIR"};
  const QCommandLineOption on{"on", "Run trials on this SSH host too, N at once (default 1; repeat for more hosts).",
                              "HOST[=N]"};
  const QCommandLineOption slotsOption{"slots", "Trials at once on the job's own target (default 1).", "N", "1"};
  const QCommandLineOption packOption{
      "pack", "A Slurm target: K new trials share one job's allocation (what a trial asks for, K times).", "K", "1"};
  const QCommandLineOption runsRoot{"runs-root", "Where trials' runs and the sweep folder go.", "DIR"};
  const QCommandLineOption rerun{"rerun", "With --attach: run this deleted or failed trial again (repeat).", "TRIAL"};
  const SshCliOptions ssh;
  parser.addOptions({sweep, status, attach, on, slotsOption, packOption, runsRoot, rerun});
  ssh.addTo(parser);
  if (!parser.parse(QCoreApplication::arguments())) return usage(parser.errorText());
  if (parser.isSet(status)) return printStatus(parser.value(status));
  bool slotsOk = false;
  const int slotCount = parser.value(slotsOption).toInt(&slotsOk);
  if (!slotsOk || slotCount < 1) return usage(QObject::tr("--slots needs a whole number, 1 or more"));
  bool packOk = false;
  const int pack = parser.value(packOption).toInt(&packOk);
  if (!packOk || pack < 1) return usage(QObject::tr("--pack needs a whole number, 1 or more"));
  std::vector<HostSlots> hosts;
  for (const QString& spec : parser.values(on)) {
    QString why;
    const std::optional<HostSlots> host = parseHostSlots(spec, &why);
    if (!host) return usage(why);
    hosts.push_back(*host);
  }
  QString root = parser.isSet(runsRoot) ? QDir(parser.value(runsRoot)).absolutePath() : defaultRunsRoot();
  QString error;
  if (parser.isSet(attach)) {
    const QString dir = QDir(parser.value(attach)).absolutePath();
    const QString file = sweepFileOf(dir, &error);
    if (file.isEmpty()) return usage(error);
    if (!parser.isSet(runsRoot)) root = QDir::cleanPath(dir + "/../..");  // <runs root>/sweeps/<id>
    return runSweep(parser, ssh, file, dir, root, slotCount, pack, hosts, parser.values(rerun));
  }
  if (parser.isSet(rerun)) return usage(QObject::tr("--rerun goes with --attach SWEEP_DIR"));
  const QFileInfo file(parser.value(sweep));
  if (!file.isFile()) return usage(QObject::tr("%1 is not a file: give a sweep.yaml").arg(parser.value(sweep)));
  const QString dir = sweepFolderFor(root, file.absoluteFilePath(), &error);
  if (dir.isEmpty()) {
    say(error);
    return 1;
  }
  return runSweep(parser, ssh, file.absoluteFilePath(), dir, root, slotCount, pack, hosts);
}

}  // namespace traindeck
