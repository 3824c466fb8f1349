#include "core/status.h"

#include <gtest/gtest.h>

#include "core/result.h"

namespace adaexplore {
namespace {

Result<int> Half(int x) {
  if (x % 2 != 0) {
    return InvalidArgument("odd: " + std::to_string(x));
  }
  return x / 2;
}

Result<int> Quarter(int x) {
  ASSIGN_OR_RETURN(int half, Half(x));
  ASSIGN_OR_RETURN(int quarter, Half(half));
  return quarter;
}

Status Check(bool good) {
  RETURN_IF_ERROR(good ? Status::Ok() : IoError("disk"));
  return Status::Ok();
}

TEST(StatusTest, OkIsDefault) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.ToString(), "ok");
}

TEST(StatusTest, ContextIsPrependedToErrorsOnly) {
  EXPECT_EQ(IoError("disk full").WithContext("saving cache").ToString(),
            "I/O error: saving cache: disk full");
  EXPECT_TRUE(Status::Ok().WithContext("anything").ok());
}

TEST(ResultTest, PropagatesFirstError) {
  EXPECT_EQ(*Quarter(8), 2);
  Result<int> bad = Quarter(6);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message(), "odd: 3");
}

TEST(ResultTest, ReturnIfErrorReturnsTheError) {
  EXPECT_TRUE(Check(true).ok());
  EXPECT_EQ(Check(false).code(), StatusCode::kIoError);
}

TEST(ResultDeathTest, ValueOfErrorIsACheckFailure) {
  Result<int> bad = InternalError("x");
  EXPECT_DEATH((void)bad.value(), "CHECK failed");
}

}  // namespace
}  // namespace adaexplore
