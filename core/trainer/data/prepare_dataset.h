// prepareDataset: text files to a dataset directory (dataset.json + train/val token shards),
// the work behind `traindeck-train prepare`. Streams with bounded memory whatever the corpus
// size, and tokenizes on several threads while writing in input order, so the output depends
// only on the inputs and options, never on timing.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "trainer/data/dataset_manifest.h"
#include "trainer/data/document_reader.h"
#include "trainer/tokenizer/tokenizer.h"

namespace traindeck {

// Makes one tokenizer per worker thread (a Tokenizer must not encode on two threads at once).
using TokenizerFactory = std::function<std::unique_ptr<Tokenizer>()>;

struct PrepareOptions {
  std::vector<std::filesystem::path> inputs;  // read as bytes, in this order
  TokenizerFactory tokenizer;
  std::filesystem::path outDir;  // created; may hold an earlier prepare's output, which is replaced
  double valFraction = 0.005;    // in [0, 1); see split_rule.h
  std::uint64_t shardTokens = 100'000'000;
  // A line holding only this ends a document ("%" for fortune files); none: one file, one document.
  std::optional<std::string> documentSeparator;
  std::size_t chunkBytes = DocumentReader::kDefaultChunkBytes;  // long documents are cut to this
  int workers = 2;  // tokenizing threads; a reader thread and the calling thread (the writer) add to these
};

struct PrepareProgress {
  std::uint64_t bytesDone = 0;   // input bytes tokenized and written
  std::uint64_t bytesTotal = 0;  // the input files' sizes added up
  std::uint64_t tokensDone = 0;
  double elapsedSeconds = 0;
};

// Called on the calling thread after each written chunk (about chunkBytes of input); throwing
// from it stops the work and the exception comes out of prepareDataset.
using PrepareProgressCallback = std::function<void(const PrepareProgress&)>;

struct PrepareResult {
  DatasetManifest manifest;  // as written to dataset.json
  std::uint64_t bytes = 0;
  double seconds = 0;
  double bytesPerSecond() const { return seconds > 0 ? static_cast<double>(bytes) / seconds : 0; }
  double tokensPerSecond() const {
    return seconds > 0 ? static_cast<double>(manifest.train.tokens + manifest.val.tokens) / seconds : 0;
  }
};

// Throws DataError (bad options, unreadable input, unwritable output, no text at all) or
// TokenizerError. Every document ends with the tokenizer's end-of-text id.
PrepareResult prepareDataset(const PrepareOptions& options, const PrepareProgressCallback& progress = {});

}  // namespace traindeck
