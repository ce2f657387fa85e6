#include "cudart/runtime.h"

#include <cstdio>
#include <cstdlib>

#include "common/error.h"
#include "frontend/fatbin/fatbin.h"
#include "frontend/fatbin/relocatable.h"
#include "frontend/ptx/link.h"
#include "frontend/ptx/parser.h"
#include "sampling/plan.h"

namespace ws::cudart {

Runtime& Runtime::get() {
  static Runtime* runtime = new Runtime();
  return *runtime;
}

Runtime::Runtime() {
  try {
    options_ = runtime::options_from_env([](const char* name) { return std::getenv(name); });
  } catch (const std::exception& e) {
    fatal(e.what());
  }
  std::atexit(at_exit);
}

void Runtime::at_exit() {
  Runtime& rt = get();
  std::lock_guard lock(rt.mutex_);
  if (!rt.device_) return;
  try {
    rt.device_->finish();
  } catch (const sampling::PlanMismatch& e) {
    // A sampled run of another program: it must not pass for a good one.
    print_line(std::string("error: ") + e.what());
    std::fflush(stdout);
    std::_Exit(1);
  } catch (const std::exception& e) {
    print_line(fmt::format("error while writing the results: {}", e.what()));
  }
}

void Runtime::print_line(const std::string& msg) {
  std::fprintf(stderr, "warpsim: %s\n", msg.c_str());
  std::fflush(stderr);
}

void Runtime::fatal(const std::string& msg, int status) {
  print_line(msg);
  std::exit(status);
}

exec::Device& Runtime::device() {
  if (!device_) {
    try {
      device_ = std::make_unique<exec::Device>(options_.device);
    } catch (const std::exception& e) {
      fatal(fmt::format("cannot create the simulated GPU (WARPSIM_GPU={}): {}", options_.device.preset, e.what()));
    }
    const exec::DeviceFacts& f = device_->facts();
    log("device: {} (cc {}.{}, {} SMs), {} mode", f.name, f.cc_major, f.cc_minor, f.sms,
        options_.device.timing ? "timing" : "functional");
  }
  load_pending();
  return *device_;
}

void Runtime::load_pending() {
  if (!device_ || attempted_.size() == registry_.fatbins().size()) return;
  for (const auto& f : registry_.fatbins())
    if (attempted_.insert(f->id).second) load_fatbin(*f);
}

void Runtime::load_fatbin(runtime::FatbinRecord& f) {
  std::string what = fmt::format("fatbin #{}", f.id);
  try {
    auto entries = fatbin::parse_container(fatbin::container_of_wrapper(f.wrapper, what), what);
    const exec::DeviceFacts& facts = device_->facts();
    uint32_t cc = facts.cc_major * 10 + facts.cc_minor;
    int pick = fatbin::select_ptx(entries, cc);
    std::string archs;
    for (const fatbin::Entry& e : entries)
      archs += fmt::format(" {}_{}", e.kind == fatbin::EntryKind::Ptx ? "compute" : "sm", e.arch);
    if (entries.empty()) {  // -rdc=true: the units' PTX waits unlinked in __nv_relfatbin
      modules_[f.id] = load_relocatable(what);
      return;
    }
    if (pick < 0)
      throw InputError(fmt::format("{} holds no PTX (entries:{}); rebuild with "
                                   "-gencode arch=compute_80,code=compute_80 (and -cudart shared)",
                                   what, archs));
    const fatbin::Entry& e = entries[pick];
    log("{}: entries{}; using the compute_{} PTX (ISA {}.{}) for cc {}.{}{}", what, archs, e.arch, e.ptx_major,
        e.ptx_minor, facts.cc_major, facts.cc_minor, e.arch > cc ? " (newer than the device: no older PTX)" : "");
    std::string name = fmt::format("{} (compute_{} PTX)", what, e.arch);
    std::string text = fatbin::entry_text(e, what);
    ptx::Module module = ptx::parse_module(text, name);
    module.filename = name;
    modules_[f.id] = &device_->program().load(std::move(module), text);
  } catch (const std::exception& e) {
    load_errors_[f.id] = e.what();
    log("{}: not loaded: {}", what, e.what());
  }
}

// Parses every relocatable unit's PTX and links them into one module, once.
exec::LoadedModule* Runtime::load_relocatable(const std::string& what) {
  if (relocatable_) return relocatable_;
  const exec::DeviceFacts& facts = device_->facts();
  std::vector<std::string> texts = fatbin::relocatable_ptx("/proc/self/exe", facts.cc_major * 10 + facts.cc_minor);
  if (texts.empty())
    throw InputError(fmt::format("{} is empty and the program has no relocatable PTX (__nv_relfatbin); rebuild "
                                 "with -gencode arch=compute_80,code=compute_80",
                                 what));
  std::vector<ptx::Module> units;
  for (size_t i = 0; i < texts.size(); ++i)
    units.push_back(ptx::parse_module(texts[i], fmt::format("relocatable unit {} (__nv_relfatbin)", i + 1)));
  log("{}: linking {} relocatable PTX units (-rdc=true)", what, units.size());
  relocatable_ = &device_->program().load(ptx::link_modules(std::move(units), "linked relocatable PTX"));
  return relocatable_;
}

const KernelRef* Runtime::kernel(const void* host_stub) {
  if (auto it = kernels_.find(host_stub); it != kernels_.end()) return &it->second;
  const runtime::KernelRecord* rec = registry_.kernel(host_stub);
  if (rec == nullptr) return nullptr;
  device();
  if (auto err = load_errors_.find(rec->fatbin); err != load_errors_.end())
    fatal(fmt::format("cannot run kernel {}: {}", rec->name, err->second));
  const exec::LoadedModule* module = modules_.at(rec->fatbin);
  for (const ptx::Function& fn : module->ast.functions) {
    if (fn.is_entry && fn.name == rec->name) return &(kernels_[host_stub] = KernelRef{module, &fn});
  }
  fatal(fmt::format("kernel {} is registered but {} has no .entry of that name", rec->name, module->ast.filename));
}

std::optional<std::pair<Addr, uint64_t>> Runtime::symbol(const void* symbol) {
  const runtime::VariableRecord* rec = registry_.variable(symbol);
  if (rec == nullptr) return std::nullopt;
  device();
  if (auto err = load_errors_.find(rec->fatbin); err != load_errors_.end())
    fatal(fmt::format("cannot access device variable {}: {}", rec->name, err->second));
  const exec::LoadedModule* module = modules_.at(rec->fatbin);
  auto it = module->symbols.find(rec->name);
  if (it == module->symbols.end())
    fatal(fmt::format("device variable {} is registered but {} does not define it", rec->name, module->ast.filename));
  auto size = module->symbol_sizes.find(rec->name);
  return std::pair{it->second, size != module->symbol_sizes.end() ? size->second : rec->size};
}

cudaError_t Runtime::fail(cudaError_t e) {
  if (e != cudaSuccess) last_error_ = e;
  return e;
}

cudaError_t Runtime::take_last_error() {
  cudaError_t e = last_error_;
  last_error_ = sticky_;  // a sticky error outlives cudaGetLastError
  return e;
}

// A GPU does not detect a barrier deadlock or a runaway kernel: the kernel
// hangs until a watchdog ends it, which the runtime reports as a launch
// timeout (sticky). Bad accesses and failed asserts have their own codes.
cudaError_t launch_error(exec::LaunchFailure why) {
  switch (why) {
    case exec::LaunchFailure::Assertion:
      return cudaErrorAssert;
    case exec::LaunchFailure::BarrierDeadlock:
    case exec::LaunchFailure::Watchdog:
      return cudaErrorLaunchTimeout;
    case exec::LaunchFailure::Fault:
      break;
  }
  return cudaErrorIllegalAddress;
}

cudaError_t Runtime::deferred_fault() {
  if (!device_) return cudaSuccess;
  std::optional<exec::Device::Fault> f = device_->take_fault();
  if (!f) return cudaSuccess;
  using Kind = exec::Device::Fault::Kind;
  // gpu.max_cycles and exec.watchdog_cycles are the simulator's watchdog: a
  // real GPU's reports a launch timeout; a failed timing model, a launch failure.
  cudaError_t code = f->kind == Kind::Program  ? launch_error(f->failure)
                     : f->kind == Kind::Stopped ? cudaErrorLaunchTimeout
                                                : cudaErrorLaunchFailure;
  kernel_fault(f->what, code);
  return code;
}

void Runtime::kernel_fault(const std::string& what, cudaError_t code) {
  print_line(fmt::format("kernel fault: {}", what));
  sticky_ = last_error_ = code;
}

ArrayRecord* Runtime::array(const void* handle) {
  auto it = arrays_.find(handle);
  return it == arrays_.end() ? nullptr : it->second.get();
}

void Runtime::reset() {
  if (device_)
    for (Addr a : allocations_) device_->memory().release(a);
  allocations_.clear();
  arrays_.clear();
  textures_.clear();
  if (device_) device_->textures().clear();
  streams_ = runtime::StreamTable();
  events_ = runtime::EventTable();
  call_stack_.clear();
  kernel_settings_.clear();
  limits_.clear();
  last_error_ = sticky_ = cudaSuccess;
}

}  // namespace ws::cudart
