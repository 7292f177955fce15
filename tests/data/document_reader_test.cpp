// DocumentReader: separator lines, one document per file, and cutting long documents and long
// lines into bounded pieces without losing or adding a byte.
#include <gtest/gtest.h>

#include "test_files.h"
#include "trainer/data/document_reader.h"

namespace traindeck {
namespace {

using test::TempDir;

struct Piece {
  std::string text;
  bool endsDocument;
};

std::vector<Piece> piecesOf(const std::string& contents, std::optional<std::string> separator,
                            std::size_t chunk = DocumentReader::kDefaultChunkBytes) {
  TempDir dir;
  test::writeFile(dir / "in.txt", contents);
  DocumentReader reader(dir / "in.txt", std::move(separator), chunk);
  std::vector<Piece> pieces;
  Piece piece;
  while (reader.next(piece.text, piece.endsDocument)) pieces.push_back(piece);
  EXPECT_EQ(reader.consumedBytes(), contents.size());
  return pieces;
}

std::vector<std::string> documentsOf(const std::vector<Piece>& pieces) {
  std::vector<std::string> documents;
  std::string current;
  for (const Piece& piece : pieces) {
    current += piece.text;
    if (piece.endsDocument) documents.push_back(std::exchange(current, {}));
  }
  EXPECT_TRUE(current.empty()) << "the last piece must end its document";
  return documents;
}

TEST(DocumentReader, SeparatorLinesEndDocuments) {
  const auto docs = documentsOf(piecesOf("a\n%\nb\nc\n%\n%\n%x\n% \nd", "%"));
  EXPECT_EQ(docs, (std::vector<std::string>{"a\n", "b\nc\n", "%x\n% \nd"}));
}

TEST(DocumentReader, SeparatorWithCrLfAndAtTheEnd) {
  EXPECT_EQ(documentsOf(piecesOf("one\r\n%\r\ntwo\r\n%", "%")), (std::vector<std::string>{"one\r\n", "two\r\n"}));
  EXPECT_EQ(documentsOf(piecesOf("%\n%\n", "%")), std::vector<std::string>{});
}

TEST(DocumentReader, EmptyLineAsSeparator) {
  EXPECT_EQ(documentsOf(piecesOf("p1 l1\np1 l2\n\np2\n\n\np3", "")),
            (std::vector<std::string>{"p1 l1\np1 l2\n", "p2\n", "p3"}));
}

TEST(DocumentReader, WithoutSeparatorTheFileIsOneDocument) {
  EXPECT_EQ(documentsOf(piecesOf("a\n%\nb", std::nullopt)), std::vector<std::string>{"a\n%\nb"});
  EXPECT_TRUE(piecesOf("", std::nullopt).empty());
}

TEST(DocumentReader, LongDocumentsAreCutAfterNewlines) {
  std::string text;
  for (int i = 0; i < 2000; ++i) text += "line " + std::to_string(i) + " of a long document\n";
  const auto pieces = piecesOf(text + "%\nshort\n", "%", 1000);
  ASSERT_GT(pieces.size(), 20u);
  for (std::size_t i = 0; i + 2 < pieces.size(); ++i) {
    EXPECT_FALSE(pieces[i].endsDocument);
    EXPECT_EQ(pieces[i].text.back(), '\n');
    EXPECT_LE(pieces[i].text.size(), 2000u);
  }
  EXPECT_EQ(documentsOf(pieces), (std::vector<std::string>{text, "short\n"}));
}

TEST(DocumentReader, LongLinesAreCutAtCharacterBoundaries) {
  std::string line;
  while (line.size() < 3'500'000) line += "\xC3\xA9t\xE2\x82\xAC ";  // "ét€ ", 1 + 2 + 3 + 1 bytes
  const auto pieces = piecesOf(line, std::nullopt);
  ASSERT_GE(pieces.size(), 3u);
  for (const Piece& piece : pieces) {
    EXPECT_LE(piece.text.size(), DocumentReader::kDefaultChunkBytes);
    EXPECT_NE(static_cast<unsigned char>(piece.text.front()) & 0xC0, 0x80) << "a piece starts inside a character";
  }
  EXPECT_EQ(documentsOf(pieces), std::vector<std::string>{line});
}

TEST(DocumentReader, TheRestOfACutLineIsNeverASeparator) {
  // The reader reads 1 MiB blocks: the first ends with "x...x%", one byte more than a chunk, so
  // the line is cut before "%" and the rest of that line, "%", must not end the document.
  const std::size_t chunk = (1 << 20) - 1;
  const std::string xs(chunk, 'x');
  EXPECT_EQ(documentsOf(piecesOf(xs + "%\nnext\n%\nlast", "%", chunk)),
            (std::vector<std::string>{xs + "%\nnext\n", "last"}));
}

}  // namespace
}  // namespace traindeck
