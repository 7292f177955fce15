// LineSplitter: lines come out whole however the bytes are cut into chunks; a partial line waits;
// a line over the limit comes out once, cut and marked, and the rest of it is skipped.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "runlog/line_splitter.h"

namespace traindeck {
namespace {

using Lines = std::vector<std::pair<std::string, bool>>;

Lines feedAll(LineSplitter& splitter, const std::vector<std::string>& chunks) {
  Lines out;
  for (const std::string& chunk : chunks)
    splitter.feed(chunk, [&](std::string_view line, bool cut) { out.emplace_back(std::string(line), cut); });
  return out;
}

TEST(LineSplitter, TheSameLinesWhereverTheChunksAreCut) {
  const std::string text = "alpha\nbeta\n\ngamma delta\nepsilon\n";
  for (std::size_t cut = 0; cut <= text.size(); ++cut) {
    LineSplitter splitter(100);
    const Lines lines = feedAll(splitter, {text.substr(0, cut), text.substr(cut)});
    EXPECT_EQ(lines,
              (Lines{{"alpha", false}, {"beta", false}, {"", false}, {"gamma delta", false}, {"epsilon", false}}))
        << "cut at " << cut;
    EXPECT_EQ(splitter.pendingBytes(), 0u);
  }
}

TEST(LineSplitter, APartialLineWaitsForItsNewline) {
  LineSplitter splitter(100);
  EXPECT_EQ(feedAll(splitter, {"one\ntw"}), (Lines{{"one", false}}));
  EXPECT_EQ(splitter.pendingBytes(), 2u);
  EXPECT_EQ(feedAll(splitter, {"o\nthr"}), (Lines{{"two", false}}));
  EXPECT_EQ(splitter.takePartial(), "thr");
  EXPECT_EQ(splitter.pendingBytes(), 0u);
}

TEST(LineSplitter, AnOverlongLineComesOutOnceCutAndItsRestIsSkipped) {
  LineSplitter inOneChunk(4);
  EXPECT_EQ(feedAll(inOneChunk, {"abcdefgh\nok\n"}), (Lines{{"abcd", true}, {"ok", false}}));
  LineSplitter acrossChunks(4);
  EXPECT_EQ(feedAll(acrossChunks, {"ab", "cdef", "gh", "ij\nok\n"}), (Lines{{"abcd", true}, {"ok", false}}));
  LineSplitter exactlyTheLimit(4);
  EXPECT_EQ(feedAll(exactlyTheLimit, {"ab", "cd\n"}), (Lines{{"abcd", false}}));
}

TEST(LineSplitter, ResetForgetsTheHeldLine) {
  LineSplitter splitter(100);
  feedAll(splitter, {"half a li"});
  splitter.reset();
  EXPECT_EQ(feedAll(splitter, {"new\n"}), (Lines{{"new", false}}));
  LineSplitter skipping(2);
  feedAll(skipping, {"toolong"});
  skipping.reset();  // a restart ends the skipping too
  EXPECT_EQ(feedAll(skipping, {"ab\n"}), (Lines{{"ab", false}}));
}

}  // namespace
}  // namespace traindeck
