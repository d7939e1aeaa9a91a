// SplitFixedCost (support/run/cost_parts.h): the measured parts plus "other".
#include "support/run/cost_parts.h"

#include <gtest/gtest.h>

namespace fvbench {
namespace {

TEST(CostParts, OtherIsWhatTheMeasuredPartsLeaveOfTheFixedCost) {
  CostParts measured{{"sut_start", 0.5}, {"quiet_wait", 0.25}};
  CostParts split = SplitFixedCost(1.0, measured);
  EXPECT_DOUBLE_EQ(split.at("sut_start"), 0.5);
  EXPECT_DOUBLE_EQ(split.at("quiet_wait"), 0.25);
  EXPECT_DOUBLE_EQ(split.at("other"), 0.25);
}

TEST(CostParts, OtherIsNeverNegativeAndThePartsStayAsMeasured) {
  CostParts split = SplitFixedCost(0.5, {{"engine", 0.75}});
  EXPECT_DOUBLE_EQ(split.at("engine"), 0.75);
  EXPECT_DOUBLE_EQ(split.at("other"), 0.0);
}

TEST(CostParts, AddCostSumsAPartAndIgnoresNegativeAmounts) {
  CostParts parts;
  AddCost(parts, "engine", 0.25);
  AddCost(parts, "engine", 0.5);
  AddCost(parts, "engine", -0.1);  // a command that returned before its configured duration
  EXPECT_DOUBLE_EQ(parts.at("engine"), 0.75);
}

}  // namespace
}  // namespace fvbench
