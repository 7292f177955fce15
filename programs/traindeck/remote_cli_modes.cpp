// The modes of the remote command line, one function each, over one parsed command line
// (RemoteCliContext): --launch, --continue, --watch, --fetch, and --attach/--stop.
#include "remote_cli_modes.h"

#include <algorithm>
#include <cstdio>

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QTimer>

#include "config/config_io.h"
#include "host_model.h"
#include "remote_cli_follow.h"

namespace traindeck {

void RemoteCliContext::aimAt(TargetConfig& target, const QString& host) const {
  if (target.kind != TargetKind::Slurm) target.kind = TargetKind::Ssh;  // a Slurm job: HOST is its login node
  target.host = host.toStdString();
  if (parser.isSet(o.ssh.identity)) target.identity = parser.value(o.ssh.identity).toStdString();
  if (parser.isSet(o.ssh.proxyCommand)) target.proxy_command = parser.value(o.ssh.proxyCommand).toStdString();
}

namespace {

// A started job's mirror on stdout, then followed to its end.
int followStarted(JobController& jobs, const JobController::Started& started) {
  if (!started.error.isEmpty()) {
    say(started.error);
    return 1;
  }
  std::printf("%s\n", qPrintable(started.runDir));
  std::fflush(stdout);
  return follow(jobs.jobFor(started.runDir));
}

}  // namespace

int launchMode(const RemoteCliContext& c) {
  if (!c.parser.isSet(c.o.config)) return c.usage("--launch needs --config FILE");
  const QString configPath = QFileInfo(c.parser.value(c.o.config)).absoluteFilePath();
  // Applied here, before the job's paths are rewritten for the host; not passed again.
  std::vector<std::string> overrides;
  for (const QString& kv : c.parser.values(c.o.set)) overrides.push_back(kv.toStdString());
  LoadedConfig loaded = loadConfigFile(configPath.toStdString(), overrides);
  if (hasErrors(loaded.problems)) {
    for (const Diagnostic& d : loaded.problems) say(QString::fromStdString(d.format(loaded.source)));
    return 1;
  }
  // Several hosts ("a,b"): one node each, node 0 first (target.hosts); one: that host alone.
  TargetConfig named;
  named.kind = TargetKind::Ssh;
  named.hosts = c.parser.value(c.o.launch).toStdString();
  const std::vector<std::string> hosts = nodeHosts(named);
  if (hosts.empty()) return c.usage("--launch needs a host");
  if (loaded.config.target.kind == TargetKind::Slurm && hosts.size() > 1)
    return c.usage("a Slurm job (target.kind: slurm) goes through one login node: --launch LOGIN");
  c.aimAt(loaded.config.target, QString::fromStdString(hosts.front()));
  loaded.config.target.hosts = hosts.size() > 1 ? named.hosts : std::string();
  if (hosts.size() > 1) loaded.config.strategy.nnodes = static_cast<std::int64_t>(hosts.size());
  if (c.parser.isSet(c.o.nodeAddress))
    loaded.config.target.node_address = c.parser.value(c.o.nodeAddress).toStdString();
  QStringList trainerArgs;
  if (c.parser.isSet(c.o.stopAt)) {
    if (c.parser.value(c.o.stopAt).toLongLong() <= 0) return c.usage("--stop-at needs a step number, 1 or more");
    trainerArgs << "--stop-at" << QString::number(c.parser.value(c.o.stopAt).toLongLong());
  }
  JobController jobs(c.runsRoot, {});
  jobs.setRemoteOptions(c.remote);
  return followStarted(jobs, jobs.start(loaded.config, configPath, {}, trainerArgs));
}

int continueMode(const RemoteCliContext& c) {
  if (!c.parser.isSet(c.o.on)) return c.usage("--continue needs --on [user@]host[:port], the host it continues on");
  const QString runDir = QDir(c.parser.value(c.o.continueRun)).absolutePath();
  // The run's own target (a Slurm run goes on as a Slurm job, its settings kept), then the
  // command line's: --set target.* (e.g. target.kind=slurm onto a cluster), the host, its key.
  std::vector<std::string> sets;
  for (const QString& kv : c.parser.values(c.o.set)) {
    if (!kv.startsWith(QLatin1String("target.")))
      return c.usage(QString("--continue takes only target.* settings (the job goes on as it was): %1").arg(kv));
    sets.push_back(kv.toStdString());
  }
  RunConfig held;  // only its target: how the host is reached is the command line's alone
  held.target = targetOn(HostEntry{}, JobController::targetOf(runDir));  // --on names the host below
  const LoadedConfig loaded = loadConfigText(saveConfigText(held), "--set", ".", sets);
  if (hasErrors(loaded.problems)) {
    for (const Diagnostic& d : loaded.problems) say(QString::fromStdString(d.format(loaded.source)));
    return 1;
  }
  TargetConfig target = loaded.config.target;
  c.aimAt(target, c.parser.value(c.o.on));
  // A work folder given with --set is the one (continueOn otherwise keeps the job's own).
  const bool dirSet = std::any_of(sets.begin(), sets.end(),
                                  [](const std::string& kv) { return kv.rfind("target.remote_dir=", 0) == 0; });
  JobController jobs(QFileInfo(runDir).absolutePath(), {});
  jobs.setRemoteOptions(c.remote);
  return followStarted(jobs, jobs.continueOn(runDir, target, dirSet ? QString::fromStdString(target.remote_dir) : QString()));
}

int watchMode(const RemoteCliContext& c) {
  if (!c.parser.isSet(c.o.remoteRun)) return c.usage("--watch needs --remote-run DIR, the run folder on the host");
  TargetConfig target;
  c.aimAt(target, c.parser.value(c.o.watch));
  JobController jobs(c.runsRoot, {});
  jobs.setRemoteOptions(c.remote);
  return followStarted(jobs, jobs.watchRemote(target, c.parser.value(c.o.remoteRun)));
}

int fetchMode(const RemoteCliContext& c) {
  const QString runDir = QDir(c.parser.value(c.o.fetch)).absolutePath();
  JobController jobs(QFileInfo(runDir).absolutePath(), {});
  jobs.setRemoteOptions(c.remote);
  QString error;
  RemoteFetch* job = jobs.fetch(runDir, c.parser.isSet(c.o.hf) ? FetchKind::HfExport : FetchKind::Checkpoint, &error);
  if (job == nullptr) {
    say(QStringLiteral("Cannot fetch from %1: %2").arg(runDir, error));
    return 1;
  }
  int code = 1;
  QObject::connect(job, &RemoteFetch::progress, job, [](const QString& file, qint64 done, qint64 total) {
    std::fprintf(stderr, "\r%s: %lld of %lld bytes", qPrintable(file), static_cast<long long>(done),
                 static_cast<long long>(total));
  });
  QObject::connect(job, &RemoteFetch::finished, qApp, [&code](const QString& dir, const QString& why) {
    std::fprintf(stderr, "\n");
    if (why.isEmpty())
      std::printf("%s\n", qPrintable(dir));
    else
      say(QStringLiteral("The fetch failed: %1").arg(why));
    code = why.isEmpty() ? 0 : 1;
    QCoreApplication::exit(code);
  });
  QCoreApplication::exec();
  return code;
}

int attachOrStopMode(const RemoteCliContext& c) {
  // --attach follows; --stop and --kill ask, once the link is up, then follow to the end. The
  // job is the app's own (JobController::attach), so each place behaves as it does there.
  const QCommandLineOption* asked = nullptr;
  for (const QCommandLineOption* option : {&c.o.attach, &c.o.stop, &c.o.kill})
    if (c.parser.isSet(*option)) asked = option;
  if (!asked) return c.usage("say --launch, --watch, --attach, --stop, --kill or --fetch");
  const QString runDir = QDir(c.parser.value(*asked)).absolutePath();
  JobController jobs(QFileInfo(runDir).absolutePath(), {});
  jobs.setRemoteOptions(c.remote);
  if (const QString why = jobs.attach(runDir); !why.isEmpty()) {
    say(QStringLiteral("Cannot follow %1: %2").arg(runDir, why));
    return 1;
  }
  Job* job = jobs.jobFor(runDir);
  std::printf("%s\n", qPrintable(runDir));
  std::fflush(stdout);
  if (asked == &c.o.attach) return follow(job);
  if (const QString why = job->stopRefusal(); !why.isEmpty()) {
    say(QStringLiteral("%1: %2").arg(runDir, why));
    return 1;
  }
  const bool kill = asked == &c.o.kill;
  auto* ask = new QTimer(job);
  QObject::connect(ask, &QTimer::timeout, job, [job, ask, kill] {
    if (job->link() != Job::Link::Here && job->link() != Job::Link::Following) return;  // every node's link
    if (job->state() == Job::State::Starting) return;  // a launch's answer still being found
    say(kill ? QStringLiteral("killing (no checkpoint)") : QStringLiteral("stopping (every rank saves a checkpoint)"));
    kill ? job->kill() : job->stop();
    ask->stop();
  });
  ask->start(100);
  return follow(job);
}

}  // namespace traindeck
