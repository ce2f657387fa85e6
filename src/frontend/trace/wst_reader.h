// Reads binary trace files (.wst) as kernel sources: instructions are
// decoded from their binary records, never through text (docs/trace-format.md).
#pragma once
#include <memory>
#include <string>

#include "frontend/trace/isa_table.h"
#include "frontend/trace/trace_parse.h"
#include "ir/source.h"

namespace ws::frontend {

// One .wst kernel file; `isa` defaults to the table its header names. The
// file's index and static instructions are read and checked here; CTAs are
// decoded one at a time by next_cta().
std::unique_ptr<ir::KernelSource> open_wst_kernel(const std::string& path, std::shared_ptr<const IsaTable> isa = nullptr);

// A .wst file's kernel header.
TraceHeader read_wst_header(const std::string& path);

}  // namespace ws::frontend
