// A file written independently of our writer (write_reference_safetensors.py: only Python's
// struct and json) read by ours: another key order and spacing, \u escapes, data laid out in
// another order than the header and left unaligned.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "safetensors_test_files.h"
#include "trainer/safetensors/dtype_convert.h"
#include "trainer/safetensors/safetensors_file.h"

namespace traindeck {
namespace {

using testing::valuesOf;

constexpr const char* kPython = "/usr/bin/python3";

TEST(SafetensorsReferenceFile, ReadsAFileWrittenByPython) {
  if (!std::filesystem::exists(kPython)) GTEST_SKIP() << "needs " << kPython << " to write the reference file";
  testing::TempDir dir;
  const std::string path = dir.file("reference.safetensors");
  const std::string script = TRAINDECK_SAFETENSORS_TEST_DIR "/write_reference_safetensors.py";
  const std::string command = std::string(kPython) + " '" + script + "' '" + path + "'";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;

  const SafetensorsFile file = SafetensorsFile::open(path);
  ASSERT_EQ(file.tensors().size(), 9u);
  const auto tensor = [&](const char* name) -> const TensorView& {
    const TensorView* t = file.find(name);
    if (t == nullptr) throw std::runtime_error(std::string("no tensor ") + name);
    return *t;
  };

  const TensorView& weight = tensor("a.weight");
  EXPECT_EQ(weight.dtype, TensorDType::F32);
  EXPECT_EQ(weight.shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(valuesOf<float>(weight), (std::vector<float>{-1.0f, -0.5f, 0.0f, 0.5f, 1.0f, 1.5f}));

  const TensorView& bias = tensor("b.bias");
  EXPECT_EQ(bias.dtype, TensorDType::BF16);
  std::vector<float> floats(3);
  convertToFloat(bias.dtype, bias.data, floats.data(), floats.size());
  EXPECT_EQ(floats, (std::vector<float>{1.0f, -2.5f, 0.15625f}));

  const TensorView& emb = tensor("emb");
  EXPECT_EQ(emb.dtype, TensorDType::F16);
  EXPECT_EQ(emb.shape, (std::vector<std::int64_t>{2, 2}));
  floats.resize(4);
  convertToFloat(emb.dtype, emb.data, floats.data(), floats.size());
  EXPECT_EQ(floats, (std::vector<float>{1.0f, -0.0009765625f, 65504.0f, 5.9604644775390625e-08f}));

  const TensorView& ids = tensor("ids");
  EXPECT_EQ(ids.dtype, TensorDType::I64);
  EXPECT_EQ(valuesOf<std::int64_t>(ids),
            (std::vector<std::int64_t>{0, -1, std::int64_t{1} << 62, std::numeric_limits<std::int64_t>::min()}));
  EXPECT_EQ(valuesOf<std::int32_t>(tensor("counts")),
            (std::vector<std::int32_t>{7, std::numeric_limits<std::int32_t>::min()}));
  EXPECT_EQ(tensor("counts").shape, (std::vector<std::int64_t>{2, 1}));
  EXPECT_EQ(valuesOf<std::uint8_t>(tensor("mask")), (std::vector<std::uint8_t>{0, 1, 2, 254, 255}));

  const TensorView& scalar = tensor("scalar");
  EXPECT_TRUE(scalar.shape.empty());
  EXPECT_EQ(valuesOf<float>(scalar), std::vector<float>{3.25f});

  const TensorView& empty = tensor("empty");
  EXPECT_EQ(empty.shape, (std::vector<std::int64_t>{0, 4}));
  EXPECT_EQ(empty.byteSize, 0u);

  EXPECT_EQ(valuesOf<std::uint8_t>(tensor("caf\xC3\xA9")), std::vector<std::uint8_t>{42});  // "caf\u00e9"
  EXPECT_EQ(file.metadata().size(), 2u);
  EXPECT_EQ(file.metadata().at("format"), "pt");
  EXPECT_EQ(file.metadata().at("note"), "written by struct and json, na\xC3\xAFve");
}

}  // namespace
}  // namespace traindeck
