#include "exec/runtime/registry.h"

#include "common/error.h"

namespace ws::runtime {

void** Registry::add_fatbin(const void* wrapper) {
  auto rec = std::make_unique<FatbinRecord>();
  rec->id = static_cast<int>(fatbins_.size()) + 1;
  rec->wrapper = wrapper;
  void** handle = &rec->handle_slot;
  fatbins_.push_back(std::move(rec));
  return handle;
}

FatbinRecord* Registry::fatbin(void** handle) {
  for (auto& f : fatbins_)
    if (&f->handle_slot == handle) return f.get();
  return nullptr;
}

int Registry::id_of(void** handle) const {
  for (const auto& f : fatbins_)
    if (&f->handle_slot == handle) return f->id;
  throw Error("registration with an unknown fatbin handle");
}

void Registry::remove_fatbin(void** handle) {
  if (FatbinRecord* f = fatbin(handle)) f->registered = false;
}

void Registry::add_kernel(void** handle, const void* host_stub, std::string device_name) {
  kernels_[host_stub] = KernelRecord{id_of(handle), std::move(device_name)};
}

void Registry::add_variable(void** handle, const void* host_shadow, std::string device_name, uint64_t size,
                            bool constant) {
  variables_[host_shadow] = VariableRecord{id_of(handle), std::move(device_name), size, constant};
}

const KernelRecord* Registry::kernel(const void* host_stub) const {
  auto it = kernels_.find(host_stub);
  return it == kernels_.end() ? nullptr : &it->second;
}

const VariableRecord* Registry::variable(const void* host_shadow) const {
  auto it = variables_.find(host_shadow);
  return it == variables_.end() ? nullptr : &it->second;
}

}  // namespace ws::runtime
