// Test helpers; see test_files.h.
#include "test_files.h"

#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "trainer/data/dataset_manifest.h"
#include "trainer/data/shard_reader.h"
#include "trainer/data/shard_writer.h"

namespace traindeck::test {

TempDir::TempDir() {
  static std::atomic<int> counter{0};
  m_path = std::filesystem::temp_directory_path() /
           ("traindeck-data-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  std::filesystem::remove_all(m_path);
  std::filesystem::create_directories(m_path);
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(m_path, ignored);
}

void writeFile(const std::filesystem::path& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

std::vector<std::uint32_t> splitTokens(const std::filesystem::path& dir, const std::string& split) {
  const DatasetManifest manifest = readManifest(dir);
  std::vector<std::uint32_t> ids;
  for (const ShardEntry& entry : (split == "val" ? manifest.val : manifest.train).shards) {
    const std::vector<std::uint32_t> shard = ShardReader(dir / entry.file).readAll();
    ids.insert(ids.end(), shard.begin(), shard.end());
  }
  return ids;
}

void writeShard(const std::filesystem::path& path, const std::vector<std::uint32_t>& ids, const ShardInfo& info) {
  ShardWriter writer(path, info);
  writer.append(ids);
  writer.finish();
}

std::uint64_t peakRssBytes() {
  struct rusage usage {};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;  // Linux reports kilobytes
}

}  // namespace traindeck::test
