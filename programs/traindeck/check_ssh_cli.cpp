// The terminal side of --check-ssh: arguments, prompts on stderr/stdin (echo off for secrets;
// Ctrl-C there cancels the prompt and leaves the terminal as it was),
// and the one-line answer on stdout. The work itself is checkSsh(), shared with the GUI.
#include "check_ssh_cli.h"

#include <termios.h>
#include <unistd.h>

#include <QCommandLineParser>
#include <QCoreApplication>
#include <cstdio>
#include <optional>
#include <string>

#include "check_ssh.h"
#include "ssh_cli_options.h"

namespace traindeck {

namespace {

// A line from stdin; nullopt at end of input, or when Ctrl-C is pressed at a secret prompt.
// For secrets on a terminal, echo and signal keys are off while reading (Ctrl-C arrives as a
// character and cancels the prompt), so the terminal is always given back as it was.
std::optional<std::string> readLine(bool echo) {
  termios saved{};
  const bool quiet = !echo && ::isatty(STDIN_FILENO) && ::tcgetattr(STDIN_FILENO, &saved) == 0;
  if (quiet) {
    termios noEcho = saved;
    noEcho.c_lflag &= ~static_cast<tcflag_t>(ECHO | ISIG);
    ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &noEcho);
  }
  std::string line;
  int c;
  bool cancelled = false;
  while ((c = std::fgetc(stdin)) != EOF && c != '\n') {
    if (quiet && c == 0x03) {  // Ctrl-C
      cancelled = true;
      break;
    }
    line += static_cast<char>(c);
  }
  if (quiet) {
    ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
    std::fputc('\n', stderr);
  }
  if (cancelled || (c == EOF && line.empty())) {
    std::fill(line.begin(), line.end(), '\0');
    return std::nullopt;
  }
  return line;
}

// A server's text for the terminal: its control characters (escape sequences could rewrite
// what is on the screen) shown as '?', as OpenSSH does; line breaks kept.
QByteArray terminalSafe(const QString& text) {
  QString safe = text;
  for (QChar& c : safe)
    if (c.category() == QChar::Other_Control && c != '\n' && c != '\t') c = '?';
  return safe.toLocal8Bit();
}

}  // namespace

HostKeyDecision askHostKeyOnTerminal(const HostKeyInfo& key) {
  std::fprintf(
      stderr, "The host key of %s is not known.\n  %s %s\nAccept it? [y]es and remember in %s / [o]nce / [N]o: ",
      qPrintable(key.hostName), qPrintable(key.keyType), qPrintable(key.fingerprint), qPrintable(key.knownHostsFile));
  const std::string answer = readLine(true).value_or("");
  if (answer == "y" || answer == "yes") return HostKeyDecision::AcceptAndRemember;
  if (answer == "o" || answer == "once") return HostKeyDecision::AcceptOnce;
  return HostKeyDecision::Reject;
}

InteractiveAnswers askInteractiveOnTerminal(const InteractivePrompt& prompt) {
  std::fprintf(stderr, "%s asks (keyboard-interactive login, once for this connection):\n",
               terminalSafe(prompt.host).constData());
  for (const QString& text : {prompt.name, prompt.instruction})
    if (!text.trimmed().isEmpty()) std::fprintf(stderr, "%s\n", terminalSafe(text.trimmed()).constData());
  if (prompt.attempt > 1) std::fprintf(stderr, "The server refused the last answer: try again.\n");
  QList<QByteArray> answers;
  for (const InteractivePrompt::Field& field : prompt.fields) {
    std::fputs(terminalSafe(field.text).constData(), stderr);  // the server's own words, spacing and all
    std::fflush(stderr);
    std::optional<std::string> answer = readLine(field.echo);
    if (!answer) {
      for (QByteArray& a : answers) a.fill('\0');
      return std::nullopt;
    }
    answers << QByteArray(answer->data(), static_cast<qsizetype>(answer->size()));
    std::fill(answer->begin(), answer->end(), '\0');
  }
  return answers;
}

int runCheckSshCli(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  QCommandLineParser parser;
  const QCommandLineOption check("check-ssh", "Test an SSH connection.", "[user@]host[:port]");
  const SshCliOptions ssh;
  parser.addOption(check);
  ssh.addTo(parser);
  if (!parser.parse(QCoreApplication::arguments()) || parser.value(check).isEmpty()) {
    std::fprintf(stderr,
                 "traindeck: %s\nusage: traindeck --check-ssh [user@]host[:port] [--identity FILE] "
                 "[--proxy-command CMD] [--known-hosts FILE] [--ssh-config FILE] [--batch]\n",
                 qPrintable(parser.errorText().isEmpty() ? "--check-ssh needs a host" : parser.errorText()));
    return 2;
  }
  CheckSshOptions options;
  options.spec = parser.value(check);
  options.identityFile = parser.value(ssh.identity);
  options.proxyCommand = parser.value(ssh.proxyCommand);
  options.knownHostsFile = parser.value(ssh.knownHosts);
  options.configFile = parser.value(ssh.sshConfig);
  options.batch = parser.isSet(ssh.batch);

  ConnectCallbacks callbacks;
  callbacks.confirmHostKey = askHostKeyOnTerminal;
  callbacks.askInteractive = askInteractiveOnTerminal;
  callbacks.askSecret = [](const QString& prompt) -> std::optional<QByteArray> {
    std::fprintf(stderr, "%s ", qPrintable(prompt));
    std::optional<std::string> secret = readLine(false);
    if (!secret) return std::nullopt;
    QByteArray bytes(secret->data(), static_cast<qsizetype>(secret->size()));
    std::fill(secret->begin(), secret->end(), '\0');
    return bytes;
  };
  const CheckSshResult result = checkSsh(options, callbacks);
  std::printf("%s\n", qPrintable(result.line));
  return result.ok ? 0 : 1;
}

}  // namespace traindeck
