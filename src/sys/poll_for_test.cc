#include "sys/poll_for.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <vector>

#include "sys/unique_fd.h"

namespace adaexplore {
namespace {

TEST(PollForTest, SaysWhichDescriptorIsReadyAndTimesOutWithoutOne) {
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);
  const UniqueFd read_end(ends[0]);
  const UniqueFd write_end(ends[1]);
  std::vector<pollfd> fds = {{.fd = read_end.get(), .events = POLLIN, .revents = 0}};
  Result<int> ready = PollFor(fds, Seconds(0.01), nullptr);
  ASSERT_TRUE(ready.ok());
  EXPECT_EQ(*ready, 0);  // Timed out: nothing written.
  ASSERT_EQ(::write(write_end.get(), "x", 1), 1);
  ready = PollFor(fds, Seconds(-1), nullptr);  // A negative wait polls without blocking.
  ASSERT_TRUE(ready.ok());
  EXPECT_EQ(*ready, 1);
  EXPECT_TRUE((fds[0].revents & POLLIN) != 0);
}

// More descriptors than the process may open: ppoll fails with EINVAL, which the loop must see
// (a loop that ignored it would spin without ever waiting).
TEST(PollForTest, AFailingPollIsAnErrorNotAnEmptyWait) {
  rlimit limit{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &limit), 0);
  std::vector<pollfd> fds(static_cast<size_t>(limit.rlim_cur) + 1,
                          pollfd{.fd = -1, .events = 0, .revents = 0});
  const Result<int> ready = PollFor(fds, Seconds(0.01), nullptr);
  ASSERT_FALSE(ready.ok());
  EXPECT_NE(ready.status().message().find("ppoll over"), std::string::npos)
      << ready.status().message();
}

}  // namespace
}  // namespace adaexplore
