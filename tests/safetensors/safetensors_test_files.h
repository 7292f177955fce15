// Test helpers for safetensors files: a temporary folder per test, files written byte by byte
// (so that a test can make any defect), and a tensor's values copied out of its view.
#pragma once

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "trainer/safetensors/tensor_view.h"

namespace traindeck::testing {

class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    m_path = std::filesystem::temp_directory_path() /
             ("traindeck-checkpoint-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::create_directories(m_path);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(m_path, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string file(const std::string& name) const { return (m_path / name).string(); }

 private:
  std::filesystem::path m_path;
};

inline void writeBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

inline std::string readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline std::string lengthPrefix(std::uint64_t length) {
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((length >> (8 * i)) & 0xFF);
  return bytes;
}

// A safetensors file from its parts; `declaredLength` replaces the true header length.
inline std::string rawFile(const std::string& header, const std::string& data,
                           std::optional<std::uint64_t> declaredLength = std::nullopt) {
  return lengthPrefix(declaredLength.value_or(header.size())) + header + data;
}

template <class T>
std::vector<T> valuesOf(const TensorView& t) {
  std::vector<T> values(t.byteSize / sizeof(T));
  if (!values.empty()) std::memcpy(values.data(), t.data, values.size() * sizeof(T));  // may be unaligned
  return values;
}

template <class T>
TensorView viewOf(std::string name, TensorDType dtype, std::vector<std::int64_t> shape, const std::vector<T>& values) {
  return TensorView{.name = std::move(name),
                    .dtype = dtype,
                    .shape = std::move(shape),
                    .data = values.data(),
                    .byteSize = values.size() * sizeof(T)};
}

}  // namespace traindeck::testing
