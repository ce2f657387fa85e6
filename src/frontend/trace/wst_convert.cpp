#include "frontend/trace/wst_convert.h"

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <vector>

#include "common/error.h"
#include "frontend/trace/line_reader.h"
#include "frontend/trace/trace_reader.h"
#include "frontend/trace/wst_file.h"
#include "frontend/trace/wst_writer.h"

namespace ws::frontend {

namespace fs = std::filesystem;

namespace {

std::string_view trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// "key = value" -> value.
std::optional<std::string_view> keyed(std::string_view t, std::string_view key) {
  if (t.substr(0, key.size()) != key) return std::nullopt;
  std::string_view rest = trim(t.substr(key.size()));
  if (rest.empty() || rest[0] != '=') return std::nullopt;
  return trim(rest.substr(1));
}

uint32_t number(std::string_view v, const LineReader& r, const char* field) {
  uint32_t x = 0;
  v = trim(v);
  auto res = std::from_chars(v.data(), v.data() + v.size(), x);
  if (v.empty() || res.ec != std::errc{} || res.ptr != v.data() + v.size())
    throw InputError(r.path(), r.line_no(), field, "expected a number, got '" + std::string(v.substr(0, 40)) + "'");
  return x;
}

// Lines of the text trace become ops of the current CTA record; a line that
// is not spelled as the op's canonical text keeps its own spelling.
class TextToWst {
 public:
  TextToWst(LineReader& r, const std::string& out) : r_(r), w_(out, read_header(), fmt_) {}
  uint64_t run();

 private:
  std::string read_header();
  void line(std::string_view line);
  void structure(std::string_view line, std::string_view t);
  void spelled_if(std::string_view line, std::string_view canonical) {
    if (line != canonical) w_.spelled(line);
  }
  [[noreturn]] void fail(const char* field, const std::string& what) {
    throw InputError(r_.path(), r_.line_no(), field, what);
  }

  LineReader& r_;
  LineFormat fmt_;
  std::optional<std::string> first_block_;  // the #BEGIN_TB line that ended the header
  wst::WstWriter w_;
  bool in_block_ = false;
  wst::TextInst inst_;
  std::string canon_;
};

// Everything before the first #BEGIN_TB, as the text reader reads it: keys
// up to the first '#' line, then only comments and blank lines.
std::string TextToWst::read_header() {
  std::string text;
  std::string_view line;
  bool keys_done = false;
  while (r_.next(line)) {
    std::string_view t = trim(line);
    if (t == "#BEGIN_TB") {
      first_block_ = std::string(line);
      break;
    }
    if (!t.empty() && t[0] == '#') keys_done = true;
    else if (keys_done && !t.empty()) fail("body", "expected #BEGIN_TB, got '" + std::string(t.substr(0, 40)) + "'");
    text.append(line);
    text.push_back('\n');
  }
  fmt_ = LineFormat::from(wst::parse_header_text(text, r_.path()));
  return text;
}

uint64_t TextToWst::run() {
  if (first_block_) line(*first_block_);
  std::string_view l;
  while (r_.next(l)) line(l);
  if (in_block_) fail("thread block", "truncated: end of file inside a thread block (no #END_TB)");
  w_.close();
  return w_.instructions();
}

void TextToWst::line(std::string_view line) {
  std::string_view t = trim(line);
  if (t.empty()) {
    spelled_if(line, "");
    w_.op(wst::kBlank);
  } else if (t == "#BEGIN_TB") {
    if (in_block_) fail("body", "#BEGIN_TB inside a thread block");
    w_.begin_record();
    spelled_if(line, "#BEGIN_TB");
    w_.op(wst::kBeginTb);
    in_block_ = true;
  } else if (!in_block_) {
    if (t[0] != '#') fail("body", "expected #BEGIN_TB, got '" + std::string(t.substr(0, 40)) + "'");
    w_.comment(line);
  } else {
    structure(line, t);
  }
}

void TextToWst::structure(std::string_view line, std::string_view t) {
  if (t == "#END_TB") {
    spelled_if(line, "#END_TB");
    w_.op(wst::kEndTb);
    in_block_ = false;
  } else if (auto v = keyed(t, "thread block")) {
    uint32_t xyz[3] = {0, 0, 0};
    std::string_view s = *v;
    for (uint32_t& c : xyz) {
      size_t comma = s.find(',');
      c = number(s.substr(0, comma), r_, "thread block");
      s = comma == std::string_view::npos ? std::string_view{} : s.substr(comma + 1);
    }
    spelled_if(line, "thread block = " + std::to_string(xyz[0]) + "," + std::to_string(xyz[1]) + "," +
                         std::to_string(xyz[2]));
    w_.tb(Dim3{xyz[0], xyz[1], xyz[2]});
  } else if (auto w = keyed(t, "warp")) {
    uint32_t n = number(*w, r_, "warp");
    spelled_if(line, "warp = " + std::to_string(n));
    w_.op(wst::kWarp, n);
  } else if (auto k = keyed(t, "insts")) {
    uint32_t n = number(*k, r_, "insts");
    spelled_if(line, "insts = " + std::to_string(n));
    w_.op(wst::kInsts, n);
  } else {
    wst::tokenize_inst_line(line, fmt_, inst_, LineCtx{r_.path(), r_.line_no()});
    canon_.clear();
    wst::render_inst_line(inst_, fmt_, canon_);
    spelled_if(line, canon_);
    w_.inst(inst_);
  }
}

// Writes a record's ops back as lines.
class WstToText {
 public:
  WstToText(const wst::WstFile& f, FILE* out, const std::string& path) : f_(f), out_(out), path_(path) {}
  void op(wst::Op op, const uint64_t* a) {
    switch (op) {
      case wst::kBlank: put(""); break;
      case wst::kBeginTb: put("#BEGIN_TB"); break;
      case wst::kEndTb: put("#END_TB"); break;
      case wst::kTb: put("thread block = " + std::to_string(a[0]) + "," + std::to_string(a[1]) + "," + std::to_string(a[2])); break;
      case wst::kWarp: put("warp = " + std::to_string(a[0])); break;
      default: put("insts = " + std::to_string(a[0])); break;
    }
  }
  void text(wst::Op op, std::string_view text) {
    if (op == wst::kComment) put(text);
    else spelled_ = text;
  }
  void inst(uint32_t id, uint32_t mask, const wst::InstAddrs& a, const uint32_t* prefix) {
    t_.proto = f_.protos()[id];
    t_.opcode = f_.opcodes()[t_.proto.opcode];
    t_.mask = mask;
    t_.addrs = a;
    std::copy(prefix, prefix + 4, t_.prefix);
    line_.clear();
    wst::render_inst_line(t_, f_.format(), line_);
    put(line_);
  }
  void put(std::string_view canonical) {
    buf_ += spelled_ ? *spelled_ : canonical;
    buf_.push_back('\n');
    spelled_.reset();
    if (buf_.size() >= (size_t{1} << 20)) flush();
  }
  void raw(std::string_view text) { buf_ += text; }
  void flush() {
    if (std::fwrite(buf_.data(), 1, buf_.size(), out_) != buf_.size()) throw InputError(path_, 0, "", "write failed");
    buf_.clear();
  }

 private:
  const wst::WstFile& f_;
  FILE* out_;
  const std::string& path_;
  std::optional<std::string_view> spelled_;
  wst::TextInst t_;
  std::string line_, buf_;
};

uint64_t file_size(const std::string& p) {
  std::error_code ec;
  auto n = fs::file_size(p, ec);
  return ec ? 0 : n;
}

// kernel-1.traceg[.xz] <-> kernel-1.wst
std::string converted_name(std::string_view name, bool to_binary) {
  std::string n(name);
  if (!to_binary) return n.substr(0, n.size() - 4) + ".traceg";
  if (n.size() > 3 && n.substr(n.size() - 3) == ".xz") n.resize(n.size() - 3);
  size_t at = n.rfind(".traceg");
  return n.substr(0, at) + ".wst" + n.substr(at + 7);
}

void convert_file(const std::string& in, const std::string& out, bool to_binary, ConvertStats& s) {
  s.instructions += to_binary ? text_kernel_to_wst(in, out) : wst_kernel_to_text(in, out);
  s.bytes_in += file_size(in);
  s.bytes_out += file_size(out);
  ++s.kernels;
}

// One kernel line of a list: its file converted (or, a text kernel in a
// list being made text, copied) under `out`; returns its new name.
std::string convert_entry(const fs::path& dir, std::string_view t, const std::string& out, ConvertStats& s) {
  fs::path from = dir / std::string(t);
  bool keep = !s.to_binary && !is_wst_name(t);
  std::string name = keep ? std::string(t) : converted_name(t, s.to_binary);
  fs::path to = fs::path(out) / name;
  fs::create_directories(to.parent_path());
  if (keep) fs::copy_file(from, to, fs::copy_options::overwrite_existing);
  else convert_file(from.string(), to.string(), s.to_binary, s);
  return name;
}

}  // namespace

uint64_t text_kernel_to_wst(const std::string& in, const std::string& out) {
  auto r = LineReader::open(in);
  TextToWst c(*r, out);
  return c.run();
}

uint64_t wst_kernel_to_text(const std::string& in, const std::string& out) {
  wst::WstFile f(in);
  FILE* file = std::fopen(out.c_str(), "wb");
  if (!file) throw InputError(out, 0, "", "cannot create");
  struct Closer {
    FILE* f;
    ~Closer() { std::fclose(f); }
  } closer{file};
  WstToText v(f, file, out);
  v.raw(f.header_text());  // its lines end in '\n'
  wst::Predictor pred;
  for (size_t i = 0; i < f.ctas().size(); ++i) wst::decode_record(f.record(i), f, pred, v);
  v.flush();
  return f.instructions();
}

ConvertStats convert_traces(const std::string& in, const std::string& out) {
  ConvertStats s;
  std::error_code ec;
  fs::path p = fs::is_directory(in, ec) ? fs::path(in) / "kernelslist.g" : fs::path(in);
  if (is_kernel_file_name(p.filename().string())) {  // one kernel file
    s.to_binary = !wst::is_wst_file(p.string());
    fs::path o = fs::is_directory(out, ec) ? fs::path(out) / converted_name(p.filename().string(), s.to_binary) : fs::path(out);
    convert_file(p.string(), o.string(), s.to_binary, s);
    return s;
  }
  std::vector<std::string> lines;
  auto r = LineReader::open(p.string());
  std::string_view l;
  s.to_binary = true;
  while (r->next(l)) {
    lines.emplace_back(l);
    if (is_kernel_file_name(trim(l)) && is_wst_name(trim(l))) s.to_binary = false;
  }
  fs::create_directories(out);
  if (fs::equivalent(p.parent_path().empty() ? "." : p.parent_path(), out))
    throw InputError(out, 0, "", "the output folder is the input folder; choose another");
  std::string list;
  for (const std::string& line : lines) {
    std::string_view t = trim(line);
    if (!is_kernel_file_name(t)) {
      list += line + "\n";
      continue;
    }
    std::string name = convert_entry(p.parent_path(), t, out, s);
    size_t at = line.find(t);
    list += line.substr(0, at) + name + line.substr(at + t.size()) + "\n";
  }
  FILE* f = std::fopen((fs::path(out) / "kernelslist.g").c_str(), "wb");
  if (!f || std::fwrite(list.data(), 1, list.size(), f) != list.size() || std::fclose(f) != 0)
    throw InputError((fs::path(out) / "kernelslist.g").string(), 0, "", "write failed");
  return s;
}

}  // namespace ws::frontend
