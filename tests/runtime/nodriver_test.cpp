// Without a driver (PTXPP_LIBCUDA names a library that does not exist): no GPU,
// best() is the CPU emulator, asking for a GPU is a clear error.
#include <gtest/gtest.h>

#include <cstdlib>

#include <ptxpp/runtime.hpp>

TEST(NoDriver, TheCpuDeviceStandsIn) {
  EXPECT_EQ(ptx::device::gpu_count(), 0);
  EXPECT_EQ(ptx::device::best().kind(), ptx::DeviceKind::Cpu);
  try {
    ptx::device::gpu(0);
    ADD_FAILURE() << "no error";
  } catch (const ptx::runtime::Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot load the CUDA driver (/nonexistent/libcuda.so.1)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("is an NVIDIA driver installed?"), std::string::npos) << e.what();
  }
}

int main(int argc, char** argv) {
  ::setenv("PTXPP_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
