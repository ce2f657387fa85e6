// Entry points of NVIDIA's libcudart.so.13 that warpsim does not implement.
// They exist so that any program linked against the real runtime loads (an
// absent symbol would fail in the dynamic linker with an obscure message);
// calling one stops the program with a clear line instead of returning a
// made-up answer. No CUDA header here: the stubs take no parameters, which
// the C calling convention allows since they never return.
#include <cstdio>
#include <cstdlib>

namespace {

[[noreturn]] void unsupported(const char* name) {
  std::fprintf(stderr, "warpsim: %s is not supported by the warpsim runtime (docs/exec.md lists what is)\n", name);
  std::exit(2);
}

}  // namespace

#define WARPSIM_UNSUPPORTED(name) \
  extern "C" [[noreturn]] void name() { unsupported(#name); }
#include "cudart/unsupported_api.def"
