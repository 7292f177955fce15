// The two ways into a Colab runtime over SSH (docs/colab.md), as host entries the rest of the
// app uses like any other host:
//  * the Colab CLI: `colab ssh --proxy-mode` (google-colab-cli) is the ProxyCommand; it creates
//    the named runtime on first connect and sends the public key of `-i` in its handshake;
//  * a notebook cell: the user runs a generated cell in Colab that starts sshd (that one public
//    key only, no passwords) and a cloudflared quick tunnel, and pastes back the hostname it
//    prints; the app connects through `cloudflared access ssh --hostname %h`.
// Also the terms' text shown before either, and an ed25519 key made for TrainDeck on consent.
#pragma once

#include <QString>
#include <QStringList>
#include <optional>

#include "host_store.h"

namespace traindeck {

// What Colab's terms allow on which tier, in a few sentences (from Colab's FAQ).
QString colabTermsText();

// The accelerators `colab ssh --gpu/--tpu` accepts, as its flags name them.
QStringList colabGpuChoices();  // T4, L4, G4, H100, A100
QStringList colabTpuChoices();  // v5e1, v6e1

// A public key line fit for authorized_keys: "ssh-ed25519|ecdsa-sha2-nistp* BASE64 [comment]",
// one line, no options. Empty when fit, else what is wrong (RSA is refused: Colab rejects it).
QString publicKeyProblem(const QString& line);
// The public key beside a private key file (its .pub), trimmed; nullopt when it cannot be read.
std::optional<QString> publicKeyOf(const QString& identityFile);

struct ColabCliRuntime {
  QString session;       // the CLI's session name: letters, digits, '-' and '_'
  QString accelerator;   // one of colabGpuChoices() or colabTpuChoices(); empty: CPU
  QString colabProgram;  // absolute path of `colab` (ssh runs the ProxyCommand without a login PATH)
  QString identityFile;  // the private key; its .pub is what the CLI sends
};
// Empty when the runtime can be saved as a host, else what to fix.
QString colabCliProblem(const ColabCliRuntime& runtime);
HostEntry colabCliHost(const ColabCliRuntime& runtime);
// What the user runs once before the first connect (install and sign in).
QString colabCliSetupCommands();

// The notebook cell: valid Python that writes `publicKey` (checked by publicKeyProblem) as the
// only line of its own authorized-keys file, starts sshd on 127.0.0.1:`port` with keys only and
// waits until it listens, starts a cloudflared quick tunnel to it and prints the hostname to
// paste back. Throws std::invalid_argument with the reason for a key that is not fit.
QString colabSshCell(const QString& publicKey, int port = 22);
// The same cell as a one-cell notebook (nbformat 4) that asks Colab for a GPU runtime.
QByteArray colabSshNotebook(const QString& publicKey);

// The hostname the cell printed ("abc-def.trycloudflare.com", also accepted with https:// or a
// trailing slash) as a host: root@hostname through cloudflared. Empty hostname() on bad input.
QString trycloudflareHostname(const QString& pasted);
HostEntry colabTunnelHost(const QString& hostname, const QString& identityFile);
// Such a host is reached through `cloudflared access ssh` on this computer: empty when
// cloudflared is on PATH, else that it is missing and how to install it.
QString cloudflaredProblem();

// Makes an ed25519 key pair at `privateKeyPath` (and .pub) with ssh-keygen, passphrase optional.
// Never overwrites: an existing file at either path is an error. Returns empty on success, else
// one sentence.
QString makeEd25519Key(const QString& privateKeyPath, const QString& passphrase);
QString defaultTrainDeckKeyPath();  // ~/.ssh/traindeck_ed25519

}  // namespace traindeck
