// ~ and ${VAR} expansion, the TRAINDECK_DATA default, and relative paths.
#include <gtest/gtest.h>

#include <map>

#include "config/path_expand.h"

namespace traindeck {
namespace {

EnvLookup fakeEnv(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    if (auto it = vars.find(name); it != vars.end()) return it->second;
    return std::nullopt;
  };
}

TEST(PathExpand, HomeAndVariables) {
  const EnvLookup env = fakeEnv({{"HOME", "/home/ada"}, {"CORPUS", "/data/c"}});
  EXPECT_EQ(expandPath("~/x", "/base", env).path, "/home/ada/x");
  EXPECT_EQ(expandPath("${CORPUS}/train", "/base", env).path, "/data/c/train");
  EXPECT_EQ(expandPath("rel/dir", "/base", env).path, "/base/rel/dir");
  EXPECT_EQ(expandPath("/abs/../y", "/base", env).path, "/y");
  EXPECT_EQ(expandPath("a~b", "/base", env).path, "/base/a~b");  // ~ only at the start
}

TEST(PathExpand, TraindeckDataDefaultsToXdgDataHome) {
  EXPECT_EQ(expandPath("${TRAINDECK_DATA}/demo", "/", fakeEnv({{"HOME", "/h"}})).path, "/h/.local/share/traindeck/demo");
  EXPECT_EQ(expandPath("${TRAINDECK_DATA}/demo", "/", fakeEnv({{"XDG_DATA_HOME", "/x"}})).path, "/x/traindeck/demo");
  EXPECT_EQ(expandPath("${TRAINDECK_DATA}", "/", fakeEnv({{"TRAINDECK_DATA", "/t"}})).path, "/t");
}

TEST(PathExpand, ProblemsAreReported) {
  const EnvLookup env = fakeEnv({});
  EXPECT_EQ(expandPath("${NOPE}/x", "/", env).error, "uses ${NOPE}, which is not set");
  EXPECT_EQ(expandPath("${OPEN/x", "/", env).error, "has ${ without a closing }");
  EXPECT_EQ(expandPath("~/x", "/", env).error, "starts with ~, but HOME is not set");
  EXPECT_TRUE(isGlob("shards/*.bin"));
  EXPECT_FALSE(isGlob("shards/train.bin"));
}

}  // namespace
}  // namespace traindeck
