// The remote command line: its options parsed once into RemoteCliContext, then one mode's
// function (remote_cli_modes.cpp), which starts or finds a job and follows it (remote_cli_follow).
#include "remote_cli.h"

#include <cstdio>
#include <cstring>

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>

#include "check_ssh_cli.h"
#include "remote_cli_follow.h"
#include "remote_cli_modes.h"
#include "runs_root.h"

namespace traindeck {

bool isRemoteCliCommand(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    for (const char* name : {"--launch", "--watch", "--attach", "--stop", "--kill", "--fetch", "--continue"})
      if (std::strcmp(argv[i], name) == 0 ||
          (std::strncmp(argv[i], name, std::strlen(name)) == 0 && argv[i][std::strlen(name)] == '='))
        return true;
  return false;
}

int runRemoteCli(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  QCommandLineParser parser;
  const RemoteCliOptions o;
  o.addTo(parser);
  const auto usage = [&](const QString& why) {
    std::fprintf(
        stderr,
        "traindeck: %s\nusage: traindeck --launch [user@]host[:port][,...] [--node-address ADDR] --config FILE "
        "[--identity KEY] "
        "[--known-hosts FILE] [--proxy-command CMD] [--batch] [--runs-root DIR] [--remote-dir DIR] "
        "[--install-missing] [--keep-checkpoints K] [--gone-after SECONDS] [--stop-at STEP] "
        "[--set KEY=VALUE]...\n"
        "       traindeck --continue RUN_DIR --on [user@]host[:port] [the same options but --config; --set\n"
        "                 target.* only: a Slurm run goes on as a Slurm job unless target.kind=ssh]\n"
        "       traindeck --watch [user@]host[:port] --remote-run DIR [the same SSH options]\n"
        "       traindeck --attach RUN_DIR [--keep-checkpoints K] [--gone-after SECONDS] | --stop RUN_DIR "
        "[--batch] [--known-hosts FILE]\n"
        "       traindeck --kill RUN_DIR [--batch] [--known-hosts FILE]\n"
        "       traindeck --fetch RUN_DIR [--hf] [--batch] [--known-hosts FILE]\n",
        qPrintable(why));
    return 2;
  };
  if (!parser.parse(QCoreApplication::arguments())) return usage(parser.errorText());
  detachOnInterrupt();

  JobController::RemoteOptions options;
  options.payloadDir = QDir(QCoreApplication::applicationDirPath()).filePath("../share/traindeck/remote");
  options.knownHostsFile = parser.value(o.ssh.knownHosts);
  options.sshConfigFile = parser.value(o.ssh.sshConfig);
  options.workDir = parser.value(o.remoteDir);
  options.batch = parser.isSet(o.ssh.batch);
  bool keepOk = false;
  options.checkpointsKeptHere = parser.value(o.keep).toInt(&keepOk);
  if (!keepOk || options.checkpointsKeptHere < 0) return usage("--keep-checkpoints needs a whole number, 0 or more");
  bool goneOk = false;
  options.goneAfterSeconds = parser.value(o.goneAfter).toInt(&goneOk);
  if (!goneOk || options.goneAfterSeconds < 0) return usage("--gone-after needs a number of seconds, 0 or more");
  if (!options.batch) {
    options.hostKeyPrompt = askHostKeyOnTerminal;
    options.interactivePrompt = askInteractiveOnTerminal;
  }
  if (parser.isSet(o.installMissing))
    options.installPrompt = [](const QString& question) {
      say(question + " yes (--install-missing)");
      return true;
    };
  else if (!options.batch)
    options.installPrompt = askYesOnTerminal;
  const QString root = parser.isSet(o.runsRoot) ? QDir(parser.value(o.runsRoot)).absolutePath() : defaultRunsRoot();
  const RemoteCliContext context{parser, o, options, root, usage};
  if (parser.isSet(o.launch)) return launchMode(context);
  if (parser.isSet(o.continueRun)) return continueMode(context);
  if (parser.isSet(o.watch)) return watchMode(context);
  if (parser.isSet(o.fetch)) return fetchMode(context);
  return attachOrStopMode(context);
}

}  // namespace traindeck
