// Writes one kernel as a binary trace file (.wst, docs/trace-format.md):
// CTA records of ops, grouped into zstd frames, then a footer with the
// kernel's opcode strings, static instructions and the per-CTA index.
#pragma once
#include <cstdio>
#include <string>
#include <unordered_map>
#include <vector>

#include "frontend/trace/wst_format.h"
#include "frontend/trace/wst_inst.h"

namespace ws::frontend::wst {

class WstWriter {
 public:
  // `header_text`: the kernel file's lines before its first #BEGIN_TB, each
  // ending in '\n'; `fmt` says which optional instruction fields it has.
  WstWriter(std::string path, const std::string& header_text, const LineFormat& fmt);
  ~WstWriter();
  WstWriter(const WstWriter&) = delete;
  WstWriter& operator=(const WstWriter&) = delete;

  // A CTA record starts at its #BEGIN_TB; lines after its #END_TB belong to it.
  void begin_record();
  void op(Op o);                          // kBlank, kBeginTb, kEndTb
  void op(Op o, uint64_t v);              // kWarp, kInsts
  void tb(Dim3 id);                       // thread block = x,y,z
  void spelled(std::string_view text);    // the next op's own spelling
  void comment(std::string_view text);    // a '#' line
  void inst(const TextInst& i);
  uint64_t instructions() const { return insts_; }
  // Ends the last record, writes the footer and patches the fixed header.
  void close();

 private:
  struct CtaEntry {
    uint64_t chunk, offset, size, insts;
    Dim3 id;
  };
  uint32_t intern_opcode(std::string_view op);
  uint32_t intern_proto(const InstProto& p);
  void encode_addrs(const InstAddrs& a, uint32_t mask, ProtoState& s);
  void end_record();
  void flush_chunk();
  void write(std::string_view bytes);
  std::string footer() const;
  void put_protos(std::string& f) const;
  void put_index(std::string& f) const;

  std::string path_;
  FILE* file_ = nullptr;
  uint64_t at_ = 0;  // bytes written
  LineFormat fmt_;
  std::unordered_map<std::string, uint32_t> opcode_ids_;
  std::vector<std::string> opcodes_;
  std::unordered_map<std::string, uint32_t> proto_ids_;
  std::vector<InstProto> protos_;
  std::string key_;     // scratch
  Predictor pred_;
  bool in_record_ = false;
  std::string streams_[kStreams];
  Dim3 record_id_;
  std::string chunk_;
  std::vector<std::array<uint64_t, 3>> chunks_;  // file offset, compressed, raw size
  std::vector<CtaEntry> ctas_;
  uint64_t insts_ = 0;
  uint64_t record_start_ = 0;  // insts_ when the record began
};

}  // namespace ws::frontend::wst
