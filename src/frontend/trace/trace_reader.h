// Readers for NVBit/Accel-Sim trace folders (kernelslist.g + kernel-N.traceg[.xz]).
#pragma once
#include <memory>
#include <string>
#include <string_view>

#include "frontend/trace/isa_table.h"
#include "frontend/trace/trace_parse.h"
#include "ir/source.h"

namespace ws::frontend {

// `path` is a trace folder or its kernelslist.g. Kernel files are checked to
// exist up front but opened (and streamed) only when next() hands them out.
// A copy larger than `device_bytes` (the GPU's memory; 0: unchecked) or one
// past the end of the 64-bit address space is an error naming its line.
std::unique_ptr<ir::WorkloadSource> open_trace_workload(const std::string& path, uint64_t device_bytes = 0);

// Whether a kernelslist.g line (or a path's file name) names a kernel file.
bool is_kernel_file_name(std::string_view name);

// Whether a kernel file name is a binary trace's (it ends in ".wst"); such
// files are read by open_wst_kernel(), text ones (.traceg, .traceg.xz) here.
bool is_wst_name(std::string_view name);

// One kernel file on its own (text, or binary if is_wst_name()); `isa`
// defaults to the table its header names.
std::unique_ptr<ir::KernelSource> open_trace_kernel(const std::string& path,
                                                    std::shared_ptr<const IsaTable> isa = nullptr);

// The header of a kernel file, without reading its body (tests, tools).
TraceHeader read_trace_header(const std::string& path);

}  // namespace ws::frontend
