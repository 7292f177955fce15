// Loading GPT-2's two files. encoder.json must give ids 0..N-1, each once, and hold all 256 byte
// symbols and <|endoftext|>; vocab.bpe is a "#version" line, then one "left right" merge per
// line in rank order, where left, right and left+right are all in the vocabulary.
#include "trainer/tokenizer/gpt2_vocabulary.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "trainer/tokenizer/byte_symbols.h"
#include "trainer/tokenizer/token_id_json.h"
#include "trainer/tokenizer/tokenizer_error.h"
#include "trainer/tokenizer/utf8.h"

namespace traindeck {
namespace {

std::string readFile(const std::filesystem::path& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw TokenizerError("cannot open " + std::string(what) + " " + path.string());
  std::ostringstream contents;
  contents << in.rdbuf();
  if (in.bad()) throw TokenizerError("cannot read " + std::string(what) + " " + path.string());
  return std::move(contents).str();
}

using TokenIds = std::unordered_map<std::string_view, std::uint32_t>;  // symbol string -> id

// Checks that the ids are exactly 0..N-1 and every token is made of byte symbols; fills
// `bytesOfId` and returns the ids by token (views into `entries`).
TokenIds indexTokens(const std::vector<TokenIdEntry>& entries, std::string_view vocabJson, const std::string& vocabName,
                     std::vector<std::string>& bytesOfId) {
  if (entries.empty()) throw TokenizerError("cannot read " + vocabName + ": the vocabulary is empty");
  bytesOfId.assign(entries.size(), {});
  std::vector<bool> taken(entries.size(), false);
  TokenIds ids;
  ids.reserve(entries.size());
  for (const TokenIdEntry& e : entries) {
    const auto fail = [&](const std::string& what) {
      throw TokenizerError("cannot read " + vocabName + ": " + describeOffset(vocabJson, e.offset) + ": " + what);
    };
    if (e.id >= entries.size())
      fail("token id " + std::to_string(e.id) + " is out of range: " + std::to_string(entries.size()) +
           " tokens need ids 0 to " + std::to_string(entries.size() - 1));
    if (taken[e.id]) fail("token id " + std::to_string(e.id) + " is given to two tokens");
    taken[e.id] = true;
    auto bytes = symbolsToBytes(e.token);
    if (!bytes) fail("the token holds a character that is not one of GPT-2's byte symbols");
    bytesOfId[e.id] = std::move(*bytes);
    ids.emplace(e.token, e.id);
  }
  return ids;
}

std::uint32_t requireToken(const TokenIds& ids, const std::string& token, const std::string& vocabName,
                           const std::string& what) {
  const auto it = ids.find(token);
  if (it == ids.end()) throw TokenizerError("cannot read " + vocabName + ": the vocabulary has no " + what);
  return it->second;
}

// Line 1 is the "#version" header; then one merge per line, ranked in file order, so a merge's
// line is its rank + 2. Blank lines at the end are allowed, nowhere else.
BpeMerges readMerges(std::string_view text, const std::string& mergesName, const TokenIds& ids) {
  const auto fail = [&](std::size_t line, const std::string& what) {
    throw TokenizerError("cannot read " + mergesName + ": line " + std::to_string(line) + ": " + what);
  };
  if (text.empty()) throw TokenizerError("cannot read " + mergesName + ": the file is empty");
  BpeMerges merges;
  std::size_t lineNumber = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    const std::size_t eol = std::min(text.find('\n', pos), text.size());
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++lineNumber;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (lineNumber == 1) {
      if (!line.starts_with("#version")) fail(1, "expected the \"#version\" header of a GPT-2 merges file");
      continue;
    }
    if (line.empty() && text.find_first_not_of("\r\n", pos) == std::string_view::npos) break;
    const std::size_t space = line.find(' ');
    if (space == std::string_view::npos || space == 0 || space + 1 == line.size() ||
        line.find(' ', space + 1) != std::string_view::npos)
      fail(lineNumber, "expected two symbols separated by one space");
    const std::string_view left = line.substr(0, space), right = line.substr(space + 1);
    const std::string joined = std::string(left) + std::string(right);
    const auto leftId = ids.find(left), rightId = ids.find(right), mergedId = ids.find(joined);
    if (leftId == ids.end() || rightId == ids.end()) {
      const std::string_view unknown = leftId == ids.end() ? left : right;
      fail(lineNumber, "the merge names \"" + std::string(unknown) + "\", which is not in the vocabulary");
    }
    if (mergedId == ids.end()) fail(lineNumber, "the merge makes \"" + joined + "\", which is not in the vocabulary");
    if (const auto rank = merges.rankOf(leftId->second, rightId->second))
      fail(lineNumber, "the merge repeats the one on line " + std::to_string(*rank + 2));
    merges.add(leftId->second, rightId->second, mergedId->second);
  }
  return merges;
}

}  // namespace

Gpt2Vocabulary Gpt2Vocabulary::load(const std::filesystem::path& vocabFile, const std::filesystem::path& mergesFile) {
  return parse(readFile(vocabFile, "the GPT-2 vocabulary"), vocabFile.string(),
               readFile(mergesFile, "the GPT-2 merges"), mergesFile.string());
}

Gpt2Vocabulary Gpt2Vocabulary::parse(std::string_view vocabJson, const std::string& vocabName,
                                     std::string_view mergesText, const std::string& mergesName) {
  const std::vector<TokenIdEntry> entries = parseTokenIdJson(vocabJson, vocabName);
  std::vector<std::string> bytesOfId;
  const TokenIds ids = indexTokens(entries, vocabJson, vocabName, bytesOfId);

  Gpt2Vocabulary v;
  v.m_offsets.reserve(bytesOfId.size() + 1);
  for (const std::string& bytes : bytesOfId) {
    v.m_offsets.push_back(static_cast<std::uint32_t>(v.m_bytes.size()));
    v.m_bytes += bytes;
  }
  v.m_offsets.push_back(static_cast<std::uint32_t>(v.m_bytes.size()));
  for (unsigned b = 0; b < 256; ++b) {
    std::string symbol;
    appendUtf8(symbol, byteSymbol(static_cast<std::uint8_t>(b)));
    v.m_byteIds[b] =
        requireToken(ids, symbol, vocabName, "token for byte " + std::to_string(b) + " (\"" + symbol + "\")");
  }
  v.m_endOfText = requireToken(ids, std::string(kEndOfTextToken), vocabName, std::string(kEndOfTextToken));
  v.m_merges = readMerges(mergesText, mergesName, ids);
  return v;
}

}  // namespace traindeck
