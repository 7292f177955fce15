// Writes a safetensors file one tensor at a time: the header is built up front from every
// tensor's name, dtype and shape, and each tensor's bytes are appended in file order, so a
// writer never needs more than one tensor in memory. writeSafetensors is this, all at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "trainer/safetensors/tensor_dtype.h"

namespace traindeck {

struct TensorLayout {  // a tensor of a file, before its bytes exist
  std::string name;
  TensorDType dtype = TensorDType::F32;
  std::vector<std::int64_t> shape;
};

// The order in which a safetensors file holds `tensors` (indices into it), as the reference
// implementation orders them: largest dtype first, then by name. Anyone knowing the layouts can
// compute it, so producers on other processes can follow the writer's order.
std::vector<std::size_t> safetensorsFileOrder(const std::vector<TensorLayout>& tensors);

class SafetensorsStreamWriter {
 public:
  // Checks the layouts (unique UTF-8 names, not "__metadata__", shapes that fit), creates or
  // truncates `path` and writes the header. Throws SafetensorsError.
  SafetensorsStreamWriter(std::string path, const std::vector<TensorLayout>& tensors,
                          const std::map<std::string, std::string>& metadata = {});
  SafetensorsStreamWriter(const SafetensorsStreamWriter&) = delete;
  SafetensorsStreamWriter& operator=(const SafetensorsStreamWriter&) = delete;
  // Unfinished (a failure, or an exception in the caller): closes and removes the partial file.
  ~SafetensorsStreamWriter();

  // Indices into the constructor's `tensors`, in the order append() takes them.
  const std::vector<std::size_t>& fileOrder() const { return m_order; }
  // The next tensor's bytes (its layout's size exactly, little-endian, C order). Throws
  // SafetensorsError, removing the file.
  void append(const void* data, std::size_t byteSize);
  // After the last append: fsyncs and closes the file. Throws SafetensorsError, removing it.
  void finish();

 private:
  [[noreturn]] void fail(const std::string& defect);

  std::string m_path;
  int m_fd = -1;
  std::vector<std::size_t> m_order;
  std::vector<TensorLayout> m_layouts;   // in file order
  std::vector<std::size_t> m_byteSizes;  // in file order
  std::size_t m_next = 0;
};

}  // namespace traindeck
