#include "frontend/trace/trace_writer.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iterator>

#include "common/error.h"

namespace ws::frontend {

namespace {

FILE* create(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw InputError(path, 0, "", std::string("cannot create: ") + std::strerror(errno));
  return f;
}

}  // namespace

bool active_lane_stride(const TraceInst& i, Addr& base, int64_t& stride) {
  bool first = true, have_stride = false;
  Addr prev = 0;
  for (unsigned lane = 0; lane < 32; ++lane) {
    if (!(i.mask >> lane & 1)) continue;
    Addr a = i.addrs[lane];
    if (first) base = a, stride = 0;
    else if (!have_stride) stride = static_cast<int64_t>(a - prev), have_stride = true;
    else if (static_cast<int64_t>(a - prev) != stride) return false;
    first = false;
    prev = a;
  }
  return !first;
}

namespace {

void append_regs(std::string& s, const std::vector<uint16_t>& regs) {
  fmt::format_to(std::back_inserter(s), "{} ", regs.size());
  for (uint16_t r : regs) fmt::format_to(std::back_inserter(s), "R{} ", r);
}

}  // namespace

std::string format_inst_line(const TraceInst& i) {
  std::string s = fmt::format("{:04x} {:08x} ", i.pc, i.mask);
  append_regs(s, i.dst);
  s += i.opcode;
  s += ' ';
  append_regs(s, i.src);
  fmt::format_to(std::back_inserter(s), "{} ", i.mem_width);
  if (i.mem_width == 0) return s;
  Addr base = 0;
  int64_t stride = 0;
  if (active_lane_stride(i, base, stride)) return s + fmt::format("1 0x{:x} {} ", base, stride);
  s += "0 ";
  for (unsigned lane = 0; lane < 32; ++lane)
    if (i.mask >> lane & 1) fmt::format_to(std::back_inserter(s), "0x{:x} ", i.addrs[lane]);
  return s;
}

TraceWriter::TraceWriter(const std::string& out_dir, bool binary) : dir_(out_dir), binary_(binary) {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) throw InputError(dir_, 0, "", "cannot create the trace folder: " + ec.message());
  list_ = create((std::filesystem::path(dir_) / "kernelslist.g").string());
}

TraceWriter::~TraceWriter() {
  try {
    close();
  } catch (...) {
  }
}

void TraceWriter::memcpy(Addr dst, uint64_t bytes) {
  sync_pending_ = false;
  std::string line = fmt::format("MemcpyHtoD,0x{:016x},{}\n", dst, bytes);
  std::fputs(line.c_str(), list_);
}

void TraceWriter::device_copy(Addr dst, uint64_t bytes) {
  std::string line = fmt::format("MemcpyDtoD,0x{:016x},{}\n", dst, bytes);
  std::fputs(line.c_str(), list_);
}

void TraceWriter::stream_event(const ir::StreamEvent& e) {
  using K = ir::StreamEvent::Kind;
  std::string line = e.kind == K::Record ? fmt::format("EventRecord,{},{}\n", e.event, e.stream)
                     : e.kind == K::Wait ? fmt::format("StreamWaitEvent,{},{}\n", e.stream, e.event)
                                         : fmt::format("StreamNonBlocking,{}\n", e.stream);
  std::fputs(line.c_str(), list_);
}

void TraceWriter::stream_copy(const ir::StreamCopy& c) {
  if (sync_pending_) std::fputs("HostSync\n", list_);
  sync_pending_ = false;
  std::string line = fmt::format("CopyOnStream,{},{},0x{:016x},{}\n", c.to_device ? "HtoD" : "DtoH", c.stream,
                                 c.device_addr, c.bytes);
  std::fputs(line.c_str(), list_);
}

std::unique_ptr<KernelFile> TraceWriter::open_kernel(ir::KernelInfo info, Addr shmem_base, Addr local_base) {
  info.id = ++kernels_;
  std::string name = fmt::format("kernel-{}.{}", info.id, binary_ ? "wst" : "traceg");
  std::string path = (std::filesystem::path(dir_) / name).string();
  std::unique_ptr<KernelFile> file;
  if (binary_) file = open_wst_kernel_file(path, info, shmem_base, local_base);
  else file = std::make_unique<KernelTraceFile>(path, info, shmem_base, local_base);
  if (sync_pending_) std::fputs("HostSync\n", list_);
  sync_pending_ = false;
  std::fprintf(list_, "%s\n", name.c_str());
  return file;
}

void TraceWriter::begin_kernel(ir::KernelInfo info, Addr shmem_base, Addr local_base) {
  if (kernel_) end_kernel();
  kernel_ = open_kernel(std::move(info), shmem_base, local_base);
}

KernelFile& TraceWriter::current() {
  if (!kernel_) throw Error("trace writer: no kernel open");
  return *kernel_;
}

void TraceWriter::end_kernel() {
  if (kernel_) kernel_->close();
  kernel_.reset();
}

void TraceWriter::close() {
  if (kernel_) end_kernel();
  if (list_ && std::fclose(list_) != 0) throw InputError(dir_, 0, "", "writing kernelslist.g failed");
  list_ = nullptr;
}

std::string kernel_header_text(const ir::KernelInfo& info, Addr shmem_base, Addr local_base) {
  std::string s = fmt::format("-kernel name = {}\n-kernel id = {}\n-grid dim = ({},{},{})\n-block dim = ({},{},{})\n",
                              info.name, info.id, info.grid.x, info.grid.y, info.grid.z, info.block.x, info.block.y,
                              info.block.z);
  s += fmt::format("-shmem = {}\n-nregs = {}\n-binary version = {}\n-cuda stream id = {}\n", info.shmem_bytes,
                   info.nregs, info.binary_version, info.stream);
  s += fmt::format("-shmem base_addr = 0x{:016x}\n-local mem base_addr = 0x{:016x}\n", shmem_base, local_base);
  s += "-nvbit version = warpsim\n-accelsim tracer version = 4\n-enable lineinfo = 0\n\n";
  s += "#traces format = PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width [adrrescompress?] "
       "[mem_addresses]\n\n";
  return s;
}

KernelTraceFile::KernelTraceFile(std::string path, const ir::KernelInfo& info, Addr shmem_base, Addr local_base)
    : file_(create(path)), path_(std::move(path)) {
  put(kernel_header_text(info, shmem_base, local_base));
}

KernelTraceFile::~KernelTraceFile() {
  try {
    close();
  } catch (...) {
  }
}

void KernelTraceFile::begin_cta(Dim3 id) {
  put(fmt::format("#BEGIN_TB\n\nthread block = {},{},{}\n\n", id.x, id.y, id.z));
}

void KernelTraceFile::begin_warp(uint32_t warp, uint32_t count) {
  if (pending_) throw Error("trace writer: previous warp is missing instructions");
  put(fmt::format("warp = {}\ninsts = {}\n", warp, count));
  pending_ = count;
}

void KernelTraceFile::add(const TraceInst& i) {
  if (pending_ == 0) throw Error("trace writer: more instructions than begin_warp() announced");
  --pending_;
  put(format_inst_line(i));
  put("\n");
}

void KernelTraceFile::end_cta() {
  if (pending_) throw Error("trace writer: warp is missing instructions");
  put("\n#END_TB\n\n");
}

void KernelTraceFile::close() {
  flush();
  if (file_ && std::fclose(file_) != 0) throw InputError(path_, 0, "", "write failed");
  file_ = nullptr;
}

// Instruction text is batched so that each line does not cost a stdio call.
void KernelTraceFile::put(std::string_view s) {
  buf_.append(s);
  if (buf_.size() >= (size_t{1} << 20)) flush();
}

void KernelTraceFile::flush() {
  if (!file_ || buf_.empty()) return;
  if (std::fwrite(buf_.data(), 1, buf_.size(), file_) != buf_.size()) throw InputError(path_, 0, "", "write failed");
  buf_.clear();
}

}  // namespace ws::frontend
