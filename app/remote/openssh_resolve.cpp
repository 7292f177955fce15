// `ssh -G` run without a shell and its "keyword value" lines read into SshConfig::Values.
// ssh -G lists OpenSSH's default identity files and known_hosts when the config names none:
// those stay out (missing default keys, the default known_hosts), so the app's own defaults
// under $HOME apply as they do without ssh.
#include "openssh_resolve.h"

#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>

namespace traindeck {

namespace {

constexpr int kSshGTimeoutMs = 5000;

bool isDefaultIdentity(const QString& file) {
  static const QStringList kDefaults{"~/.ssh/id_rsa",     "~/.ssh/id_ecdsa",      "~/.ssh/id_ecdsa_sk",
                                     "~/.ssh/id_ed25519", "~/.ssh/id_ed25519_sk", "~/.ssh/id_xmss",
                                     "~/.ssh/id_dsa"};
  return kDefaults.contains(file);
}

// "H/.ssh/known_hosts H/.ssh/known_hosts2": what ssh -G prints when the config names none.
bool isDefaultKnownHosts(const QStringList& files) {
  return files.size() == 2 && files[0].endsWith("/.ssh/known_hosts") && files[1] == files[0] + "2";
}

}  // namespace

std::optional<SshConfig::Values> openSshValues(const SshTarget& target, const QString& configFile, QString* why) {
  const QString ssh = QStandardPaths::findExecutable("ssh");
  if (ssh.isEmpty()) {
    if (why) *why = "ssh is not installed";
    return std::nullopt;
  }
  QStringList args{"-G", "-F", configFile};
  if (!target.user.isEmpty()) args << "-l" << target.user;
  if (target.port != 0) args << "-p" << QString::number(target.port);
  args << "--" << target.alias;
  QProcess p;
  p.setStandardInputFile(QProcess::nullDevice());
  p.start(ssh, args);
  if (!p.waitForFinished(kSshGTimeoutMs) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
    if (why) *why = QString::fromLocal8Bit(p.readAllStandardError()).trimmed();
    p.kill();
    p.waitForFinished(1000);
    return std::nullopt;
  }
  SshConfig::Values v;
  for (const QString& line : QString::fromUtf8(p.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts)) {
    const qsizetype space = line.indexOf(' ');
    if (space <= 0) continue;
    const QString key = line.left(space).toLower(), value = line.mid(space + 1).trimmed();
    if (key == "hostname")
      v.hostName = value;
    else if (key == "user")
      v.user = value;
    else if (key == "port")
      v.port = value;
    else if (key == "proxycommand")
      v.proxyCommand = value;
    else if (key == "proxyjump")
      v.proxyJump = value;
    else if (key == "hostkeyalias")
      v.hostKeyAlias = value;
    else if (key == "identitiesonly")
      v.identitiesOnly = value == "yes";
    else if (key == "identityagent")
      v.identityAgent = value;
    else if (key == "userknownhostsfile" && !isDefaultKnownHosts(value.split(' ', Qt::SkipEmptyParts)))
      v.knownHosts = value.split(' ').first();
    else if (key == "identityfile" &&
             !(isDefaultIdentity(value) && !QFileInfo::exists(QDir::homePath() + value.mid(1))))
      v.identityFiles << value;
  }
  return v;
}

void resolveSshTarget(SshTarget& target, const QString& configFile) {
  const QString file = configFile.isEmpty() ? SshConfig::defaultPath() : configFile;
  if (QFileInfo::exists(file)) {
    if (const std::optional<SshConfig::Values> values = openSshValues(target, file)) {
      SshConfig::apply(*values, target, file);
      return;
    }
  }
  SshConfig::fromFile(file).resolve(target);
}

}  // namespace traindeck
