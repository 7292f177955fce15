// traindeck: the desktop app. --help, --version and --check-ssh answer without a display;
// everything else opens the main window on the chosen job (the demo preset by default).
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QIcon>
#include <QTimer>
#include <cstdio>
#include <cstring>

#include "check_ssh_cli.h"
#include "config/preset_files.h"
#include "main_window.h"
#include "read_cli.h"
#include "remote_cli.h"
#include "runs_root.h"
#include "sweep_cli.h"

namespace {

const char* kHelp = R"(traindeck: set up, launch and watch GPT-2 training jobs.

usage: traindeck [--config FILE|PRESET] [--runs-root DIR] [--open PATH] [--compare RUN_DIR ...]
       traindeck --check-ssh [user@]host[:port] [--identity FILE] [--proxy-command CMD]
                 [--known-hosts FILE] [--ssh-config FILE] [--batch]
       traindeck --launch [user@]host[:port] --config FILE [--identity KEY] [--known-hosts FILE]
                 [--proxy-command CMD] [--batch] [--runs-root DIR] [--remote-dir DIR]
                 [--install-missing] [--set K=V]...
       traindeck --watch [user@]host[:port] --remote-run DIR [SSH options as --launch]
       traindeck --attach RUN_DIR | --stop RUN_DIR | --kill RUN_DIR | --fetch RUN_DIR [--hf]
       traindeck --read PATH
       traindeck --sweep SWEEP.yaml [--slots N] [--on [user@]host[:port]]... [--runs-root DIR]
       traindeck --sweep-status SWEEP_DIR

options:
  --config FILE     the job to open on the Setup page: a YAML file or a preset name
                    (default: demo-cpu)
  --runs-root DIR   where runs are listed and started (default: $TRAINDECK_DATA/runs, that is
                    $XDG_DATA_HOME/traindeck/runs, as traindeck-train uses)
  --open PATH       a run to show first on the Monitor page (TrainDeck's or another tool's), or a
                    folder holding runs (as --read finds them): listed beside the runs root (and
                    at later starts), one shown, several on the Compare page; as File > Open folder…
                    A sweep folder (it holds sweep.json) opens on the Sweep page instead.
  --compare RUN_DIR a run to show on the Compare page; give it 2 to 20 times
  --screenshot DIR  save each page as DIR/<page>.png after WAIT ms (--screenshot-wait, default
                    1500) and quit: for documentation and checking the look
  --check-ssh HOST  test an SSH connection without a display: resolve HOST (also an alias from
                    ~/.ssh/config), verify its host key, authenticate, run `true`, print one
                    line (with the key's SHA256 fingerprint, and the known_hosts line when a
                    key is refused) and exit 0 only on success. With it:
                      --identity FILE        a private key to try first
                      --proxy-command CMD    reach the host through CMD (%h %p %r expanded)
                      --known-hosts FILE     instead of ~/.ssh/known_hosts
                      --ssh-config FILE      instead of ~/.ssh/config
                      --batch                ask nothing: unknown host keys are refused
  --launch HOST     train on an SSH host without a display: build the bundled trainer there
                    once (cached), upload the job's data, start the run detached (it outlives
                    the link), mirror its run folder under --runs-root and follow it. The
                    mirror's folder is the first line on stdout; exit 0 when the run finished
                    or was stopped, 1 when it failed; Ctrl-C detaches (the run goes on).
                    --remote-dir DIR is the host's work folder (default: target.remote_dir).
                    --set KEY=VALUE overrides a config key (repeat).
                    --install-missing lets a root account with apt-get get cmake or g++
                    installed there when the build needs them.
  --watch HOST --remote-run DIR
                    mirror a run folder that something else writes on the host (an exported
                    script started there) under --runs-root and follow it until its run.json
                    says it ended; nothing is built or started there. Same SSH options.
  --attach RUN_DIR  follow a remote run's mirror again
  --stop RUN_DIR    stop a run gracefully (every rank checkpoints) and follow it to the end;
                    on this machine, an SSH host or a Slurm cluster alike
  --kill RUN_DIR    kill a run at once (no checkpoint) and follow it to the end: status
                    "killed", asked by you
  --fetch RUN_DIR   copy a remote run's newest complete checkpoint into its mirror
                    (RUN_DIR/checkpoints/step-N, resumable, checked); with --hf, that
                    checkpoint exported for Hugging Face on the host (RUN_DIR/exports/step-N-hf).
                    Prints the folder; exit 0 when it is all here
  --read PATH       print every record of every run at PATH, without a display: TrainDeck's
                    own runs and other tools' (TensorBoard event files, Hugging Face
                    trainer_state.json, MLflow's mlflow.db or mlruns/, W&B offline runs,
                    Lightning or Keras CSV logs, llm.c main.log), one JSON object a line:
                    {"run", "metric", "step", "value", "time"} (docs/compare.md)
  --sweep FILE      run a sweep (docs/sweeps.md) without a display: its trials as ordinary
                    runs under --runs-root, --slots N at once on the job's own target (default
                    1; this machine's threads or GPUs are shared among them), and one at a time
                    on each --on HOST. The sweep folder (<runs root>/sweeps/<id>, its sweep.json)
                    is the first line on stdout, then a line per trial state change; exit 0 when
                    every trial has ended or the budget is spent. The same file again continues
                    the same sweep: nothing runs twice. Ctrl-C detaches (the trials go on)
  --sweep-status DIR
                    print a sweep folder's trials, one JSON object a line:
                    {"trial", "id", "params", "state", "rung", "metric", "run"}
  --attach SWEEP_DIR
                    take a sweep up again (after Ctrl-C, a crash, a reboot): running trials are
                    followed, ended ones settled, the rest started
  --help, -h        this text
  --version         the version

Without a display, use traindeck-train (see traindeck-train --help).
)";

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::fputs(kHelp, stdout);
      return 0;
    }
    if (std::strcmp(argv[i], "--check-ssh") == 0 || std::strncmp(argv[i], "--check-ssh=", 12) == 0)
      return traindeck::runCheckSshCli(argc, argv);
    if (traindeck::isSweepCliCommand(argc, argv)) return traindeck::runSweepCli(argc, argv);
    if (traindeck::isRemoteCliCommand(argc, argv)) return traindeck::runRemoteCli(argc, argv);
    if (traindeck::isReadCliCommand(argc, argv)) return traindeck::runReadCli(argc, argv);
    if (std::strcmp(argv[i], "--version") == 0) {
      std::printf("traindeck %s (Qt %s)\n", TRAINDECK_VERSION, qVersion());
      return 0;
    }
  }
  QApplication app(argc, argv);
  QApplication::setApplicationName("TrainDeck");
  QApplication::setOrganizationName("TrainDeck");
  QApplication::setApplicationVersion(TRAINDECK_VERSION);
  QApplication::setWindowIcon(QIcon(":/icons/traindeck.svg"));

  QCommandLineParser parser;
  QCommandLineOption configOption("config", "The job to open.", "FILE", "demo-cpu");
  QCommandLineOption runsRootOption("runs-root", "Where runs are listed.", "DIR");
  QCommandLineOption openOption("open", "A run or a folder of runs to show first.", "PATH");
  parser.addOption(configOption);
  parser.addOption(runsRootOption);
  parser.addOption(openOption);
  QCommandLineOption compareOption("compare", "A run to compare (repeat).", "RUN_DIR");
  parser.addOption(compareOption);
  QCommandLineOption screenshotOption("screenshot", "Save each page and quit.", "DIR");
  QCommandLineOption screenshotWaitOption("screenshot-wait", "Milliseconds before the screenshots.", "MS", "1500");
  parser.addOption(screenshotOption);
  parser.addOption(screenshotWaitOption);
  if (!parser.parse(QApplication::arguments())) {
    std::fprintf(stderr, "traindeck: %s\n%s", qPrintable(parser.errorText()), kHelp);
    return 2;
  }
  QStringList presetDirs;
  for (const std::string& dir :
       traindeck::presetDirectories(QApplication::applicationFilePath().toStdString(), TRAINDECK_PRESETS_SOURCE_DIR))
    presetDirs << QString::fromStdString(dir);

  traindeck::MainWindowOptions options;
  options.presetDirs = presetDirs;
  options.configPath = parser.value(configOption);
  options.runsRoot =
      parser.isSet(runsRootOption) ? QDir(parser.value(runsRootOption)).absolutePath() : traindeck::defaultRunsRoot();
  options.openRun = parser.isSet(openOption) ? QDir(parser.value(openOption)).absolutePath() : QString();
  for (const QString& run : parser.values(compareOption)) options.compareRuns << QDir(run).absolutePath();
  options.trainBinary = QDir(QApplication::applicationDirPath()).filePath("traindeck-train");
  traindeck::MainWindow window(options);
  window.resize(1400, 900);
  window.show();
  if (parser.isSet(screenshotOption)) {
    QTimer::singleShot(parser.value(screenshotWaitOption).toInt(), &window, [&] {
      const bool ok = window.saveScreenshots(parser.value(screenshotOption));
      QApplication::exit(ok ? 0 : 1);
    });
  }
  return app.exec();
}
