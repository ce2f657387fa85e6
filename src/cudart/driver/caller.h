// The library a driver call came from, for messages (driver_api.cpp). No CUDA
// header here: driver_stub.cpp defines every entry point without parameters.
#pragma once

namespace ws::driver {

// The file name (no folder) of the shared object or executable holding
// `address`, or "the program".
const char* caller_of(const void* address);

}  // namespace ws::driver
