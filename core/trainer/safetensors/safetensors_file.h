// A safetensors file opened for reading: memory-mapped, its header checked in full before any
// tensor is handed out, and its tensors exposed as views into the mapping (no copies).
// Format: 8-byte little-endian header length N, N bytes of JSON header, then the data buffer.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "trainer/safetensors/tensor_view.h"

namespace traindeck {

class SafetensorsFile {
 public:
  static constexpr std::size_t kMaxHeaderBytes = 100'000'000;  // as the reference implementation

  // Maps and validates `path`: the header length, the JSON, every entry's dtype, shape and
  // offsets, and that the tensors cover the data buffer exactly, without overlap. Throws
  // SafetensorsError naming the file and the defect.
  static SafetensorsFile open(const std::string& path);

  SafetensorsFile(SafetensorsFile&& other) noexcept;
  SafetensorsFile& operator=(SafetensorsFile&& other) noexcept;
  SafetensorsFile(const SafetensorsFile&) = delete;
  SafetensorsFile& operator=(const SafetensorsFile&) = delete;
  ~SafetensorsFile();

  const std::string& path() const { return m_path; }
  // Every tensor, sorted by name. The views point into the mapping: they stay valid while this
  // object (or the one it is moved into) lives.
  const std::vector<TensorView>& tensors() const { return m_tensors; }
  // The tensor called `name`, or nullptr.
  const TensorView* find(std::string_view name) const;
  // The "__metadata__" object of the header; empty when there is none.
  const std::map<std::string, std::string>& metadata() const { return m_metadata; }
  std::size_t fileSize() const { return m_size; }
  // Gives the mapped pages lying wholly inside [data, data + bytes) back to the file: the process
  // stops counting them as resident, and reading them again reads the file. Memory outside this
  // file's mapping is left alone. For a reader that uses each tensor once (a resume, streamed).
  void releasePages(const void* data, std::size_t bytes) const;

 private:
  SafetensorsFile() = default;
  void unmap();

  std::string m_path;
  void* m_mapping = nullptr;
  std::size_t m_size = 0;
  std::vector<TensorView> m_tensors;
  std::map<std::string, std::string> m_metadata;
};

}  // namespace traindeck
