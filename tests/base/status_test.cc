#include "base/status.h"

#include <gtest/gtest.h>

namespace lakedump {
namespace {

Result<int> Half(int x) {
  if (x % 2 != 0) return Status::InvalidArgument("odd");
  return x / 2;
}

Status Quarter(int x, int* out) {
  LD_ASSIGN_OR_RETURN(int h, Half(x));
  LD_ASSIGN_OR_RETURN(*out, Half(h));
  return Status::OK();
}

TEST(StatusTest, ContextPrefixesMessageAndKeepsCode) {
  Status s = Status::IOError("disk full").WithContext("main.orders");
  EXPECT_EQ(s.code(), Code::kIOError);
  EXPECT_EQ(s.message(), "main.orders: disk full");
  EXPECT_TRUE(Status::OK().WithContext("x").ok());
  EXPECT_TRUE(Status::Unavailable("503").retryable());
}

TEST(StatusTest, MacrosPropagateFirstError) {
  int out = 0;
  EXPECT_TRUE(Quarter(8, &out).ok());
  EXPECT_EQ(out, 2);
  Status s = Quarter(6, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace lakedump
