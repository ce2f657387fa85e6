// The parameter buffer of a driver-API launch (src/cudart/launch_params.h):
// cuLaunchKernel's kernelParams form and its `extra` form must give the
// buffer the kernel's .param layout describes, and malformed arguments must
// be refused (CUDA_ERROR_INVALID_VALUE in the driver) with the reason.
#include <gtest/gtest.h>

#include <cstring>

#include "cudart/launch_params.h"
#include "frontend/ptx/parser.h"

namespace ws::cudart {
namespace {

// Five parameters of sizes 1, 8, 2, 8, 4: PTX places each at the next offset
// aligned to its size, 0, 8, 16, 24, 32, so the space takes 36 bytes.
constexpr const char* kPtx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry mixed(.param .u8 c, .param .f64 d, .param .u16 s, .param .u64 p, .param .u32 k)
{
  ret;
}
.visible .entry none()
{
  ret;
}
)";

class LaunchParams : public ::testing::Test {
 protected:
  void SetUp() override {
    module_ = ptx::parse_module(kPtx, "launch_params_test.ptx");
    ASSERT_EQ(module_.functions.size(), 2u);
  }
  const ptx::Function& mixed() const { return module_.functions[0]; }
  const ptx::Function& none() const { return module_.functions[1]; }

  ptx::Module module_;
  uint8_t c_ = 7;
  double d_ = 2.5;
  uint16_t s_ = 0xbeef;
  uint64_t p_ = 0x7f0012345678ull;
  uint32_t k_ = 0xdeadbeef;
};

template <typename T>
T at(const std::vector<uint8_t>& buf, size_t offset) {
  T v;
  std::memcpy(&v, buf.data() + offset, sizeof v);
  return v;
}

TEST_F(LaunchParams, KernelParamsPlaceEachValueAtItsAlignedOffset) {
  void* args[] = {&c_, &d_, &s_, &p_, &k_};
  std::vector<uint8_t> buf = driver_launch_params(mixed(), args, nullptr);
  ASSERT_EQ(buf.size(), 36u);
  EXPECT_EQ(at<uint8_t>(buf, 0), 7);
  EXPECT_EQ(at<double>(buf, 8), 2.5);
  EXPECT_EQ(at<uint16_t>(buf, 16), 0xbeef);
  EXPECT_EQ(at<uint64_t>(buf, 24), 0x7f0012345678ull);
  EXPECT_EQ(at<uint32_t>(buf, 32), 0xdeadbeefu);
  EXPECT_EQ(at<uint8_t>(buf, 1), 0);  // padding stays zero
}

TEST_F(LaunchParams, ExtraBufferIsTheSameLayoutInEitherKeyOrder) {
  void* args[] = {&c_, &d_, &s_, &p_, &k_};
  std::vector<uint8_t> want = driver_launch_params(mixed(), args, nullptr);
  size_t size = want.size();
  void* pointer_first[] = {reinterpret_cast<void*>(kLaunchParamBufferPointer), want.data(),
                           reinterpret_cast<void*>(kLaunchParamBufferSize), &size,
                           reinterpret_cast<void*>(kLaunchParamEnd)};
  EXPECT_EQ(driver_launch_params(mixed(), nullptr, pointer_first), want);
  void* size_first[] = {reinterpret_cast<void*>(kLaunchParamBufferSize), &size,
                        reinterpret_cast<void*>(kLaunchParamBufferPointer), want.data(),
                        reinterpret_cast<void*>(kLaunchParamEnd)};
  EXPECT_EQ(driver_launch_params(mixed(), nullptr, size_first), want);
}

TEST_F(LaunchParams, ExtraBufferLargerThanTheParametersIsCutToThem) {
  std::vector<uint8_t> big(64, 0x5a);
  size_t size = big.size();
  void* extra[] = {reinterpret_cast<void*>(kLaunchParamBufferPointer), big.data(),
                   reinterpret_cast<void*>(kLaunchParamBufferSize), &size, reinterpret_cast<void*>(kLaunchParamEnd)};
  std::vector<uint8_t> buf = driver_launch_params(mixed(), nullptr, extra);
  EXPECT_EQ(buf, std::vector<uint8_t>(36, 0x5a));
}

TEST_F(LaunchParams, MalformedExtraListsAreRefused) {
  std::vector<uint8_t> data(36);
  size_t small = 20;
  void* too_small[] = {reinterpret_cast<void*>(kLaunchParamBufferPointer), data.data(),
                       reinterpret_cast<void*>(kLaunchParamBufferSize), &small,
                       reinterpret_cast<void*>(kLaunchParamEnd)};
  try {
    driver_launch_params(mixed(), nullptr, too_small);
    FAIL() << "a 20-byte buffer for 36 bytes of parameters was accepted";
  } catch (const LaunchParamError& e) {
    EXPECT_NE(std::string(e.what()).find("holds 20 bytes, its 5 parameters take 36 bytes"), std::string::npos)
        << e.what();
  }
  void* no_size[] = {reinterpret_cast<void*>(kLaunchParamBufferPointer), data.data(),
                     reinterpret_cast<void*>(kLaunchParamEnd)};
  EXPECT_THROW(driver_launch_params(mixed(), nullptr, no_size), LaunchParamError);
  void* unknown_key[] = {reinterpret_cast<void*>(uintptr_t{7}), data.data(), reinterpret_cast<void*>(kLaunchParamEnd)};
  EXPECT_THROW(driver_launch_params(mixed(), nullptr, unknown_key), LaunchParamError);
}

TEST_F(LaunchParams, BothFormsNeitherFormAndNullArgumentsAreRefused) {
  void* args[] = {&c_, &d_, &s_, &p_, &k_};
  void* end[] = {reinterpret_cast<void*>(kLaunchParamEnd)};
  EXPECT_THROW(driver_launch_params(mixed(), args, end), LaunchParamError);
  EXPECT_THROW(driver_launch_params(mixed(), nullptr, nullptr), LaunchParamError);
  void* with_null[] = {&c_, &d_, nullptr, &p_, &k_};
  try {
    driver_launch_params(mixed(), with_null, nullptr);
    FAIL() << "a null argument pointer was accepted";
  } catch (const LaunchParamError& e) {
    EXPECT_NE(std::string(e.what()).find("kernelParams[2] (s)"), std::string::npos) << e.what();
  }
}

TEST_F(LaunchParams, AKernelWithoutParametersNeedsNeitherForm) {
  EXPECT_TRUE(driver_launch_params(none(), nullptr, nullptr).empty());
}

}  // namespace
}  // namespace ws::cudart
