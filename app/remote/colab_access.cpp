// The cell is plain Python with no Colab-only module, so it is checked here by running it (with
// a stand-in cloudflared) against a real sshd (tests/remote/colab_access_test.cpp).
#include "colab_access.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <stdexcept>

#include "export/notebook.h"
#include "export/python_literal.h"
#include "shell_quote.h"

namespace traindeck {

namespace {

QString python(const QString& text) {
  return QString::fromStdString(pythonString(text.toStdString()));
}

}  // namespace

QString colabTermsText() {
  return QObject::tr(
      "Colab's terms allow SSH only on paid runtimes: runtimes that run free of charge forbid remote "
      "control such as SSH shells, and a paid plan with compute units left lifts that. On a free "
      "runtime, export a notebook instead (Setup → Export…) and run it in Colab. Every Colab runtime "
      "has one GPU or one TPU chip, and ends after at most 12–24 hours or when idle, taking what is on it "
      "with it: a run there keeps only what was copied off the runtime.");
}

QStringList colabGpuChoices() {
  return {"T4", "L4", "G4", "H100", "A100"};
}

QStringList colabTpuChoices() {
  return {"v5e1", "v6e1"};
}

QString publicKeyProblem(const QString& line) {
  static const QRegularExpression form(
      "^(ssh-ed25519|ecdsa-sha2-nistp(256|384|521)|ssh-rsa|ssh-dss|[a-z0-9@.-]+) ([A-Za-z0-9+/]+={0,2})( [ -~]*)?$");
  if (line.isEmpty()) return QObject::tr("no public key: pick a key file with a .pub beside it, or make one");
  if (line.contains('\n') || line.contains('\r')) return QObject::tr("a public key is one line; this text has several");
  const QRegularExpressionMatch m = form.match(line);
  if (!m.hasMatch()) return QObject::tr("not an OpenSSH public key line (\"ssh-ed25519 AAAA… comment\")");
  const QString type = m.captured(1);
  if (type == "ssh-rsa" || type == "ssh-dss")
    return QObject::tr("Colab accepts only ed25519 and ECDSA keys, not %1: make an ed25519 key").arg(type);
  if (!type.startsWith("ssh-ed25519") && !type.startsWith("ecdsa-"))
    return QObject::tr("unsupported key type %1: use an ed25519 key").arg(type);
  return {};
}

QString colabCliProblem(const ColabCliRuntime& runtime) {
  static const QRegularExpression name("^[A-Za-z0-9_-]{1,40}$");
  if (!name.match(runtime.session).hasMatch())
    return QObject::tr("name the runtime with letters, digits, '-' and '_' (up to 40)");
  if (!runtime.accelerator.isEmpty() && !colabGpuChoices().contains(runtime.accelerator) &&
      !colabTpuChoices().contains(runtime.accelerator))
    return QObject::tr("unknown accelerator %1").arg(runtime.accelerator);
  if (!QDir::isAbsolutePath(runtime.colabProgram))
    return QObject::tr("give the colab program's absolute path (pip install google-colab-cli; `which colab`)");
  if (runtime.identityFile.isEmpty())
    return QObject::tr("pick an ed25519 key (or make one): the Colab CLI sends its public key");
  const std::optional<QString> key = publicKeyOf(runtime.identityFile);
  if (!key) return QObject::tr("%1.pub cannot be read").arg(runtime.identityFile);
  return publicKeyProblem(*key);
}

std::optional<QString> publicKeyOf(const QString& identityFile) {
  QFile pub(identityFile + ".pub");
  if (!pub.open(QIODevice::ReadOnly)) return std::nullopt;
  return QString::fromUtf8(pub.read(64 * 1024)).trimmed();
}

HostEntry colabCliHost(const ColabCliRuntime& runtime) {
  QStringList proxy{runtime.colabProgram, "ssh", "--proxy-mode", "-s", runtime.session, "-i", runtime.identityFile};
  if (colabGpuChoices().contains(runtime.accelerator)) proxy << "--gpu" << runtime.accelerator;
  if (colabTpuChoices().contains(runtime.accelerator)) proxy << "--tpu" << runtime.accelerator;
  // The host part only names the runtime: the ProxyCommand carries the connection.
  return {"Colab " + runtime.session, "root@colab-" + runtime.session, runtime.identityFile, shellJoin(proxy)};
}

QString colabCliSetupCommands() {
  return QStringLiteral("pip install google-colab-cli\ncolab login\n");
}

QString colabSshCell(const QString& publicKey, int port) {
  if (const QString problem = publicKeyProblem(publicKey); !problem.isEmpty())
    throw std::invalid_argument(problem.toStdString());
  QString cell = QStringLiteral(
      "# TrainDeck: SSH into this runtime with one key, through a cloudflared quick tunnel.\n"
      "# Colab allows SSH on paid runtimes only. Run this cell, then paste the hostname it prints\n"
      "# into TrainDeck (Hosts… > Add Colab runtime). Passwords are off; only this key gets in.\n"
      "import os, pathlib, re, shutil, socket, subprocess, time, urllib.request\n"
      "PUBLIC_KEY = @KEY@\n"
      "PORT = @PORT@\n"
      "home = pathlib.Path.home()\n"
      "ssh_dir = home / '.ssh'\n"
      "ssh_dir.mkdir(mode=0o700, exist_ok=True)\n"
      "os.chmod(ssh_dir, 0o700)\n"
      "keys = ssh_dir / 'traindeck_authorized_keys'\n"
      "keys.write_text(PUBLIC_KEY + '\\n')\n"
      "os.chmod(keys, 0o600)\n"
      "host_key = ssh_dir / 'traindeck_host_ed25519'\n"
      "if not host_key.exists():\n"
      "    subprocess.run(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-f', str(host_key)], check=True)\n"
      "sshd = shutil.which('sshd') or '/usr/sbin/sshd'\n"
      "if not os.path.exists(sshd):\n"
      "    subprocess.run(['apt-get', 'update', '-qq'], check=True)  # a fresh runtime has no package lists\n"
      "    subprocess.run(['apt-get', 'install', '-y', '-qq', 'openssh-server'], check=True)\n"
      "if os.geteuid() == 0:\n"
      "    os.makedirs('/run/sshd', exist_ok=True)  # sshd's privilege separation folder\n"
      "config = ssh_dir / 'traindeck_sshd_config'\n"
      "config.write_text('\\n'.join([\n"
      "    f'Port {PORT}', 'ListenAddress 127.0.0.1', f'HostKey {host_key}',\n"
      "    f'AuthorizedKeysFile {keys}', f'PidFile {ssh_dir / \"traindeck_sshd.pid\"}',\n"
      "    'PasswordAuthentication no', 'KbdInteractiveAuthentication no', 'PubkeyAuthentication yes',\n"
      "    'PermitRootLogin prohibit-password', 'UsePAM no', 'AllowTcpForwarding yes',\n"
      "    'Subsystem sftp internal-sftp', '']))  # TrainDeck uploads over SFTP\n"
      "subprocess.run([sshd, '-f', str(config)], check=True)\n"
      "for _ in range(40):  # sshd goes to the background before it listens\n"
      "    try:\n"
      "        socket.create_connection(('127.0.0.1', PORT), timeout=1).close()\n"
      "        break\n"
      "    except OSError:\n"
      "        time.sleep(0.25)\n"
      "else:\n"
      "    raise RuntimeError(f'sshd does not listen on 127.0.0.1:{PORT}: run this cell again')\n"
      "cloudflared = shutil.which('cloudflared')\n"
      "if cloudflared is None:\n"
      "    cloudflared = '/usr/local/bin/cloudflared'\n"
      "    urllib.request.urlretrieve('https://github.com/cloudflare/cloudflared/releases/latest/download/'\n"
      "                               'cloudflared-linux-amd64', cloudflared)\n"
      "    os.chmod(cloudflared, 0o755)\n"
      "log = open(ssh_dir / 'traindeck_tunnel.log', 'w')\n"
      "subprocess.Popen([cloudflared, 'tunnel', '--no-autoupdate', '--url', f'ssh://127.0.0.1:{PORT}'],\n"
      "                 stdout=log, stderr=subprocess.STDOUT, start_new_session=True)\n"
      "hostname = None\n"
      "for _ in range(120):\n"
      "    found = re.search(r'https://([a-z0-9-]+\\.trycloudflare\\.com)',\n"
      "                      (ssh_dir / 'traindeck_tunnel.log').read_text())\n"
      "    if found:\n"
      "        hostname = found.group(1)\n"
      "        break\n"
      "    time.sleep(0.5)\n"
      "if hostname is None:\n"
      "    raise RuntimeError('cloudflared printed no hostname: see ' + str(ssh_dir / 'traindeck_tunnel.log'))\n"
      "print('Paste this hostname into TrainDeck:', hostname)\n");
  cell.replace("@KEY@", python(publicKey));
  cell.replace("@PORT@", QString::number(port));
  return cell;
}

QByteArray colabSshNotebook(const QString& publicKey) {
  const std::vector<NotebookCell> cells{
      {NotebookCell::Kind::Markdown,
       "# SSH for TrainDeck\n\nRun the cell below on a **paid** runtime (Colab allows SSH only there), "
       "then paste the hostname it prints into TrainDeck."},
      {NotebookCell::Kind::Code, colabSshCell(publicKey).toStdString()}};
  return QByteArray::fromStdString(notebookJson(cells, "GPU"));
}

QString trycloudflareHostname(const QString& pasted) {
  static const QRegularExpression form("^(?:https?://)?([a-z0-9](?:[a-z0-9-]*[a-z0-9])?\\.trycloudflare\\.com)/?$");
  const QRegularExpressionMatch m = form.match(pasted.trimmed().toLower());
  return m.hasMatch() ? m.captured(1) : QString();
}

HostEntry colabTunnelHost(const QString& hostname, const QString& identityFile) {
  const QString label = hostname.section('.', 0, 0);
  return {"Colab " + label, "root@" + hostname, identityFile, QStringLiteral("cloudflared access ssh --hostname %h")};
}

QString cloudflaredProblem() {
  if (!QStandardPaths::findExecutable(QStringLiteral("cloudflared")).isEmpty()) return {};
  return QObject::tr(
      "cloudflared is not installed on this computer, and this host is reached through it. On Debian or Ubuntu: "
      "curl -LO https://github.com/cloudflare/cloudflared/releases/latest/download/cloudflared-linux-amd64.deb && "
      "sudo apt install ./cloudflared-linux-amd64.deb (other systems: "
      "https://developers.cloudflare.com/cloudflare-one/connections/connect-networks/downloads/). Then add the host.");
}

QString defaultTrainDeckKeyPath() {
  return QDir::home().filePath(".ssh/traindeck_ed25519");
}

QString makeEd25519Key(const QString& privateKeyPath, const QString& passphrase) {
  if (QFile::exists(privateKeyPath) || QFile::exists(privateKeyPath + ".pub"))
    return QObject::tr("%1 already exists: TrainDeck never overwrites a key; pick it or another name")
        .arg(privateKeyPath);
  const QString dir = QFileInfo(privateKeyPath).absolutePath();
  if (!QDir().mkpath(dir)) return QObject::tr("cannot make the folder %1").arg(dir);
  QFile::setPermissions(dir, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
  QProcess keygen;
  keygen.setProcessChannelMode(QProcess::MergedChannels);
  keygen.start("ssh-keygen", {"-q", "-t", "ed25519", "-C", "traindeck", "-N", passphrase, "-f", privateKeyPath});
  if (!keygen.waitForStarted(5000))
    return QObject::tr("ssh-keygen did not start (install openssh-client): %1").arg(keygen.errorString());
  keygen.closeWriteChannel();
  if (!keygen.waitForFinished(30000) || keygen.exitStatus() != QProcess::NormalExit || keygen.exitCode() != 0)
    return QObject::tr("ssh-keygen failed: %1").arg(QString::fromUtf8(keygen.readAll()).trimmed());
  return {};
}

}  // namespace traindeck
