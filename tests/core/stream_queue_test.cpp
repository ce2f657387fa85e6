// Stream order apart from timing: which kernels may start, and when.
#include <gtest/gtest.h>

#include "timing/gpu/stream_queue.h"

namespace ws::timing {
namespace {

TEST(StreamQueue, KernelsOfOneStreamRunInOrderOthersAtOnce) {
  StreamQueue q;
  auto a = q.add_kernel(5, true, 0);
  auto b = q.add_kernel(5, true, 0);
  auto c = q.add_kernel(6, true, 0);
  EXPECT_EQ(q.ready_work(), (std::vector<StreamQueue::Seq>{a, c}));
  q.start(a);
  q.start(c);
  EXPECT_TRUE(q.ready_work().empty());
  q.end(a, 100);
  EXPECT_EQ(q.ready_work(), (std::vector<StreamQueue::Seq>{b}));
  EXPECT_EQ(q.ready_at(b), 100u);  // when its predecessor ended
  EXPECT_FALSE(q.done(5));
  EXPECT_FALSE(q.done(6));
  q.end(c, 50);
  EXPECT_TRUE(q.done(6));
  q.start(b);
  q.end(b, 200);
  EXPECT_TRUE(q.done());
}

// The legacy default stream waits for earlier work on blocking streams, and
// later work on blocking streams waits for it; non-blocking streams skip both.
TEST(StreamQueue, LegacyStreamSynchronisesWithBlockingStreamsOnly) {
  StreamQueue q;
  auto on_blocking = q.add_kernel(2, true, 0);
  auto on_nonblocking = q.add_kernel(3, false, 0);
  auto legacy = q.add_kernel(kLegacyStream, true, 0);
  auto after_legacy = q.add_kernel(2, true, 0);
  auto free_runner = q.add_kernel(3, false, 0);
  EXPECT_EQ(q.ready_work(), (std::vector<StreamQueue::Seq>{on_blocking, on_nonblocking}));
  q.start(on_blocking);
  q.start(on_nonblocking);
  q.end(on_nonblocking, 10);
  EXPECT_EQ(q.ready_work(), (std::vector<StreamQueue::Seq>{free_runner}));
  q.start(free_runner);
  q.end(on_blocking, 20);
  EXPECT_EQ(q.ready_work(), (std::vector<StreamQueue::Seq>{legacy}));
  q.start(legacy);
  q.end(legacy, 30);
  EXPECT_EQ(q.ready_work(), (std::vector<StreamQueue::Seq>{after_legacy}));
}

TEST(StreamQueue, EventWaitOrdersAnotherStreamAfterTheRecord) {
  StreamQueue q;
  auto producer = q.add_kernel(2, true, 0);
  auto later_on_2 = q.add_kernel(2, true, 0);
  q.record_event(7, 4, true, 0);                   // on an idle stream: completes at once
  auto marker = q.record_event(9, 2, true, 0);     // after both kernels of stream 2
  q.wait_event(3, 9, true, 0);
  auto consumer = q.add_kernel(3, true, 0);
  auto ready = q.ready_work();
  EXPECT_EQ(ready, (std::vector<StreamQueue::Seq>{producer}));
  EXPECT_EQ(q.end_of(*q.event_marker(7)), std::optional<Cycle>(0));
  q.start(producer);
  q.end(producer, 40);
  EXPECT_EQ(q.ready_work(), (std::vector<StreamQueue::Seq>{later_on_2}));
  q.start(later_on_2);
  q.end(later_on_2, 90);
  EXPECT_EQ(q.ready_work(), (std::vector<StreamQueue::Seq>{consumer}));
  EXPECT_EQ(q.end_of(marker), std::optional<Cycle>(90));
  EXPECT_EQ(q.ready_at(consumer), 90u);
}

TEST(StreamQueue, WaitOnAnEventNeverRecordedIsANoOp) {
  StreamQueue q;
  q.wait_event(2, 1234, true, 0);
  auto k = q.add_kernel(2, true, 5);
  EXPECT_EQ(q.ready_work(), (std::vector<StreamQueue::Seq>{k}));
  EXPECT_EQ(q.ready_at(k), 5u);  // its call
  EXPECT_FALSE(q.event_marker(1234));
}


// A copy is a work item like a kernel: ordered after the kernel before it on
// its stream, before the one after; a copy on the legacy stream (a
// synchronous cudaMemcpy) waits for blocking streams' earlier work.
TEST(StreamQueue, CopiesTakeTheirTurnInStreamOrder) {
  StreamQueue q;
  auto kernel = q.add_kernel(2, true, 0);
  auto download = q.add_copy(2, true, 0);
  auto upload = q.add_copy(3, true, 0);
  auto sync_copy = q.add_copy(kLegacyStream, true, 0);
  EXPECT_EQ(q.ready_work(), (std::vector<StreamQueue::Seq>{kernel, upload}));
  q.start(kernel);
  q.start(upload);
  q.end(upload, 10);
  EXPECT_TRUE(q.ready_work().empty());  // the download waits for the kernel, the legacy copy for both
  q.end(kernel, 50);
  EXPECT_EQ(q.ready_work(), (std::vector<StreamQueue::Seq>{download}));
  q.start(download);
  q.end(download, 70);
  EXPECT_EQ(q.ready_work(), (std::vector<StreamQueue::Seq>{sync_copy}));
  EXPECT_EQ(q.ready_at(sync_copy), 70u);
}

}  // namespace
}  // namespace ws::timing
