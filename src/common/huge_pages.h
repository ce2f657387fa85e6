// Transparent huge pages for the simulator's heap. A streaming kernel's
// simulation spreads its accesses over tens of MB of model state (tag
// arrays, MSHRs, queues of 80 SMs and 64 L2 slices; 36 MB of heap), one 4 KiB
// page per access: with 2 MiB pages the host's TLB covers it, and the
// stream ran 14% faster, the compute loop 13% (interleaved A/Bs,
// docs/performance.md, third round of 2026-11-25). Where the kernel gives huge pages only on request
// (transparent_hugepage = madvise, Debian's default), glibc 2.35+ asks for
// them for its heap when the tunable glibc.malloc.hugetlb=1 is set, which
// only takes effect at process start: so the CLI re-executes itself once
// with it set. WARPSIM_HUGE_PAGES=0 turns this off. Results do not depend on
// it (the model never keys anything on host addresses).
#pragma once
#include <optional>
#include <string>

namespace ws {

// The GLIBC_TUNABLES value to re-execute with, given the current value (or
// none), the kernel's transparent_hugepage/enabled text and the glibc
// version; nullopt when re-executing would not help (THP always or never,
// an older glibc, the tunable already set).
std::optional<std::string> huge_page_tunables(const char* current, const std::string& thp_mode,
                                              const std::string& glibc_version);

// The GLIBC_TUNABLES value that would give this process's heap huge pages,
// for this host and environment; nullopt if none would help or
// WARPSIM_HUGE_PAGES=0.
std::optional<std::string> wanted_huge_page_tunables();

// Whether LD_PRELOAD says the process runs under valgrind, whose tools a
// re-execution would escape (the new image would run natively, or not at all).
bool preloads_valgrind(const char* ld_preload);

// Re-executes /proc/self/exe with `argv` and the tunable when that helps and
// has not been done yet (WARPSIM_HUGE_PAGES unset or not "0", not under
// valgrind); returns if not, or if the exec fails (the run then goes on with
// normal pages).
void reexec_with_huge_pages(char** argv);

}  // namespace ws
