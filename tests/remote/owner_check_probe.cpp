// A program for remote.sshd: connects on the main thread, then calls the connection from a
// second thread, which SshConnection must stop with a fatal "does not own" error (libssh
// sessions are single-threaded). Usage: owner_check_probe SPEC KEY KNOWN_HOSTS
#include <QCoreApplication>
#include <cstdio>
#include <thread>

#include "ssh_connection.h"
#include "ssh_error.h"

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  if (argc != 4) return 2;
  traindeck::SshTarget target = traindeck::SshTarget::parse(argv[1]);
  target.identityFiles << argv[2];
  target.knownHostsFile = argv[3];
  traindeck::ConnectCallbacks callbacks;
  callbacks.confirmHostKey = [](const traindeck::HostKeyInfo&) { return traindeck::HostKeyDecision::AcceptOnce; };
  traindeck::SshConnection connection;
  try {
    connection.connect(target, callbacks);
  } catch (const traindeck::SshError& e) {
    std::fprintf(stderr, "connect failed: %s\n", e.what());
    return 3;
  }
  std::fprintf(stderr, "connected; probing from another thread\n");
  std::thread other([&] { connection.probe(); });
  other.join();
  std::fprintf(stderr, "the other thread was allowed through\n");
  return 0;
}
