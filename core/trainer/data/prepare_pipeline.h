// The threads of prepareDataset: one reader cuts the inputs into chunks of documents, `workers`
// threads tokenize chunks (each with its own Tokenizer), and the calling thread writes results
// strictly in chunk order. At most `maxInFlight` chunks exist at once (queued, being tokenized,
// or waiting for their turn), which is what bounds memory. One mutex guards all shared state.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "trainer/data/prepare_dataset.h"
#include "trainer/data/split_writer.h"

namespace traindeck {

class PreparePipeline {
 public:
  struct Totals {
    std::uint64_t bytes = 0;
    std::uint64_t tokens = 0;
  };

  PreparePipeline(const PrepareOptions& options, std::vector<std::unique_ptr<Tokenizer>> tokenizers);

  // Runs everything to the end; throws the first error of any thread after all have stopped.
  Totals run(SplitWriter& train, SplitWriter& val, std::uint64_t bytesTotal, const PrepareProgressCallback& progress);

 private:
  struct Segment {
    std::size_t offset = 0;
    std::size_t length = 0;
    bool endsDocument = false;
    bool validation = false;
  };
  struct Chunk {
    std::uint64_t sequence = 0;
    std::string text;
    std::vector<Segment> segments;
    std::uint64_t inputBytes = 0;
  };
  struct Tokens {
    std::vector<std::uint32_t> train;
    std::vector<std::uint32_t> val;
    std::uint64_t trainDocuments = 0;
    std::uint64_t valDocuments = 0;
    std::uint64_t inputBytes = 0;
  };

  void readInputs();                    // the reader thread
  void tokenize(Tokenizer& tokenizer);  // a worker thread
  bool submit(Chunk&& chunk);           // reader: waits for room; false once failed
  std::optional<Chunk> takeChunk();     // worker: nullopt when all is read or failed
  void deliver(std::uint64_t sequence, Tokens&& tokens);
  std::optional<Tokens> nextInOrder();  // writer: nullopt when all is written or failed
  void fail(std::exception_ptr error);
  // Buffers go round instead of back to malloc: no page faults for fresh memory on every chunk,
  // and no allocator holding on to freed blocks, which keeps the peak near the in-flight bound.
  template <class Buffer>
  Buffer takeSpare(std::vector<Buffer>& spares);
  template <class Buffer>
  void recycle(std::vector<Buffer>& spares, Buffer&& buffer);

  const PrepareOptions& m_options;
  std::vector<std::unique_ptr<Tokenizer>> m_tokenizers;
  std::size_t m_maxInFlight;

  std::mutex m_mutex;
  std::condition_variable m_changed;
  std::deque<Chunk> m_queued;
  std::map<std::uint64_t, Tokens> m_finished;
  std::uint64_t m_submitted = 0;  // chunks handed to the queue
  std::uint64_t m_written = 0;    // chunks the writer has taken
  bool m_readingDone = false;
  std::exception_ptr m_error;
  std::vector<std::string> m_spareTexts;
  std::vector<Tokens> m_spareTokens;
};

}  // namespace traindeck
