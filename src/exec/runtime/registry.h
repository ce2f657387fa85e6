// What a CUDA program registers at start-up (__cudaRegisterFatBinary,
// __cudaRegisterFunction, __cudaRegisterVar): fat binaries, host stubs of
// kernels and host shadows of device variables, each tied to its fatbin.
// Pure bookkeeping; loading the PTX is the runtime's business.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ws::runtime {

struct FatbinRecord {
  int id = 0;                     // registration order, from 1
  const void* wrapper = nullptr;  // the {magic, version, data, ...} wrapper
  bool registered = true;         // false after __cudaUnregisterFatBinary
  void* handle_slot = nullptr;    // the handle handed out is &handle_slot
};

struct KernelRecord {
  int fatbin = 0;
  std::string name;               // mangled device name (the PTX .entry name)
};

struct VariableRecord {
  int fatbin = 0;
  std::string name;               // device name (the PTX variable name)
  uint64_t size = 0;
  bool constant = false;
};

class Registry {
 public:
  // Returns the handle the program passes back in later calls.
  void** add_fatbin(const void* wrapper);
  // nullptr when `handle` was not returned by add_fatbin.
  FatbinRecord* fatbin(void** handle);
  void remove_fatbin(void** handle);
  void add_kernel(void** handle, const void* host_stub, std::string device_name);
  void add_variable(void** handle, const void* host_shadow, std::string device_name, uint64_t size, bool constant);

  // nullptr when the pointer was never registered.
  const KernelRecord* kernel(const void* host_stub) const;
  const VariableRecord* variable(const void* host_shadow) const;
  const std::vector<std::unique_ptr<FatbinRecord>>& fatbins() const { return fatbins_; }
  const std::map<const void*, KernelRecord>& kernels() const { return kernels_; }

 private:
  int id_of(void** handle) const;
  std::vector<std::unique_ptr<FatbinRecord>> fatbins_;
  std::map<const void*, KernelRecord> kernels_;
  std::map<const void*, VariableRecord> variables_;
};

}  // namespace ws::runtime
