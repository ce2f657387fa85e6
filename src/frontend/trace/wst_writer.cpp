#include "frontend/trace/wst_writer.h"

#include <cerrno>
#include <cstring>
#include <utility>

#include "common/error.h"

namespace ws::frontend::wst {

namespace {

void serialize_proto(const InstProto& p, std::string& out) {
  put_varint(out, p.line_num);
  put_varint(out, p.pc);
  put_varint(out, p.opcode);
  put_bytes(out, std::string_view(reinterpret_cast<const char*>(p.dst.data()), p.dst.size()));
  put_bytes(out, std::string_view(reinterpret_cast<const char*>(p.src.data()), p.src.size()));
  put_varint(out, p.mem_width);
  put_varint(out, zigzag(p.immediate));
}

// Deltas are taken modulo 2^64 and written as signed numbers: small either way.
uint64_t delta(uint64_t v, uint64_t from) { return zigzag(static_cast<int64_t>(v - from)); }

}  // namespace

WstWriter::WstWriter(std::string path, const std::string& header_text, const LineFormat& fmt)
    : path_(std::move(path)), fmt_(fmt) {
  file_ = std::fopen(path_.c_str(), "wb");
  if (!file_) throw InputError(path_, 0, "", std::string("cannot create: ") + std::strerror(errno));
  // The footer's place is patched in by close(); until then a reader sees
  // offset 0 and knows the file was not finished.
  std::string head(kMagic, sizeof kMagic);
  put_u32(head, kVersion);
  put_u32(head, 0);
  put_u64(head, 0);
  put_u64(head, 0);
  std::string frame = compress(header_text);
  put_u32(head, static_cast<uint32_t>(frame.size()));
  put_u32(head, static_cast<uint32_t>(header_text.size()));
  write(head);
  write(frame);
  std::fflush(file_);  // an unfinished file is recognised as such
}

WstWriter::~WstWriter() {
  if (file_) std::fclose(file_);
}

void WstWriter::write(std::string_view bytes) {
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size())
    throw InputError(path_, 0, "", std::string("write failed: ") + std::strerror(errno));
  at_ += bytes.size();
}

uint32_t WstWriter::intern_opcode(std::string_view op) {
  key_.assign(op);
  auto [it, added] = opcode_ids_.try_emplace(key_, static_cast<uint32_t>(opcodes_.size()));
  if (added) opcodes_.push_back(key_);
  return it->second;
}

uint32_t WstWriter::intern_proto(const InstProto& p) {
  key_.clear();
  serialize_proto(p, key_);
  auto [it, added] = proto_ids_.try_emplace(key_, static_cast<uint32_t>(protos_.size()));
  if (added) protos_.push_back(p);
  return it->second;
}

void WstWriter::begin_record() {
  end_record();
  in_record_ = true;
  record_id_ = Dim3{0, 0, 0};
  record_start_ = insts_;
  pred_.new_cta();
}

void WstWriter::op(Op o) { put_varint(streams_[kOps], o); }

void WstWriter::op(Op o, uint64_t v) {
  put_varint(streams_[kOps], o);
  put_varint(streams_[kOps], v);
}

void WstWriter::tb(Dim3 id) {
  record_id_ = id;
  op(kTb, id.x);
  put_varint(streams_[kOps], id.y);
  put_varint(streams_[kOps], id.z);
}

void WstWriter::spelled(std::string_view text) {
  op(kSpelled, text.size());
  streams_[kText] += text;
}

void WstWriter::comment(std::string_view text) {
  op(kComment, text.size());
  streams_[kText] += text;
}

// Coalesced accesses (mode 1) cost their base's change since the last
// instance of the same instruction, and their stride's; lists cost their
// first address that way and each later one as a delta from the one before.
void WstWriter::encode_addrs(const InstAddrs& a, uint32_t mask, ProtoState& s) {
  std::string& out = streams_[kAddrs];
  out.push_back(static_cast<char>(a.mode));
  if (a.mode == 1) {
    put_varint(out, delta(a.base, s.base));
    put_varint(out, delta(static_cast<uint64_t>(a.stride), s.stride));
    s.base = a.base;
    s.stride = static_cast<uint64_t>(a.stride);
    return;
  }
  uint64_t first = a.mode == 0 ? a.vals[0] : a.base;
  if (a.mode == 0 ? a.count == 0 : mask == 0) return;
  put_varint(out, delta(first, s.base));
  s.base = first;
  for (uint32_t k = a.mode == 0 ? 1 : 0; k < a.count; ++k)
    put_varint(out, a.mode == 0 ? delta(a.vals[k], a.vals[k - 1]) : zigzag(static_cast<int64_t>(a.vals[k])));
}

void WstWriter::inst(const TextInst& i) {
  InstProto p = i.proto;
  p.opcode = intern_opcode(i.opcode);
  uint32_t id = intern_proto(p);
  pred_.grow(size_t{id} + 1);  // before taking references into it
  uint32_t predicted = pred_.predicted();
  ProtoState& s = pred_.at(id);
  bool mask_new = i.mask != s.mask;
  uint64_t code = (id == predicted ? 0 : uint64_t{id} + 1) << 1 | (mask_new ? 1 : 0);
  put_varint(streams_[kOps], kInstBase + code);
  if (mask_new) put_u32(streams_[kMasks], i.mask);
  s.mask = i.mask;
  if (p.mem_width > 0) encode_addrs(i.addrs, i.mask, s);
  if (fmt_.tracer_version < 3)
    for (uint32_t v : i.prefix) put_varint(streams_[kPrefix], v);
  pred_.followed_by(s, id);
  ++insts_;
}

// A record: its streams' sizes, then the streams.
void WstWriter::end_record() {
  if (!in_record_) return;
  in_record_ = false;
  op(kEnd);
  uint64_t offset = chunk_.size();
  for (const std::string& s : streams_) put_varint(chunk_, s.size());
  for (std::string& s : streams_) {
    chunk_ += s;
    s.clear();
  }
  ctas_.push_back(CtaEntry{chunks_.size(), offset, chunk_.size() - offset, insts_ - record_start_, record_id_});
  if (chunk_.size() >= kChunkBytes) flush_chunk();
}

void WstWriter::flush_chunk() {
  if (chunk_.empty()) return;
  std::string frame = compress(chunk_);
  chunks_.push_back({at_, frame.size(), chunk_.size()});
  write(frame);
  chunk_.clear();
}

// Static instructions column by column, each value as its change from the
// one before (pcs and line numbers rise in small steps): the columns
// compress far better than whole records would.
void WstWriter::put_protos(std::string& f) const {
  put_varint(f, protos_.size());
  uint64_t pc = 0, line = 0;
  for (const InstProto& p : protos_) put_varint(f, delta(p.line_num, std::exchange(line, p.line_num)));
  for (const InstProto& p : protos_) put_varint(f, delta(p.pc, std::exchange(pc, p.pc)));
  for (const InstProto& p : protos_) put_varint(f, p.opcode);
  for (const InstProto& p : protos_)
    for (const auto* regs : {&p.dst, &p.src})
      put_bytes(f, std::string_view(reinterpret_cast<const char*>(regs->data()), regs->size()));
  for (const InstProto& p : protos_) put_varint(f, p.mem_width);
  for (const InstProto& p : protos_) put_varint(f, zigzag(p.immediate));
}

// The CTA index: each record's place as its change from where the one
// before ended, block ids as changes from the one before.
void WstWriter::put_index(std::string& f) const {
  put_varint(f, chunks_.size());
  for (const auto& c : chunks_)
    for (uint64_t v : c) put_varint(f, v);
  put_varint(f, ctas_.size());
  uint64_t chunk = 0, end = 0;
  Dim3 id{0, 0, 0};
  for (const CtaEntry& c : ctas_) {
    if (c.chunk != chunk) end = 0;
    put_varint(f, c.chunk - chunk);
    put_varint(f, c.offset - end);
    put_varint(f, c.size);
    put_varint(f, c.insts);
    put_varint(f, delta(c.id.x, id.x));
    put_varint(f, delta(c.id.y, id.y));
    put_varint(f, delta(c.id.z, id.z));
    chunk = c.chunk;
    end = c.offset + c.size;
    id = c.id;
  }
}

std::string WstWriter::footer() const {
  std::string f;
  put_varint(f, opcodes_.size());
  for (const std::string& op : opcodes_) put_bytes(f, op);
  put_protos(f);
  put_index(f);
  put_varint(f, insts_);
  return f;
}

void WstWriter::close() {
  if (!file_) return;
  end_record();
  flush_chunk();
  std::string raw = footer();
  std::string frame = compress(raw);
  uint64_t footer_at = at_;
  write(frame);
  std::string patch;
  put_u64(patch, footer_at);
  put_u32(patch, static_cast<uint32_t>(frame.size()));
  put_u32(patch, static_cast<uint32_t>(raw.size()));
  bool ok = std::fseek(file_, 16, SEEK_SET) == 0 && std::fwrite(patch.data(), 1, patch.size(), file_) == patch.size();
  ok = std::fclose(file_) == 0 && ok;
  file_ = nullptr;
  if (!ok) throw InputError(path_, 0, "", std::string("write failed: ") + std::strerror(errno));
}

}  // namespace ws::frontend::wst
