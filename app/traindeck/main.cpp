// traindeck: the desktop app. --help and --version answer without a display; everything
// else opens the main window on the chosen job (the demo preset by default).
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QIcon>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "config/preset_files.h"
#include "main_window.h"

namespace {

const char* kHelp = R"(traindeck: set up, launch and watch GPT-2 training jobs.

usage: traindeck [--config FILE|PRESET]

options:
  --config FILE   the job to open: a YAML file or a preset name (default: demo-cpu)
  --help, -h      this text
  --version       the version

Without a display, use traindeck-train (see traindeck-train --help).
)";

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::fputs(kHelp, stdout);
      return 0;
    }
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
  parser.addOption(configOption);
  if (!parser.parse(QApplication::arguments())) {
    std::fprintf(stderr, "traindeck: %s\n%s", qPrintable(parser.errorText()), kHelp);
    return 2;
  }
  QStringList presetDirs;
  for (const std::string& dir :
       traindeck::presetDirectories(QApplication::applicationFilePath().toStdString(), TRAINDECK_PRESETS_SOURCE_DIR))
    presetDirs << QString::fromStdString(dir);

  traindeck::MainWindow window(presetDirs, parser.value(configOption));
  window.show();
  return app.exec();
}
