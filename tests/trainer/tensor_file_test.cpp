// Streamed tensor files: each tensor is produced when its turn in the file comes and released
// before the next (counted through the tensors' deleters), the file is byte for byte the one the
// whole-file writer writes, and a failed write still produces every tensor before it throws.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "trainer/train/checkpointer.h"

namespace traindeck {
namespace {

namespace fs = std::filesystem;

std::string bytesOf(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Tensors whose storage counts itself: `live` is how many exist, `mostLive` the most at once.
struct CountedTensors {
  int live = 0;
  int mostLive = 0;
  std::vector<std::string> producedNames;

  StreamedTensor make(const std::string& name, std::vector<std::int64_t> shape, float value) {
    return {name, torch::kFloat, shape, [this, name, shape, value] {
              producedNames.push_back(name);
              std::int64_t n = 1;
              for (const std::int64_t d : shape) n *= d;
              auto* data = new float[static_cast<std::size_t>(n)];
              std::fill(data, data + n, value);
              mostLive = std::max(mostLive, ++live);
              return torch::from_blob(
                  data, shape,
                  [this](void* p) {
                    delete[] static_cast<float*>(p);
                    --live;
                  },
                  torch::TensorOptions().dtype(torch::kFloat));
            }};
  }
};

class TensorFile : public ::testing::Test {
 protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("traindeck-tensor-file-" + std::to_string(::getpid()));
    fs::create_directories(m_dir);
  }
  void TearDown() override { fs::remove_all(m_dir); }
  fs::path m_dir;
};

TEST_F(TensorFile, StreamedWriteHoldsOneTensorAtATimeAndMatchesTheWholeFileWriter) {
  CountedTensors counted;
  StreamedTensors tensors = {counted.make("exp_avg/b", {64, 32}, 1.5f), counted.make("exp_avg/a", {128}, -2.0f),
                             counted.make("step", {}, 7.0f)};
  tensors.push_back(streamedAtHand("rng/cpu", torch::arange(16, torch::kByte)));
  writeStreamedTensorFile((m_dir / "streamed.safetensors").string(), tensors);
  EXPECT_EQ(counted.mostLive, 1);
  EXPECT_EQ(counted.live, 0);
  // Produced in file order: the largest dtype first, then by name.
  EXPECT_EQ(counted.producedNames, (std::vector<std::string>{"exp_avg/a", "exp_avg/b", "step"}));

  writeTensorFile((m_dir / "whole.safetensors").string(), {{"exp_avg/b", torch::full({64, 32}, 1.5f)},
                                                           {"exp_avg/a", torch::full({128}, -2.0f)},
                                                           {"step", torch::full({}, 7.0f)},
                                                           {"rng/cpu", torch::arange(16, torch::kByte)}});
  EXPECT_EQ(bytesOf(m_dir / "streamed.safetensors"), bytesOf(m_dir / "whole.safetensors"));
  const auto read = readTensorFile((m_dir / "streamed.safetensors").string());
  EXPECT_TRUE(torch::equal(read.at("exp_avg/b"), torch::full({64, 32}, 1.5f)));
}

TEST_F(TensorFile, ProducedTensorsHaveTheAnnouncedShapeAndAFailedWriteStillProducesEveryTensor) {
  CountedTensors counted;
  StreamedTensors tensors = {counted.make("a", {4}, 1.0f), counted.make("b", {2, 2}, 1.0f)};
  tensors[0].shape = {5};  // announced one way, produced another
  const fs::path file = m_dir / "misshapen.safetensors";
  EXPECT_THROW(writeStreamedTensorFile(file.string(), tensors), CheckpointError);
  EXPECT_EQ(counted.producedNames.size(), 2u);
  EXPECT_FALSE(fs::exists(file));

  counted.producedNames.clear();
  tensors[0].shape = {4};
  const fs::path nowhere = m_dir / "no" / "such" / "folder.safetensors";
  EXPECT_THROW(writeStreamedTensorFile(nowhere.string(), tensors), CheckpointError);
  EXPECT_EQ(counted.producedNames.size(), 2u);  // other ranks may be waiting in each one's collective
  EXPECT_EQ(counted.live, 0);
}

TEST_F(TensorFile, CheckpointSaveStreamsAndLoadsBack) {
  CountedTensors counted;
  CheckpointContents contents;
  contents.model = {counted.make("wte.weight", {32, 8}, 0.25f), counted.make("ln_f.bias", {8}, 0.5f)};
  contents.optimizer = {counted.make("exp_avg/wte.weight", {32, 8}, 1.0f), counted.make("step", {}, 3.0f)};
  contents.stateJson = R"({"step": 3})";
  const std::string folder = Checkpointer((m_dir / "checkpoints").string(), 2).save(3, contents);
  EXPECT_EQ(counted.mostLive, 1);
  const LoadedCheckpoint loaded = Checkpointer::load(folder);
  EXPECT_TRUE(torch::equal(loaded.model.at("ln_f.bias"), torch::full({8}, 0.5f)));
  EXPECT_TRUE(torch::equal(loaded.optimizer.at("step"), torch::full({}, 3.0f)));
  EXPECT_EQ(loaded.state.integerOr("step", 0), 3);

  counted.producedNames.clear();
  Checkpointer::produceWithoutWriting(contents);  // what the other ranks do, in the same order
  EXPECT_EQ(counted.producedNames, (std::vector<std::string>{"ln_f.bias", "wte.weight", "exp_avg/wte.weight", "step"}));
}

}  // namespace
}  // namespace traindeck
