// Writing and reading back safetensors files: every dtype, 0-dim scalars and empty tensors,
// metadata, the layout the reference implementation writes (byte for byte on its own test
// vectors), and the writer's refusals.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "safetensors_test_files.h"
#include "runlog/json_value.h"
#include "trainer/safetensors/dtype_convert.h"
#include "trainer/safetensors/safetensors_error.h"
#include "trainer/safetensors/safetensors_file.h"
#include "trainer/safetensors/safetensors_stream_writer.h"
#include "trainer/safetensors/safetensors_writer.h"

namespace traindeck {
namespace {

using testing::TempDir;
using testing::valuesOf;
using testing::viewOf;

std::string writeError(const std::string& path, const std::vector<TensorView>& tensors,
                       const std::map<std::string, std::string>& metadata = {}) {
  try {
    writeSafetensors(path, tensors, metadata);
  } catch (const SafetensorsError& e) {
    return e.what();
  }
  return "";
}

TEST(SafetensorsRoundTrip, EveryDtypeAndShape) {
  TempDir dir;
  const std::vector<float> w = {-1.5f, 0.0f, 2.25f, 1e-30f, 3.4e38f, -0.0f};
  std::vector<std::uint16_t> h, b;
  for (const float f : {1.0f, -2.0f, 65504.0f, 5.960464477539063e-08f}) h.push_back(floatToHalf(f));
  for (const float f : {1.0f, -2.5f, 0.15625f, 1e38f}) b.push_back(floatToBf16(f));
  const std::vector<std::int64_t> i = {0, -1, std::numeric_limits<std::int64_t>::min(),
                                       std::numeric_limits<std::int64_t>::max()};
  const std::vector<std::int32_t> j = {7, std::numeric_limits<std::int32_t>::min()};
  const std::vector<std::uint8_t> u = {0, 1, 2, 254, 255, 7, 9};
  const std::vector<float> s = {3.25f};
  const std::vector<float> none;
  const std::vector<std::int64_t> noInts;

  const std::vector<TensorView> tensors = {
      viewOf("w", TensorDType::F32, {2, 3}, w),
      viewOf("h", TensorDType::F16, {4}, h),
      viewOf("b", TensorDType::BF16, {2, 2}, b),
      viewOf("i", TensorDType::I64, {4}, i),
      viewOf("j", TensorDType::I32, {1, 1, 2}, j),
      viewOf("u", TensorDType::U8, {7}, u),
      viewOf("s", TensorDType::F32, {}, s),
      viewOf("e", TensorDType::F32, {0}, none),
      viewOf("e2", TensorDType::I64, {3, 0, 2}, noInts),
  };
  const std::string path = dir.file("model.safetensors");
  writeSafetensors(path, tensors, {{"format", "pt"}, {"step", "120"}});

  const SafetensorsFile file = SafetensorsFile::open(path);
  EXPECT_EQ(file.path(), path);
  EXPECT_EQ(file.fileSize(), std::filesystem::file_size(path));
  ASSERT_EQ(file.tensors().size(), tensors.size());
  for (std::size_t k = 1; k < file.tensors().size(); ++k) {
    EXPECT_LT(file.tensors()[k - 1].name, file.tensors()[k].name);  // sorted by name
  }
  for (const TensorView& expected : tensors) {
    const TensorView* got = file.find(expected.name);
    ASSERT_NE(got, nullptr) << expected.name;
    EXPECT_EQ(got->dtype, expected.dtype) << expected.name;
    EXPECT_EQ(got->shape, expected.shape) << expected.name;
    ASSERT_EQ(got->byteSize, expected.byteSize) << expected.name;
    if (expected.byteSize > 0) {
      EXPECT_EQ(std::memcmp(got->data, expected.data, expected.byteSize), 0) << expected.name;
    }
    // Our writer aligns every tensor to its element size (mappings are page-aligned).
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(got->data) % dtypeSize(got->dtype), 0u) << expected.name;
  }
  EXPECT_EQ(valuesOf<float>(*file.find("s")), s);
  EXPECT_TRUE(file.find("s")->shape.empty());
  EXPECT_EQ(valuesOf<std::int64_t>(*file.find("i")), i);
  EXPECT_EQ(file.find("missing"), nullptr);
  EXPECT_EQ(file.find(""), nullptr);
  const std::map<std::string, std::string> metadata = {{"format", "pt"}, {"step", "120"}};
  EXPECT_EQ(file.metadata(), metadata);
}

TEST(SafetensorsRoundTrip, HeaderIsLaidOutAsTheReferenceWritesIt) {
  TempDir dir;
  const std::vector<std::uint8_t> one = {1};
  const std::vector<std::uint16_t> half = {2};
  const std::vector<std::uint16_t> two = {2, 3};
  const std::vector<float> four = {4};
  const std::vector<std::int64_t> eight = {8};
  const std::vector<TensorView> tensors = {
      viewOf("a.u8", TensorDType::U8, {1}, one),     viewOf("b.f16", TensorDType::F16, {1}, half),
      viewOf("c.bf16", TensorDType::BF16, {2}, two), viewOf("d.f32", TensorDType::F32, {1}, four),
      viewOf("z.i64", TensorDType::I64, {1}, eight), viewOf("a.f32", TensorDType::F32, {1}, four),
  };
  const std::string path = dir.file("layout.safetensors");
  writeSafetensors(path, tensors, {{"k", "v"}});

  const std::string bytes = testing::readBytes(path);
  std::uint64_t headerSize = 0;
  std::memcpy(&headerSize, bytes.data(), 8);
  EXPECT_EQ(headerSize % 8, 0u);
  const std::string header = bytes.substr(8, headerSize);
  EXPECT_EQ(header.find_last_not_of(' '), header.rfind('}'));  // padded with spaces only
  const JsonParseResult parsed = parseJson(header);
  ASSERT_TRUE(parsed.ok()) << parsed.error;
  std::vector<std::string> order;
  for (const auto& [name, info] : parsed.value.members()) order.push_back(name);
  // Metadata first; then by dtype from I64 down to U8, then by name; data in the same order.
  const std::vector<std::string> expected = {"__metadata__", "z.i64", "a.f32", "d.f32", "c.bf16", "b.f16", "a.u8"};
  EXPECT_EQ(order, expected);
  std::int64_t offset = 0;
  for (std::size_t k = 1; k < order.size(); ++k) {
    const JsonValue* offsets = parsed.value.find(order[k])->find("data_offsets");
    EXPECT_EQ(offsets->at(0)->integerOr(-1), offset) << order[k];
    offset = offsets->at(1)->integerOr(-1);
  }
  EXPECT_EQ(static_cast<std::uint64_t>(offset), bytes.size() - 8 - headerSize);
}

TEST(SafetensorsRoundTrip, MatchesTheReferenceWritersTestVectors) {
  TempDir dir;
  const std::vector<float> data = {0, 1, 2, 3, 4, 5};
  const std::string floats(reinterpret_cast<const char*>(data.data()), data.size() * sizeof(float));
  const std::string path = dir.file("vector.safetensors");

  writeSafetensors(path, {viewOf("attn.0", TensorDType::F32, {1, 2, 3}, data)});
  EXPECT_EQ(testing::readBytes(path),
            testing::rawFile(R"({"attn.0":{"dtype":"F32","shape":[1,2,3],"data_offsets":[0,24]}})", floats));

  // A shorter name leaves the header 7 bytes short of a multiple of 8: padded with spaces.
  writeSafetensors(path, {viewOf("attn0", TensorDType::F32, {1, 1, 2, 3}, data)});
  EXPECT_EQ(testing::readBytes(path),
            testing::rawFile(R"({"attn0":{"dtype":"F32","shape":[1,1,2,3],"data_offsets":[0,24]}}       )", floats));

  writeSafetensors(path, {});
  EXPECT_EQ(testing::readBytes(path), testing::rawFile("{}      ", ""));
  EXPECT_TRUE(SafetensorsFile::open(path).tensors().empty());

  writeSafetensors(path, {}, {{"framework", "pt"}});
  EXPECT_EQ(testing::readBytes(path), testing::rawFile(R"({"__metadata__":{"framework":"pt"}}     )", ""));
  EXPECT_EQ(SafetensorsFile::open(path).metadata().at("framework"), "pt");
}

TEST(SafetensorsRoundTrip, NamesAndMetadataNeedingEscapes) {
  TempDir dir;
  const std::vector<float> one = {1};
  const std::string odd = "h.0/attn \"q\"\\k\tv caf\xC3\xA9";
  const std::string path = dir.file("names.safetensors");
  writeSafetensors(path, {viewOf(odd, TensorDType::F32, {1}, one)}, {{"note\n", "line\x01two \xF0\x9F\x98\x80"}});
  const SafetensorsFile file = SafetensorsFile::open(path);
  ASSERT_NE(file.find(odd), nullptr);
  EXPECT_EQ(file.metadata().at("note\n"), "line\x01two \xF0\x9F\x98\x80");
}

TEST(SafetensorsRoundTrip, FilesCanBeMovedAndViewsStayValid) {
  TempDir dir;
  const std::vector<std::int32_t> values = {1, 2, 3};
  const std::string path = dir.file("move.safetensors");
  writeSafetensors(path, {viewOf("x", TensorDType::I32, {3}, values)});
  SafetensorsFile first = SafetensorsFile::open(path);
  const void* data = first.find("x")->data;
  SafetensorsFile second = std::move(first);
  EXPECT_EQ(second.find("x")->data, data);
  EXPECT_EQ(valuesOf<std::int32_t>(*second.find("x")), values);
  second = SafetensorsFile::open(path);  // the old mapping goes, the new one stays
  EXPECT_EQ(valuesOf<std::int32_t>(*second.find("x")), values);
}

TEST(SafetensorsRoundTrip, LargeTensor) {
  TempDir dir;
  std::vector<float> big(3 * 1000 * 1000);
  for (std::size_t k = 0; k < big.size(); ++k) big[k] = static_cast<float>(k) * 0.5f;
  const std::string path = dir.file("big.safetensors");
  writeSafetensors(path, {viewOf("big", TensorDType::F32, {3, 1000, 1000}, big)});
  const SafetensorsFile file = SafetensorsFile::open(path);
  EXPECT_EQ(valuesOf<float>(*file.find("big")), big);
}

TEST(SafetensorsWriter, RefusesBadInput) {
  TempDir dir;
  const std::string path = dir.file("bad.safetensors");
  const std::vector<float> four(4, 1.0f);
  const std::vector<float> none;

  EXPECT_EQ(writeError(path, {viewOf("a", TensorDType::F32, {4}, four), viewOf("a", TensorDType::F32, {4}, four)}),
            "cannot write safetensors file " + path + ": two tensors are called \"a\"");
  EXPECT_EQ(writeError(path, {viewOf("__metadata__", TensorDType::F32, {4}, four)}),
            "cannot write safetensors file " + path + ": a tensor may not be called \"__metadata__\"");
  EXPECT_EQ(writeError(path, {viewOf("a", TensorDType::F32, {2, 3}, four)}),
            "cannot write safetensors file " + path +
                ": tensor \"a\" (F32, shape [2, 3]) comes with 16 bytes where it needs 24");
  EXPECT_EQ(writeError(path, {viewOf("a", TensorDType::F32, {-4}, four)}),
            "cannot write safetensors file " + path + ": tensor \"a\" has a negative or impossibly large shape [-4]");
  EXPECT_EQ(writeError(path, {TensorView{"a", TensorDType::U8, {2}, nullptr, 2}}),
            "cannot write safetensors file " + path + ": tensor \"a\" has no data");
  EXPECT_EQ(writeError(path, {viewOf("bad\xFF", TensorDType::F32, {0}, none)}),
            "cannot write safetensors file " + path + ": a tensor name or metadata string is not valid UTF-8");
  EXPECT_FALSE(std::filesystem::exists(path));  // each refusal comes before the file is created

  const std::string nowhere = dir.file("no/such/folder/x.safetensors");
  EXPECT_EQ(writeError(nowhere, {}), "cannot write safetensors file " + nowhere + ": No such file or directory");
}

// The stream writer takes tensors one at a time in file order, and an unfinished file is removed.
TEST(SafetensorsStreamWriter, TakesTensorsInFileOrderAndRemovesAnUnfinishedFile) {
  TempDir dir;
  const std::string path = dir.file("streamed.safetensors");
  const std::vector<TensorLayout> layouts = {{"b", TensorDType::U8, {2}}, {"a", TensorDType::F32, {2}}};
  const std::vector<float> floats = {1.0f, 2.0f};
  const std::vector<std::uint8_t> bytes = {7, 8};
  {
    SafetensorsStreamWriter writer(path, layouts);
    EXPECT_EQ(writer.fileOrder(), (std::vector<std::size_t>{1, 0}));  // F32 before U8
    writer.append(floats.data(), 8);
    writer.append(bytes.data(), 2);
    writer.finish();
  }
  const SafetensorsFile file = SafetensorsFile::open(path);
  EXPECT_EQ(valuesOf<float>(*file.find("a")), floats);

  const std::string cut = dir.file("cut.safetensors");
  {
    SafetensorsStreamWriter writer(cut, layouts);
    writer.append(floats.data(), 8);
    EXPECT_TRUE(std::filesystem::exists(cut));
    EXPECT_THROW(writer.finish(), SafetensorsError);  // one tensor never came
  }
  EXPECT_FALSE(std::filesystem::exists(cut));
  {
    SafetensorsStreamWriter writer(cut, layouts);
    writer.append(floats.data(), 8);
  }  // dropped unfinished (the caller threw)
  EXPECT_FALSE(std::filesystem::exists(cut));
}

// Released pages read back from the file; memory outside the mapping is left alone.
TEST(SafetensorsFile, ReleasedPagesReadBackFromTheFile) {
  TempDir dir;
  const std::string path = dir.file("big.safetensors");
  std::vector<float> big(3 * 4096);
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<float>(i);
  writeSafetensors(path, {viewOf("big", TensorDType::F32, {3, 4096}, big)});
  const SafetensorsFile file = SafetensorsFile::open(path);
  const TensorView& view = *file.find("big");
  EXPECT_EQ(valuesOf<float>(view), big);
  file.releasePages(view.data, view.byteSize);
  EXPECT_EQ(valuesOf<float>(view), big);
  file.releasePages(big.data(), big.size() * sizeof(float));  // not the file's: untouched
  EXPECT_EQ(big[4096], 4096.0f);
}

}  // namespace
}  // namespace traindeck
