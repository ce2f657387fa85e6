// Readers for NVBit/Accel-Sim trace folders (kernelslist.g + kernel-N.traceg[.xz]).
#pragma once
#include <memory>
#include <string>

#include "frontend/trace/isa_table.h"
#include "frontend/trace/trace_parse.h"
#include "ir/source.h"

namespace ws::frontend {

// `path` is a trace folder or its kernelslist.g. Kernel files are checked to
// exist up front but opened (and streamed) only when next() hands them out.
std::unique_ptr<ir::WorkloadSource> open_trace_workload(const std::string& path);

// One kernel file on its own; `isa` defaults to the table its header names.
std::unique_ptr<ir::KernelSource> open_trace_kernel(const std::string& path,
                                                    std::shared_ptr<const IsaTable> isa = nullptr);

// The header of a kernel file, without reading its body (tests, tools).
TraceHeader read_trace_header(const std::string& path);

}  // namespace ws::frontend
