// The remote command line's options, parsed once, and one function per mode over them.
#pragma once

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <functional>

#include "job_controller.h"
#include "ssh_cli_options.h"

namespace traindeck {

struct RemoteCliOptions {
  QCommandLineOption launch{"launch", "Launch on this host (several, comma-separated: one node each).",
                            "[user@]host[:port][,...]"};
  QCommandLineOption nodeAddress{
      "node-address", "With --launch on several hosts: the address the nodes reach the first host at.", "ADDR"};
  QCommandLineOption watch{"watch", "Mirror a run folder that something else writes on this host.",
                           "[user@]host[:port]"};
  QCommandLineOption remoteRun{"remote-run", "With --watch: the run folder on the host.", "DIR"};
  QCommandLineOption attach{"attach", "Follow a remote run again.", "RUN_DIR"};
  QCommandLineOption stop{"stop", "Stop a run: every rank checkpoints.", "RUN_DIR"};
  QCommandLineOption kill{"kill", "Kill a run at once, without a checkpoint.", "RUN_DIR"};
  QCommandLineOption fetch{"fetch", "Copy a remote run's newest complete checkpoint into its mirror.", "RUN_DIR"};
  QCommandLineOption hf{"hf", "With --fetch: that checkpoint exported for Hugging Face on the host."};
  QCommandLineOption continueRun{"continue", "Continue an ended remote run on another host.", "RUN_DIR"};
  QCommandLineOption on{"on", "With --continue: the host it continues on.", "[user@]host[:port]"};
  QCommandLineOption stopAt{"stop-at", "With --launch: the run stops (a checkpoint) after this step.", "STEP"};
  QCommandLineOption goneAfter{
      "gone-after", "After how many seconds unreachable a host's runtime counts as gone (default 1200; 0: never).",
      "SECONDS", "1200"};
  QCommandLineOption config{"config", "The job.", "FILE"};
  QCommandLineOption runsRoot{"runs-root", "Where the mirror goes.", "DIR"};
  QCommandLineOption remoteDir{"remote-dir", "The remote work folder.", "DIR"};
  QCommandLineOption set{"set", "KEY=VALUE for the trainer (repeat).", "KEY=VALUE"};
  QCommandLineOption installMissing{"install-missing",
                                    "Install missing build tools (cmake, g++) on a root host with apt-get."};
  QCommandLineOption keep{"keep-checkpoints",
                          "How many of the run's newest checkpoints are copied here as it trains (default 2; 0: none).",
                          "K", "2"};
  SshCliOptions ssh;

  void addTo(QCommandLineParser& parser) const {
    parser.addOptions({launch, nodeAddress, watch, remoteRun, attach, stop, kill, fetch, hf, continueRun, on, stopAt,
                       goneAfter, config, runsRoot, remoteDir, set, installMissing, keep});
    ssh.addTo(parser);
  }
};

// What every mode gets: the parsed command line and what it set.
struct RemoteCliContext {
  const QCommandLineParser& parser;
  const RemoteCliOptions& o;
  JobController::RemoteOptions remote;
  QString runsRoot;
  std::function<int(const QString& why)> usage;  // says why and the usage; returns 2
  // The host as the command line names it, with its key and ProxyCommand.
  void aimAt(TargetConfig& target, const QString& host) const;
};

int launchMode(const RemoteCliContext& c);
int continueMode(const RemoteCliContext& c);
int watchMode(const RemoteCliContext& c);
int fetchMode(const RemoteCliContext& c);
int attachOrStopMode(const RemoteCliContext& c);

}  // namespace traindeck
