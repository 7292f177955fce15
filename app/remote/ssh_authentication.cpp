// SshConnection's authentication: the agent, key files (a passphrase through askSecret), then
// keyboard-interactive (askInteractive: the server's own prompts, a second factor on MFA login
// nodes) and a password. A method the server takes but does not find enough (partial success,
// AuthenticationMethods publickey,keyboard-interactive) leads on to the methods it still wants.
#include <libssh/libssh.h>

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>

#include "ssh_connection.h"
#include "ssh_error.h"

namespace traindeck {

namespace {

constexpr int kAuthRounds = 4;          // partial successes in a row before giving up
constexpr int kSecretTries = 3;         // passphrases, passwords, keyboard-interactive answers
constexpr int kInteractiveRounds = 16;  // info requests in one keyboard-interactive exchange
constexpr qint64 kInteractiveWaitMs = 120000;  // a server waiting on the user (under sshd's LoginGraceTime)

void wipeSecret(QByteArray& secret) {
  secret.fill('\0');
  secret.clear();
}

}  // namespace

SshConnection::AuthStep SshConnection::authOutcome(int rc) {
  switch (rc) {
    case SSH_AUTH_SUCCESS:
      return AuthStep::Success;
    case SSH_AUTH_PARTIAL:
      return AuthStep::Partial;
    case SSH_AUTH_ERROR:
      if (!ssh_is_connected(m_session)) throwLinkLost("during authentication");
      return AuthStep::Denied;
    default:
      return AuthStep::Denied;
  }
}

SshConnection::AuthStep SshConnection::tryKeyFile(const QString& path, bool explicitFile,
                                                  const ConnectCallbacks& callbacks, AuthNotes& notes) {
  if (!QFileInfo::exists(path)) {
    if (explicitFile) notes.tried << QString("key %1 (no such file)").arg(path);
    return AuthStep::Denied;
  }
  const QByteArray file = path.toLocal8Bit();
  // With a .pub beside it, ask the server first: no passphrase prompt for a key it refuses.
  ssh_key pub = nullptr;
  if (ssh_pki_import_pubkey_file((file + ".pub").constData(), &pub) == SSH_OK) {
    const int rc = ssh_userauth_try_publickey(m_session, nullptr, pub);
    ssh_key_free(pub);
    if (rc != SSH_AUTH_SUCCESS) {
      authOutcome(rc);  // a link that went is said as such
      notes.tried << QString("key %1 (refused by the server)").arg(path);
      return AuthStep::Denied;
    }
  }
  ssh_key key = nullptr;
  if (ssh_pki_import_privkey_file(file.constData(), nullptr, nullptr, nullptr, &key) != SSH_OK) {
    key = nullptr;
    for (int attempt = 0; attempt < kSecretTries && key == nullptr && callbacks.askSecret && !m_target.batch;
         ++attempt) {
      std::optional<QByteArray> secret =
          callbacks.askSecret(QString("Passphrase for the key %1%2:").arg(path, attempt > 0 ? " (try again)" : ""));
      if (!secret) break;
      if (ssh_pki_import_privkey_file(file.constData(), secret->constData(), nullptr, nullptr, &key) != SSH_OK)
        key = nullptr;
      wipeSecret(*secret);
    }
    if (key == nullptr) {
      notes.tried << QString("key %1 (cannot be read, or its passphrase was not given)").arg(path);
      return AuthStep::Denied;
    }
  }
  const int rc = ssh_userauth_publickey(m_session, nullptr, key);
  ssh_key_free(key);
  const AuthStep step = authOutcome(rc);
  if (step == AuthStep::Denied)
    notes.tried << QString("key %1 (refused by the server)").arg(path);
  else
    m_authDescription = QString("publickey %1").arg(path);
  return step;
}

SshConnection::AuthStep SshConnection::authPublicKey(const ConnectCallbacks& callbacks, AuthNotes& notes) {
  // IdentitiesOnly: libssh cannot ask the agent for one key, so the agent is left out.
  const QString agent =
      m_target.identityAgent.isEmpty() ? qEnvironmentVariable("SSH_AUTH_SOCK") : m_target.identityAgent;
  if (!m_target.identitiesOnly && !agent.isEmpty() && agent != "none") {
    const AuthStep step = authOutcome(ssh_userauth_agent(m_session, nullptr));
    if (step != AuthStep::Denied) {
      m_authDescription = "ssh-agent";
      return step;
    }
    notes.tried << "ssh-agent";
  }
  const bool explicitFiles = !m_target.identityFiles.isEmpty();
  QStringList files = m_target.identityFiles;
  if (!explicitFiles)
    for (const char* name : {"id_ed25519", "id_ecdsa", "id_rsa"}) files << QDir::homePath() + "/.ssh/" + name;
  for (const QString& f : files)
    if (const AuthStep step = tryKeyFile(f, explicitFiles, callbacks, notes); step != AuthStep::Denied) return step;
  return AuthStep::Denied;
}

SshConnection::AuthStep SshConnection::authKeyboardInteractive(const ConnectCallbacks& callbacks, AuthNotes& notes) {
  if (m_target.batch || !callbacks.askInteractive) {
    notes.interactiveUnasked = true;
    return AuthStep::Denied;
  }
  // The session blocks for at most its timeout per call: a server waiting on the user (a Duo
  // push to approve) answers SSH_AUTH_AGAIN, and the pending call is made again, not counted as a
  // refusal, until kInteractiveWaitMs. Another method may not start while one is pending.
  const auto kbdint = [this] {
    QElapsedTimer waited;
    waited.start();
    int rc = ssh_userauth_kbdint(m_session, nullptr, nullptr);
    while (rc == SSH_AUTH_AGAIN && waited.elapsed() < kInteractiveWaitMs) {
      if (!ssh_is_connected(m_session)) throwLinkLost("while waiting for the keyboard-interactive login");
      rc = ssh_userauth_kbdint(m_session, nullptr, nullptr);
    }
    if (rc == SSH_AUTH_AGAIN)
      throw SshError(SshError::Kind::Auth,
                     QString("%1 did not finish the keyboard-interactive login within %2 s (a push or a second "
                             "factor not approved?). Connect again.")
                         .arg(m_target.display())
                         .arg(kInteractiveWaitMs / 1000));
    return rc;
  };
  for (int attempt = 1; attempt <= kSecretTries; ++attempt) {
    int rc = kbdint();
    QString carried;  // the text of rounds that ask nothing, shown with the next one that asks
    for (int round = 0; rc == SSH_AUTH_INFO; ++round) {
      if (round == kInteractiveRounds)
        throw SshError(SshError::Kind::Auth,
                       QString("%1 asked %2 rounds of keyboard-interactive questions without an end; log in with "
                               "OpenSSH's `ssh` to see what it wants.")
                           .arg(m_target.display())
                           .arg(kInteractiveRounds));
      InteractivePrompt prompt;
      prompt.host = m_target.display();
      prompt.name = QString::fromUtf8(ssh_userauth_kbdint_getname(m_session));
      const QString instruction = QString::fromUtf8(ssh_userauth_kbdint_getinstruction(m_session));
      prompt.instruction = carried.isEmpty() ? instruction : carried + '\n' + instruction;
      prompt.attempt = attempt;
      const int count = ssh_userauth_kbdint_getnprompts(m_session);
      for (int i = 0; i < count; ++i) {
        char echo = 0;
        const char* text = ssh_userauth_kbdint_getprompt(m_session, static_cast<unsigned int>(i), &echo);
        prompt.fields.push_back({QString::fromUtf8(text), echo != 0});
      }
      if (prompt.fields.isEmpty()) {
        // Answered with no answers (RFC 4256 3.4); what it said goes with the next question.
        for (const QString& text : {prompt.name, instruction})
          if (!text.trimmed().isEmpty()) carried += (carried.isEmpty() ? "" : "\n") + text.trimmed();
        rc = kbdint();
        continue;
      }
      carried.clear();
      notes.interactiveTexts.clear();
      for (const InteractivePrompt::Field& field : prompt.fields) notes.interactiveTexts << field.text.trimmed();
      InteractiveAnswers answers = callbacks.askInteractive(prompt);
      if (!answers)
        throw SshError(SshError::Kind::Auth,
                       QString("The login to %1 was cancelled at its keyboard-interactive prompt (\"%2\"). Connect "
                               "again and answer it.")
                           .arg(m_target.display(), notes.interactiveTexts.join("\", \"")));
      int set = 0;
      for (int i = 0; i < count; ++i) {
        const QByteArray answer = i < answers->size() ? answers->at(i) : QByteArray("");
        set += ssh_userauth_kbdint_setanswer(m_session, static_cast<unsigned int>(i), answer.constData()) == 0;
      }
      for (QByteArray& answer : *answers) wipeSecret(answer);
      if (set != count)
        throw SshError(SshError::Kind::Auth,
                       QString("libssh did not take the answers for %1: %2.").arg(m_target.display(), errorDetail()));
      rc = kbdint();
    }
    const AuthStep step = authOutcome(rc);
    if (step != AuthStep::Denied) {
      m_authDescription = "keyboard-interactive";
      return step;
    }
    if (notes.interactiveTexts.isEmpty()) break;  // refused before asking anything: nothing to try again
    ++notes.interactiveRefused;
  }
  notes.tried << "keyboard-interactive";
  return AuthStep::Denied;
}

SshConnection::AuthStep SshConnection::authPassword(const ConnectCallbacks& callbacks, AuthNotes& notes) {
  if (!callbacks.askSecret || m_target.batch) return AuthStep::Denied;
  for (int attempt = 0; attempt < kSecretTries; ++attempt) {
    std::optional<QByteArray> secret = callbacks.askSecret(QString("Password for %1:").arg(m_target.display()));
    if (!secret) break;
    const int rc = ssh_userauth_password(m_session, nullptr, secret->constData());
    wipeSecret(*secret);
    if (const AuthStep step = authOutcome(rc); step != AuthStep::Denied) {
      m_authDescription = "password";
      return step;
    }
  }
  notes.tried << "password";
  return AuthStep::Denied;
}

void SshConnection::authenticate(const ConnectCallbacks& callbacks) {
  if (ssh_userauth_none(m_session, nullptr) == SSH_AUTH_SUCCESS) {
    m_authenticated = true;
    m_authDescription = "none";
    return;
  }
  if (!ssh_is_connected(m_session)) throwLinkLost("during authentication");
  AuthNotes notes;
  int methods = ssh_userauth_list(m_session, nullptr);
  bool keysTried = false;  // keys do not change between rounds
  for (int round = 0; round < kAuthRounds; ++round) {
    // OpenSSH's order: publickey, keyboard-interactive, password.
    AuthStep step = AuthStep::Denied;
    if (!keysTried && (methods & SSH_AUTH_METHOD_PUBLICKEY)) {
      keysTried = true;
      step = authPublicKey(callbacks, notes);
    }
    if (step == AuthStep::Denied && (methods & SSH_AUTH_METHOD_INTERACTIVE))
      step = authKeyboardInteractive(callbacks, notes);
    if (step == AuthStep::Denied && (methods & SSH_AUTH_METHOD_PASSWORD)) step = authPassword(callbacks, notes);
    if (step == AuthStep::Denied) break;
    notes.passed << m_authDescription;
    if (step == AuthStep::Success) {
      m_authenticated = true;
      m_authDescription = notes.passed.join(" + ");
      return;
    }
    methods = ssh_userauth_list(m_session, nullptr);  // what it still wants
  }
  throwAuthFailure(notes, methods);
}

void SshConnection::throwAuthFailure(const AuthNotes& notes, int methods) const {
  const QString host = m_target.display();
  const QString prompts = notes.interactiveTexts.join("\", \"");
  if (notes.interactiveRefused > 0)
    throw SshError(SshError::Kind::Auth,
                   QString("%1 refused the answer to its keyboard-interactive prompt \"%2\" (%3 %4). Check what you "
                           "type: a one-time code (TOTP) must be the current one, and it is only right when this "
                           "computer's clock is; then connect again.")
                       .arg(host, prompts)
                       .arg(notes.interactiveRefused)
                       .arg(notes.interactiveRefused == 1 ? "try" : "tries"));
  const QString unasked = m_target.batch ? "batch mode (--batch) asks nothing" : "nothing here can answer its prompts";
  if (notes.interactiveUnasked && !notes.passed.isEmpty())
    throw SshError(SshError::Kind::Auth,
                   QString("%1 wants keyboard-interactive authentication after taking %2 (a second factor, as on MFA "
                           "login nodes: a TOTP code, Duo), and %3. Run it without --batch, from a terminal, to be "
                           "asked there (try it with `traindeck --check-ssh %1`), or from the app, which shows the "
                           "server's prompt. It is asked once per connection: once for a whole run while the link "
                           "holds.")
                       .arg(host, notes.passed.join(" + "), unasked));
  QStringList offered;
  if (methods & SSH_AUTH_METHOD_PUBLICKEY) offered << "publickey";
  if (methods & SSH_AUTH_METHOD_PASSWORD) offered << "password";
  if (methods & SSH_AUTH_METHOD_INTERACTIVE) offered << "keyboard-interactive";
  const QString partial =
      notes.passed.isEmpty() ? QString() : QString("; it took %1 but wants more").arg(notes.passed.join(" + "));
  const QString interactive =
      notes.interactiveUnasked
          ? QString(
                " Its keyboard-interactive prompts (a password or a second factor) were not shown: %1; run it "
                "without --batch, or from the app, to answer them.")
                .arg(unasked)
          : QString();
  throw SshError(
      SshError::Kind::Auth,
      QString("Authentication failed for %1 (the server accepts: %2; tried: %3%4). Add your public key to "
              "~/.ssh/authorized_keys on the server, or give the right key file (--identity FILE, or the Key "
              "file field under Hosts…).%5")
          .arg(host, offered.isEmpty() ? "nothing" : offered.join(", "),
               notes.tried.isEmpty() ? "nothing" : notes.tried.join(", "), partial, interactive));
}

}  // namespace traindeck
