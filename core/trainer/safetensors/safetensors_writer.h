// Writes tensors from host memory as a safetensors file laid out as the reference
// implementation lays it out: header entries and data in one order (largest dtype first, then
// by name), the header padded with spaces so that the data starts 8-byte aligned.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "trainer/safetensors/tensor_view.h"

namespace traindeck {

// Creates or truncates `path`, writes the file and fsyncs it. There is no temporary file and
// rename: a caller wanting an all-or-nothing checkpoint writes into a temporary folder and
// renames that. Each view's byteSize must match its dtype and shape, names must be unique
// UTF-8 and not "__metadata__". Throws SafetensorsError, removing any partial file.
void writeSafetensors(const std::string& path, const std::vector<TensorView>& tensors,
                      const std::map<std::string, std::string>& metadata = {});

}  // namespace traindeck
