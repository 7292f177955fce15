// Helpers for the server tests: deterministic random files, and a plain-socket TCP service on
// 127.0.0.1 (its own thread, no Qt event loop) that sends a fixed number of pseudo-random bytes
// to each client and closes, standing in for a monitor port on the remote's loopback.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <QByteArray>
#include <QCryptographicHash>
#include <QFile>
#include <QString>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

namespace traindeck::test {

// Bytes from a xorshift generator: any offset can be regenerated to check a stream.
inline void fillPattern(char* out, qint64 n, std::uint64_t& state) {
  for (qint64 i = 0; i < n; i += 8) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    if (i + 8 <= n) {
      std::memcpy(out + i, &state, 8);  // little-endian: byte k is state >> (8 * k)
    } else {
      for (int k = 0; i + k < n; ++k) out[i + k] = static_cast<char>(state >> (8 * k));
    }
  }
}

inline QByteArray writeRandomFile(const QString& path, qint64 size, std::uint64_t seed) {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) return QByteArray();
  QCryptographicHash hash(QCryptographicHash::Sha256);
  QByteArray chunk(1 << 20, Qt::Uninitialized);
  for (qint64 done = 0; done < size;) {
    const qint64 n = std::min<qint64>(chunk.size(), size - done);
    fillPattern(chunk.data(), n, seed);
    f.write(chunk.constData(), n);
    hash.addData(QByteArrayView(chunk.constData(), n));
    done += n;
  }
  return hash.result().toHex();
}

class PatternServer {
 public:
  explicit PatternServer(qint64 bytesPerClient) : m_bytes(bytesPerClient) {
    m_fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(m_fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::listen(m_fd, 16);
    socklen_t len = sizeof a;
    ::getsockname(m_fd, reinterpret_cast<sockaddr*>(&a), &len);
    m_port = ntohs(a.sin_port);
    m_thread = std::thread([this] {
      for (;;) {
        const int c = ::accept(m_fd, nullptr, nullptr);
        if (c < 0 || m_stop) break;
        m_clients.emplace_back([this, c] {
          std::uint64_t state = 0x9E3779B97F4A7C15ull;
          std::vector<char> buf(256 * 1024);
          for (qint64 done = 0; done < m_bytes;) {
            const qint64 n = std::min<qint64>(static_cast<qint64>(buf.size()), m_bytes - done);
            fillPattern(buf.data(), n, state);
            for (qint64 off = 0; off < n;) {
              const ssize_t w = ::send(c, buf.data() + off, static_cast<size_t>(n - off), MSG_NOSIGNAL);
              if (w <= 0) {
                ::close(c);
                return;
              }
              off += w;
            }
            done += n;
          }
          ::close(c);
        });
      }
    });
  }
  ~PatternServer() {
    m_stop = true;
    ::shutdown(m_fd, SHUT_RDWR);
    ::close(m_fd);
    m_thread.join();
    for (std::thread& t : m_clients) t.join();
  }
  quint16 port() const { return m_port; }

 private:
  qint64 m_bytes;
  int m_fd = -1;
  quint16 m_port = 0;
  std::atomic<bool> m_stop{false};
  std::thread m_thread;
  std::vector<std::thread> m_clients;  // touched by m_thread only until it is joined
};

// Reads everything from 127.0.0.1:port on a plain socket and compares it, as it comes, with
// the stream PatternServer sends (cheaper than hashing, so the figure measures the tunnel).
// *size: bytes received; *intact: every byte matched.
inline void readPatternFrom(quint16 port, qint64* size, bool* intact) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(port);
  *size = 0;
  *intact = true;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
    std::uint64_t state = 0x9E3779B97F4A7C15ull;
    constexpr qint64 kBlock = 256 * 1024;  // the server's generator block: regenerate in step
    std::vector<char> expected(kBlock), buf(kBlock);
    qint64 have = 0;  // bytes of the current block received so far
    fillPattern(expected.data(), kBlock, state);
    for (;;) {
      const ssize_t n = ::recv(fd, buf.data(), static_cast<size_t>(kBlock - have), 0);
      if (n <= 0) break;
      if (std::memcmp(buf.data(), expected.data() + have, static_cast<size_t>(n)) != 0) *intact = false;
      have += n;
      *size += n;
      if (have == kBlock) {
        fillPattern(expected.data(), kBlock, state);
        have = 0;
      }
    }
  }
  ::close(fd);
}

}  // namespace traindeck::test
