// Damaged safetensors files: each defect gives its own one-sentence message naming the file,
// and random damage to a valid file gives a SafetensorsError or a valid file, never a crash.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "safetensors_test_files.h"
#include "trainer/safetensors/safetensors_error.h"
#include "trainer/safetensors/safetensors_file.h"
#include "trainer/safetensors/safetensors_writer.h"

namespace traindeck {
namespace {

using testing::rawFile;
using testing::TempDir;

class SafetensorsCorruption : public ::testing::Test {
 protected:
  // The message open() throws for a file holding `bytes`, or "" when it opens.
  std::string openError(const std::string& bytes) {
    testing::writeBytes(m_path, bytes);
    return openErrorOf(m_path);
  }

  static std::string openErrorOf(const std::string& path) {
    try {
      SafetensorsFile::open(path);
    } catch (const SafetensorsError& e) {
      return e.what();
    }
    return "";
  }

  std::string expected(const std::string& defect) const { return "safetensors file " + m_path + " " + defect; }

  TempDir m_dir;
  const std::string m_path = m_dir.file("broken.safetensors");
  const std::string m_data24 = std::string(24, '\x01');
};

TEST_F(SafetensorsCorruption, AValidFileForComparison) {
  EXPECT_EQ(openError(rawFile(R"({"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]}})", m_data24)), "");
  EXPECT_EQ(openError(rawFile("{}", "")), "");
  EXPECT_EQ(openError(rawFile(R"({"a":{"dtype":"U8","shape":[0],"data_offsets":[0,0]}}   )", "")), "");
}

TEST_F(SafetensorsCorruption, TooShortForTheHeaderLength) {
  EXPECT_EQ(openError(std::string("\x05\x00\x00\x00\x00", 5)),
            expected("is 5 bytes long, too short for the 8-byte header length: it is truncated"));
  EXPECT_EQ(openError(""), expected("is 0 bytes long, too short for the 8-byte header length: it is truncated"));
}

TEST_F(SafetensorsCorruption, HeaderLengthPastTheEnd) {
  EXPECT_EQ(openError(rawFile("{}", "", 1000)),
            expected("declares a 1000-byte header but only 2 bytes follow the header length: the file is truncated"));
  // Truncated inside the header.
  const std::string header = R"({"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]}})";
  EXPECT_EQ(openError(rawFile(header, m_data24).substr(0, 20)),
            expected("declares a " + std::to_string(header.size()) +
                     "-byte header but only 12 bytes follow the header length: the file is truncated"));
}

TEST_F(SafetensorsCorruption, HeaderLengthOverTheLimit) {
  EXPECT_EQ(
      openError(rawFile("{}", "", 100'000'001)),
      expected("declares a 100000001-byte header, over the 100 MB limit: it is corrupt or not a safetensors file"));
  EXPECT_EQ(openError(rawFile("{}", "", UINT64_MAX)),
            expected("declares a 18446744073709551615-byte header, over the 100 MB limit: it is corrupt or not a "
                     "safetensors file"));
}

TEST_F(SafetensorsCorruption, HeaderNotAnObject) {
  const std::string notObject = expected("has a header that does not start with '{': it is not a safetensors file");
  EXPECT_EQ(openError(rawFile("[]", "")), notObject);
  EXPECT_EQ(openError(rawFile(" {}", "")), notObject);
  EXPECT_EQ(openError(rawFile("", "")), notObject);
  EXPECT_EQ(openError("PK\x03\x04 this is a zip file, not safetensors"),
            expected("declares a 7595448452415441744-byte header, over the 100 MB limit: it is corrupt or not a "
                     "safetensors file"));
}

TEST_F(SafetensorsCorruption, BadJson) {
  EXPECT_EQ(openError(rawFile(R"({"a":{"dtype":"F32",})", "")),
            expected("has a header that is not valid JSON: trailing comma before '}': remove it (at byte 20)"));
  EXPECT_EQ(openError(rawFile(std::string("{}\0\0\0\0\0\0", 8), "")),
            expected("has a header that is not valid JSON: unexpected byte 0x00 after the end of the JSON value (at "
                     "byte 2)"));
  EXPECT_EQ(openError(rawFile("{\"a\xFF\":1}", "")),
            expected("has a header that is not valid JSON: a string holds bytes that are not valid UTF-8 (at byte 3)"));
}

TEST_F(SafetensorsCorruption, UnknownOrMissingDtype) {
  EXPECT_EQ(openError(rawFile(R"({"a":{"dtype":"F64","shape":[3],"data_offsets":[0,24]}})", m_data24)),
            expected("gives tensor \"a\" the dtype \"F64\", which TrainDeck does not read (it reads F32, F16, BF16, "
                     "I64, I32 and U8)"));
  EXPECT_EQ(openError(rawFile(R"({"a":{"dtype":"f32","shape":[6],"data_offsets":[0,24]}})", m_data24)),
            expected("gives tensor \"a\" the dtype \"f32\", which TrainDeck does not read (it reads F32, F16, BF16, "
                     "I64, I32 and U8)"));
  EXPECT_EQ(openError(rawFile(R"({"a":{"shape":[6],"data_offsets":[0,24]}})", m_data24)),
            expected("gives tensor \"a\" no \"dtype\" string"));
  EXPECT_EQ(openError(rawFile(R"({"a":{"dtype":4,"shape":[6],"data_offsets":[0,24]}})", m_data24)),
            expected("gives tensor \"a\" no \"dtype\" string"));
}

TEST_F(SafetensorsCorruption, BadShape) {
  const std::string bad = expected("gives tensor \"a\" a \"shape\" that is not a list of non-negative integers");
  EXPECT_EQ(openError(rawFile(R"({"a":{"dtype":"F32","shape":[-6],"data_offsets":[0,24]}})", m_data24)), bad);
  EXPECT_EQ(openError(rawFile(R"({"a":{"dtype":"F32","shape":[6.0],"data_offsets":[0,24]}})", m_data24)), bad);
  EXPECT_EQ(openError(rawFile(R"({"a":{"dtype":"F32","shape":6,"data_offsets":[0,24]}})", m_data24)), bad);
  EXPECT_EQ(openError(rawFile(R"({"a":{"dtype":"F32","data_offsets":[0,24]}})", m_data24)), bad);
  EXPECT_EQ(
      openError(rawFile(R"({"a":{"dtype":"F32","shape":[99999999999999999999],"data_offsets":[0,24]}})", m_data24)),
      bad);
  EXPECT_EQ(
      openError(rawFile(R"({"a":{"dtype":"F32","shape":[4611686018427387904,4],"data_offsets":[0,24]}})", m_data24)),
      expected("gives tensor \"a\" (F32, shape [4611686018427387904, 4]) more elements than memory can address"));
}

TEST_F(SafetensorsCorruption, BadOffsets) {
  const std::string notPair =
      expected("gives tensor \"a\" \"data_offsets\" that are not a pair of non-negative integers [begin, end]");
  for (const char* offsets : {"[0]", "[0,24,24]", "[-1,23]", "[\"0\",\"24\"]", "null", "[0,2.4e1]"}) {
    EXPECT_EQ(openError(rawFile(std::string(R"({"a":{"dtype":"F32","shape":[6],"data_offsets":)") + offsets + "}}",
                                m_data24)),
              notPair)
        << offsets;
  }
  EXPECT_EQ(openError(rawFile(R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[24,0]}})", m_data24)),
            expected("gives tensor \"a\" data_offsets [24, 0] that run backwards"));
}

TEST_F(SafetensorsCorruption, OffsetsOutOfRange) {
  EXPECT_EQ(openError(rawFile(R"({"a":{"dtype":"F32","shape":[100],"data_offsets":[0,400]}})", m_data24)),
            expected("gives tensor \"a\" data_offsets [0, 400] past the end of its 24-byte data buffer: the file is "
                     "truncated or the offsets are wrong"));
  EXPECT_EQ(openError(rawFile(R"({"a":{"dtype":"U8","shape":[0],"data_offsets":[25,25]}})", m_data24)),
            expected("gives tensor \"a\" data_offsets [25, 25] past the end of its 24-byte data buffer: the file is "
                     "truncated or the offsets are wrong"));
  EXPECT_NE(openError(rawFile(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[9223372036854775806,)"
                              R"(9223372036854775807]}})",
                              m_data24))
                .find("past the end of its 24-byte data buffer"),
            std::string::npos);
}

TEST_F(SafetensorsCorruption, TruncatedData) {
  const std::vector<float> values(6, 2.0f);
  writeSafetensors(m_path, {testing::viewOf("a", TensorDType::F32, {2, 3}, values)});
  std::filesystem::resize_file(m_path, std::filesystem::file_size(m_path) - 4);
  EXPECT_EQ(openErrorOf(m_path),
            expected("gives tensor \"a\" data_offsets [0, 24] past the end of its 20-byte data buffer: the file is "
                     "truncated or the offsets are wrong"));
}

TEST_F(SafetensorsCorruption, WrongByteCount) {
  EXPECT_EQ(openError(rawFile(R"({"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,20]}})", std::string(20, 'x'))),
            expected("gives tensor \"a\" (F32, shape [2, 3]) 20 bytes of data where it needs 24"));
  EXPECT_EQ(openError(rawFile(R"({"a":{"dtype":"I64","shape":[],"data_offsets":[0,24]}})", m_data24)),
            expected("gives tensor \"a\" (I64, shape []) 24 bytes of data where it needs 8"));
}

TEST_F(SafetensorsCorruption, Overlap) {
  EXPECT_EQ(openError(rawFile(R"({"a":{"dtype":"U8","shape":[16],"data_offsets":[0,16]},)"
                              R"("b":{"dtype":"U8","shape":[16],"data_offsets":[8,24]}})",
                              m_data24)),
            expected("gives tensors \"a\" [0, 16] and \"b\" [8, 24] overlapping data"));
  EXPECT_EQ(openError(rawFile(R"({"b":{"dtype":"U8","shape":[24],"data_offsets":[0,24]},)"
                              R"("a":{"dtype":"U8","shape":[24],"data_offsets":[0,24]}})",
                              m_data24)),
            expected("gives tensors \"a\" [0, 24] and \"b\" [0, 24] overlapping data"));
}

TEST_F(SafetensorsCorruption, DataNotFullyCovered) {
  EXPECT_EQ(openError(rawFile(R"({"a":{"dtype":"U8","shape":[8],"data_offsets":[0,8]},)"
                              R"("b":{"dtype":"U8","shape":[8],"data_offsets":[16,24]}})",
                              m_data24)),
            expected("leaves bytes [8, 16) of its data buffer outside every tensor"));
  EXPECT_EQ(openError(rawFile(R"({"a":{"dtype":"U8","shape":[8],"data_offsets":[0,8]}})", m_data24)),
            expected("leaves bytes [8, 24) of its data buffer outside every tensor"));
  EXPECT_EQ(openError(rawFile("{}", "x")), expected("leaves bytes [0, 1) of its data buffer outside every tensor"));
}

TEST_F(SafetensorsCorruption, OtherHeaderDefects) {
  EXPECT_EQ(openError(rawFile(R"({"a":{"dtype":"U8","shape":[8],"data_offsets":[0,8]},)"
                              R"("a":{"dtype":"U8","shape":[16],"data_offsets":[8,24]}})",
                              m_data24)),
            expected("names tensor \"a\" twice"));
  EXPECT_EQ(openError(rawFile(R"({"a":[1,2]})", "")),
            expected("gives tensor \"a\" an entry that is not a JSON object"));
  EXPECT_EQ(openError(rawFile(R"({"__metadata__":{"n":1}})", "")),
            expected("has a \"__metadata__\" entry that is not an object of strings"));
  EXPECT_EQ(openError(rawFile(R"({"__metadata__":"x"})", "")),
            expected("has a \"__metadata__\" entry that is not an object of strings"));
}

TEST_F(SafetensorsCorruption, FilesThatCannotBeOpened) {
  EXPECT_EQ(openErrorOf(m_dir.file("missing.safetensors")),
            "could not open safetensors file " + m_dir.file("missing.safetensors") + ": No such file or directory");
  const std::string folder = m_dir.file("folder.safetensors");
  std::filesystem::create_directory(folder);
  EXPECT_EQ(openErrorOf(folder), "safetensors file " + folder + " is not a regular file");
}

TEST_F(SafetensorsCorruption, RandomDamageNeverCrashes) {
  std::vector<float> values(40);
  std::vector<std::int64_t> ids = {1, 2, 3};
  std::vector<std::uint8_t> mask(5, 1);
  writeSafetensors(
      m_path,
      {testing::viewOf("layer.0.weight", TensorDType::F32, {5, 8}, values),
       testing::viewOf("ids", TensorDType::I64, {3}, ids), testing::viewOf("mask", TensorDType::U8, {5}, mask)},
      {{"format", "pt"}});
  const std::string original = testing::readBytes(m_path);
  std::uint64_t headerSize = 0;
  std::memcpy(&headerSize, original.data(), sizeof headerSize);
  std::mt19937 random(2024);
  int opened = 0;
  for (int i = 0; i < 1500; ++i) {
    std::string bytes = original;
    const int edits = 1 + static_cast<int>(random() % 3);
    for (int k = 0; k < edits && !bytes.empty(); ++k) {
      const std::size_t headerEnd = std::min<std::size_t>(bytes.size(), 8 + headerSize);  // mostly the header
      const std::size_t at = random() % std::max<std::size_t>(1, random() % 4 == 0 ? bytes.size() : headerEnd);
      switch (random() % 3) {
        case 0:
          bytes[at % bytes.size()] = static_cast<char>(random());
          break;
        case 1:
          bytes[at % bytes.size()] = "0123456789[]{},:\"-"[random() % 18];
          break;
        default:
          bytes.resize(at);
          break;
      }
    }
    testing::writeBytes(m_path, bytes);
    try {
      const SafetensorsFile file = SafetensorsFile::open(m_path);
      for (const TensorView& t : file.tensors()) {
        // Every view lies inside the file: touch its first and last byte.
        if (t.byteSize > 0) {
          volatile char first = static_cast<const char*>(t.data)[0];
          volatile char last = static_cast<const char*>(t.data)[t.byteSize - 1];
          (void)first;
          (void)last;
        }
      }
      ++opened;
    } catch (const SafetensorsError& e) {
      ASSERT_NE(std::string(e.what()).find(m_path), std::string::npos) << e.what();
    }
  }
  EXPECT_GT(opened, 0);  // damage inside the data or a still-valid digit leaves a valid file
}

}  // namespace
}  // namespace traindeck
