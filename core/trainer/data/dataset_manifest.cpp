// dataset.json, written with JsonWriter and read with JsonValue (core/runlog).
#include "trainer/data/dataset_manifest.h"

#include <fstream>
#include <sstream>

#include "runlog/atomic_file.h"
#include "runlog/json_value.h"
#include "runlog/json_writer.h"
#include "trainer/data/data_error.h"

namespace traindeck {
namespace {

constexpr const char* kFormatName = "traindeck-dataset";

void writeSplit(JsonWriter& json, const SplitManifest& split) {
  json.beginObject();
  json.field("tokens", static_cast<std::int64_t>(split.tokens));
  json.field("documents", static_cast<std::int64_t>(split.documents));
  json.key("shards").beginArray();
  for (const ShardEntry& shard : split.shards) {
    json.beginObject();
    json.field("file", std::string_view(shard.file));
    json.field("tokens", static_cast<std::int64_t>(shard.tokens));
    json.endObject();
  }
  json.endArray();
  json.endObject();
}

// Reads fields of one manifest, throwing a DataError that names the file and the field.
class ManifestFields {
 public:
  explicit ManifestFields(const std::string& source) : m_source(source) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw DataError(m_source + " is not a valid dataset manifest (" + what +
                    "); re-run traindeck-train prepare to write the dataset again");
  }
  const JsonValue& member(const JsonValue& object, std::string_view key) const {
    const JsonValue* value = object.find(key);
    if (!value) fail("no \"" + std::string(key) + "\"");
    return *value;
  }
  std::uint64_t count(const JsonValue& object, std::string_view key, std::uint64_t max = UINT64_MAX) const {
    const JsonValue& value = member(object, key);
    if (!value.isInteger() || value.integerOr(-1) < 0 || static_cast<std::uint64_t>(value.integerOr(0)) > max)
      fail("\"" + std::string(key) + "\" is not a count");
    return static_cast<std::uint64_t>(value.integerOr(0));
  }
  std::string text(const JsonValue& object, std::string_view key) const {
    const JsonValue& value = member(object, key);
    if (!value.isString()) fail("\"" + std::string(key) + "\" is not a string");
    return value.text();
  }
  SplitManifest split(const JsonValue& object, std::string_view key) const {
    const JsonValue& value = member(object, key);
    if (!value.isObject()) fail("\"" + std::string(key) + "\" is not an object");
    SplitManifest split;
    split.tokens = count(value, "tokens");
    split.documents = count(value, "documents");
    const JsonValue& shards = member(value, "shards");
    if (!shards.isArray()) fail("\"shards\" is not a list");
    std::uint64_t sum = 0;
    for (const JsonValue& item : shards.items()) {
      ShardEntry entry{text(item, "file"), count(item, "tokens")};
      if (entry.file.empty() || entry.file.find('/') != std::string::npos || entry.file == "." || entry.file == "..")
        fail("shard \"" + entry.file + "\" is not a file name");
      sum += entry.tokens;
      split.shards.push_back(std::move(entry));
    }
    if (sum != split.tokens) fail("the " + std::string(key) + " shards do not add up to its token count");
    return split;
  }

 private:
  std::string m_source;
};

}  // namespace

std::string manifestToJson(const DatasetManifest& manifest) {
  JsonWriter json;
  json.beginObject();
  json.field("format", kFormatName);
  json.field("version", manifest.version);
  json.field("tokenizer", std::string_view(manifest.tokenizer));
  json.field("vocab_size", static_cast<std::int64_t>(manifest.vocabSize));
  json.field("end_of_text", static_cast<std::int64_t>(manifest.endOfText));
  json.field("token_width", static_cast<std::int64_t>(manifest.tokenWidth));
  json.field("shard_tokens", static_cast<std::int64_t>(manifest.shardTokens));
  json.field("val_fraction", manifest.valFraction);
  json.key("doc_separator");
  if (manifest.documentSeparator)
    json.value(std::string_view(*manifest.documentSeparator));
  else
    json.null();
  json.key("train");
  writeSplit(json, manifest.train);
  json.key("val");
  writeSplit(json, manifest.val);
  json.endObject();
  return json.str() + "\n";
}

DatasetManifest manifestFromJson(std::string_view text, const std::string& source) {
  const ManifestFields fields(source);
  const JsonParseResult parsed = parseJson(text);
  if (!parsed.ok()) fields.fail(parsed.error);
  const JsonValue& root = parsed.value;
  if (!root.isObject()) fields.fail("not a JSON object");
  if (root.stringOr("format", "") != kFormatName) fields.fail("\"format\" is not \"" + std::string(kFormatName) + "\"");
  DatasetManifest manifest;
  manifest.version = root.integerOr("version", -1);
  if (manifest.version != kManifestVersion)
    throw DataError(source + " has dataset version " + std::to_string(manifest.version) +
                    ", which this traindeck-train does not read (it reads version " + std::to_string(kManifestVersion) +
                    "); re-run traindeck-train prepare with this version");
  manifest.tokenizer = fields.text(root, "tokenizer");
  manifest.vocabSize = static_cast<std::uint32_t>(fields.count(root, "vocab_size", UINT32_MAX));
  manifest.endOfText = static_cast<std::uint32_t>(fields.count(root, "end_of_text", UINT32_MAX));
  manifest.tokenWidth = static_cast<std::uint32_t>(fields.count(root, "token_width", 4));
  manifest.shardTokens = fields.count(root, "shard_tokens");
  manifest.valFraction = root.numberOr("val_fraction", 0);
  if (const JsonValue* separator = root.find("doc_separator"); separator && separator->isString())
    manifest.documentSeparator = separator->text();
  manifest.train = fields.split(root, "train");
  manifest.val = fields.split(root, "val");
  return manifest;
}

void writeManifest(const std::filesystem::path& dir, const DatasetManifest& manifest) {
  const std::filesystem::path path = dir / kManifestFileName;
  const std::string error = writeFileAtomically(path.string(), manifestToJson(manifest));
  if (!error.empty()) throw DataError(error + "; check the folder's permissions and free space");
}

DatasetManifest readManifest(const std::filesystem::path& dir) {
  const std::filesystem::path path = dir / kManifestFileName;
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw DataError(dir.string() + " has no " + kManifestFileName +
                    ", so it is not a finished dataset; run traindeck-train prepare --out " + dir.string());
  std::ostringstream text;
  text << in.rdbuf();
  return manifestFromJson(text.str(), path.string());
}

}  // namespace traindeck
