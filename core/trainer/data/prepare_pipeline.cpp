// PreparePipeline: a bounded reader -> workers -> in-order writer pipeline on std::thread.
#include "trainer/data/prepare_pipeline.h"

#include <chrono>
#include <thread>
#include <type_traits>

#include "trainer/data/document_reader.h"
#include "trainer/data/split_rule.h"

namespace traindeck {

PreparePipeline::PreparePipeline(const PrepareOptions& options, std::vector<std::unique_ptr<Tokenizer>> tokenizers)
    : m_options(options), m_tokenizers(std::move(tokenizers)), m_maxInFlight(m_tokenizers.size() + 2) {}

PreparePipeline::Totals PreparePipeline::run(SplitWriter& train, SplitWriter& val, std::uint64_t bytesTotal,
                                             const PrepareProgressCallback& progress) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  Totals totals;
  try {
    threads.emplace_back([this] { readInputs(); });
    for (auto& tokenizer : m_tokenizers) threads.emplace_back([this, &tokenizer] { tokenize(*tokenizer); });
    while (std::optional<Tokens> tokens = nextInOrder()) {
      train.append(tokens->train);
      val.append(tokens->val);
      for (std::uint64_t i = 0; i < tokens->trainDocuments; ++i) train.countDocument();
      for (std::uint64_t i = 0; i < tokens->valDocuments; ++i) val.countDocument();
      totals.bytes += tokens->inputBytes;
      totals.tokens += tokens->train.size() + tokens->val.size();
      recycle(m_spareTokens, std::move(*tokens));
      if (progress) {
        const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
        progress({totals.bytes, bytesTotal, totals.tokens, elapsed.count()});
      }
    }
  } catch (...) {
    fail(std::current_exception());
  }
  for (std::thread& thread : threads) thread.join();
  if (m_error) std::rethrow_exception(m_error);
  return totals;
}

void PreparePipeline::readInputs() {
  try {
    std::uint64_t documentIndex = 0;
    Chunk chunk;
    std::string piece;
    bool endsDocument = false;
    for (const std::filesystem::path& input : m_options.inputs) {
      DocumentReader reader(input, m_options.documentSeparator, m_options.chunkBytes);
      std::uint64_t accounted = 0;
      while (reader.next(piece, endsDocument)) {
        const bool validation = isValidationDocument(documentIndex, m_options.valFraction);
        chunk.segments.push_back({chunk.text.size(), piece.size(), endsDocument, validation});
        chunk.text += piece;
        if (endsDocument) ++documentIndex;
        chunk.inputBytes += reader.consumedBytes() - accounted;
        accounted = reader.consumedBytes();
        // A piece that does not end its document is about chunkBytes long, so this sends long
        // documents one piece per chunk and gathers short ones into chunks of about chunkBytes / 2.
        if (chunk.text.size() >= m_options.chunkBytes / 2) {
          if (!submit(std::move(chunk))) return;
          chunk = Chunk{};
          chunk.text = takeSpare(m_spareTexts);
        }
      }
      chunk.inputBytes += reader.consumedBytes() - accounted;  // separator lines after the last piece
    }
    if (!chunk.segments.empty() || chunk.inputBytes > 0) submit(std::move(chunk));
    std::lock_guard lock(m_mutex);
    m_readingDone = true;
    m_changed.notify_all();
  } catch (...) {
    fail(std::current_exception());
  }
}

void PreparePipeline::tokenize(Tokenizer& tokenizer) {
  try {
    const std::uint32_t endOfText = tokenizer.endOfText();
    while (std::optional<Chunk> chunk = takeChunk()) {
      Tokens tokens = takeSpare(m_spareTokens);
      tokens.inputBytes = chunk->inputBytes;
      // A token covers at least one byte, so this is enough, and vectors never double past it.
      std::size_t valBytes = 0;
      for (const Segment& segment : chunk->segments) valBytes += segment.validation ? segment.length + 1 : 0;
      tokens.train.reserve(chunk->text.size() + chunk->segments.size() - valBytes);
      tokens.val.reserve(valBytes);
      for (const Segment& segment : chunk->segments) {
        std::vector<std::uint32_t>& ids = segment.validation ? tokens.val : tokens.train;
        tokenizer.encodeInto(std::string_view(chunk->text).substr(segment.offset, segment.length), ids);
        if (segment.endsDocument) {
          ids.push_back(endOfText);
          ++(segment.validation ? tokens.valDocuments : tokens.trainDocuments);
        }
      }
      recycle(m_spareTexts, std::move(chunk->text));
      deliver(chunk->sequence, std::move(tokens));
    }
  } catch (...) {
    fail(std::current_exception());
  }
}

bool PreparePipeline::submit(Chunk&& chunk) {
  std::unique_lock lock(m_mutex);
  m_changed.wait(lock, [this] { return m_error || m_submitted - m_written < m_maxInFlight; });
  if (m_error) return false;
  chunk.sequence = m_submitted++;
  m_queued.push_back(std::move(chunk));
  m_changed.notify_all();
  return true;
}

std::optional<PreparePipeline::Chunk> PreparePipeline::takeChunk() {
  std::unique_lock lock(m_mutex);
  m_changed.wait(lock, [this] { return m_error || !m_queued.empty() || m_readingDone; });
  if (m_error || m_queued.empty()) return std::nullopt;
  Chunk chunk = std::move(m_queued.front());
  m_queued.pop_front();
  return chunk;
}

void PreparePipeline::deliver(std::uint64_t sequence, Tokens&& tokens) {
  std::lock_guard lock(m_mutex);
  m_finished.emplace(sequence, std::move(tokens));
  m_changed.notify_all();
}

std::optional<PreparePipeline::Tokens> PreparePipeline::nextInOrder() {
  std::unique_lock lock(m_mutex);
  m_changed.wait(lock, [this] {
    return m_error || m_finished.count(m_written) > 0 || (m_readingDone && m_written == m_submitted);
  });
  if (m_error) return std::nullopt;
  const auto found = m_finished.find(m_written);
  if (found == m_finished.end()) return std::nullopt;  // everything read has been written
  Tokens tokens = std::move(found->second);
  m_finished.erase(found);
  ++m_written;
  m_changed.notify_all();
  return tokens;
}

template <class Buffer>
Buffer PreparePipeline::takeSpare(std::vector<Buffer>& spares) {
  std::lock_guard lock(m_mutex);
  if (spares.empty()) return Buffer{};
  Buffer buffer = std::move(spares.back());
  spares.pop_back();
  return buffer;
}

template <class Buffer>
void PreparePipeline::recycle(std::vector<Buffer>& spares, Buffer&& buffer) {
  if constexpr (std::is_same_v<Buffer, Tokens>) {
    buffer.train.clear();
    buffer.val.clear();
    buffer.trainDocuments = buffer.valDocuments = buffer.inputBytes = 0;
  } else {
    buffer.clear();
  }
  std::lock_guard lock(m_mutex);
  if (spares.size() <= m_maxInFlight) spares.push_back(std::move(buffer));
}

void PreparePipeline::fail(std::exception_ptr error) {
  std::lock_guard lock(m_mutex);
  if (!m_error) m_error = std::move(error);
  m_changed.notify_all();
}

}  // namespace traindeck
