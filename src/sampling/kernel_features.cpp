#include "sampling/kernel_features.h"

#include <algorithm>
#include <vector>

#include "ir/read_cta.h"

namespace ws::sampling {
namespace {

constexpr std::array<std::string_view, kFeatureCount> kNcuNames = {
    "smsp__inst_executed.sum",
    "smsp__thread_inst_executed.sum",
    "smsp__thread_inst_executed_per_inst_executed.ratio",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum",
    "smsp__sass_thread_inst_executed_op_global_ld.sum",
    "smsp__sass_thread_inst_executed_op_global_st.sum",
    "smsp__sass_thread_inst_executed_op_local_ld.sum",
    "smsp__sass_thread_inst_executed_op_local_st.sum",
    "smsp__sass_thread_inst_executed_op_shared_ld.sum",
    "smsp__sass_thread_inst_executed_op_shared_st.sum",
    "smsp__sass_inst_executed_op_global_atom.sum",
    "launch__grid_size",
};

void count_memory(const ir::WarpInst& in, KernelFeatures& f) {
  double threads = in.active_count();
  bool load = in.kind == ir::OpKind::Load, store = in.kind == ir::OpKind::Store;
  switch (in.space) {
    case ir::MemSpace::Global:
    case ir::MemSpace::Tex:
      if (in.kind == ir::OpKind::Atomic) {
        f[Feature::GlobalAtomics] += 1;
      } else if (load) {
        f[Feature::GlobalLoads] += threads;
        f[Feature::GlobalLoadSectors] += sectors_touched(in);
      } else if (store) {
        f[Feature::GlobalStores] += threads;
        f[Feature::GlobalStoreSectors] += sectors_touched(in);
      }
      break;
    case ir::MemSpace::Local:
      if (load) {
        f[Feature::LocalLoads] += threads;
        f[Feature::LocalLoadSectors] += sectors_touched(in);
      } else if (store) {
        f[Feature::LocalStores] += threads;
      }
      break;
    case ir::MemSpace::Shared:
      if (load) f[Feature::SharedLoads] += threads;
      if (store) f[Feature::SharedStores] += threads;
      break;
    default:
      break;
  }
}

void count(const ir::WarpInst& in, KernelFeatures& f) {
  f[Feature::WarpInsts] += 1;
  f[Feature::ThreadInsts] += in.active_count();
  if (in.is_memory() && in.active_mask) count_memory(in, f);
}

}  // namespace

std::string_view ncu_name(Feature f) { return kNcuNames[static_cast<size_t>(f)]; }

uint32_t sectors_touched(const ir::WarpInst& inst) {
  if (!inst.has_addrs() || !inst.active_mask) return 0;
  std::array<Addr, 64> sectors{};
  uint32_t n = 0;
  uint32_t bytes = std::max<uint32_t>(inst.access_bytes, 1);
  for (uint32_t m = inst.active_mask; m; m &= m - 1) {
    Addr a = inst.lane_addr(static_cast<uint32_t>(__builtin_ctz(m)));
    Addr first = a / 32, last = (a + bytes - 1) / 32;
    for (Addr s = first; s <= last && n < sectors.size(); ++s) sectors[n++] = s;
  }
  std::sort(sectors.begin(), sectors.begin() + n);
  return static_cast<uint32_t>(std::unique(sectors.begin(), sectors.begin() + n) - sectors.begin());
}

KernelFeatures profile_kernel(ir::KernelSource& kernel, uint32_t launch_index) {
  const ir::KernelInfo& info = kernel.info();
  KernelFeatures f;
  f.name = info.name;
  f.id = launch_index;
  f.grid = info.grid;
  f.block = info.block;
  ir::WarpInst scratch;
  while (std::unique_ptr<ir::CtaSource> cta = kernel.next_cta()) {
    f[Feature::Ctas] += 1;
    ir::read_cta(*cta, [&](const ir::WarpInst& in) { count(in, f); }, scratch);
  }
  double insts = f[Feature::WarpInsts];
  f[Feature::ThreadsPerInst] = insts > 0 ? f[Feature::ThreadInsts] / insts : 0;
  return f;
}

}  // namespace ws::sampling
