#include "frontend/trace/line_reader.h"

#include <lzma.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/error.h"

namespace ws::frontend {

namespace {

// A single line longer than this is not a trace: refuse rather than grow forever.
constexpr size_t kMaxLine = size_t{64} << 20;

struct FileCloser {
  void operator()(FILE* f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<FILE, FileCloser>;

FilePtr open_file(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw InputError(path, 0, "", std::string("cannot open: ") + std::strerror(errno));
  return FilePtr(f);
}

class PlainReader final : public LineReader {
 public:
  explicit PlainReader(const std::string& path) : LineReader(path), f_(open_file(path)) {}

 private:
  size_t read_some(char* dst, size_t cap) override {
    size_t n = std::fread(dst, 1, cap, f_.get());
    if (n == 0 && std::ferror(f_.get())) throw InputError(path(), 0, "", "read error");
    return n;
  }
  FilePtr f_;
};

// Streams the .xz through liblzma in fixed-size chunks: memory stays bounded
// whatever the decompressed size.
class XzReader final : public LineReader {
 public:
  explicit XzReader(const std::string& path) : LineReader(path), f_(open_file(path)), in_(size_t{1} << 16) {
    if (lzma_stream_decoder(&strm_, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
      throw InputError(path, 0, "", "cannot initialise the xz decoder");
  }
  ~XzReader() override { lzma_end(&strm_); }

 private:
  size_t read_some(char* dst, size_t cap) override {
    strm_.next_out = reinterpret_cast<uint8_t*>(dst);
    strm_.avail_out = cap;
    while (strm_.avail_out == cap && !done_) {
      if (strm_.avail_in == 0 && !in_eof_) {
        strm_.avail_in = std::fread(in_.data(), 1, in_.size(), f_.get());
        strm_.next_in = in_.data();
        in_eof_ = strm_.avail_in == 0;
      }
      lzma_ret r = lzma_code(&strm_, in_eof_ ? LZMA_FINISH : LZMA_RUN);
      if (r == LZMA_STREAM_END) done_ = true;
      else if (r != LZMA_OK) throw InputError(path(), 0, "", "corrupt or truncated xz data (lzma error " + std::to_string(r) + ")");
    }
    return cap - strm_.avail_out;
  }

  FilePtr f_;
  std::vector<uint8_t> in_;
  lzma_stream strm_ = LZMA_STREAM_INIT;
  bool in_eof_ = false, done_ = false;
};

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::unique_ptr<LineReader> LineReader::open(const std::string& path) {
  if (ends_with(path, ".xz")) return std::make_unique<XzReader>(path);
  return std::make_unique<PlainReader>(path);
}

// Moves the partial line to the front, grows the buffer if it is full, reads more.
bool LineReader::refill() {
  if (eof_) return false;
  if (begin_ > 0) {
    std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == buf_.size()) {
    if (buf_.size() >= kMaxLine) throw InputError(path_, line_no_ + 1, "", "line longer than 64 MiB");
    buf_.resize(buf_.size() * 2);
  }
  size_t n = read_some(buf_.data() + end_, buf_.size() - end_);
  end_ += n;
  eof_ = n == 0;
  return !eof_;
}

bool LineReader::next(std::string_view& line) {
  for (;;) {
    const char* b = buf_.data() + begin_;
    const void* nl = std::memchr(b, '\n', end_ - begin_);
    size_t len;
    if (nl) {
      len = static_cast<const char*>(nl) - b;
      begin_ += len + 1;
    } else if (!refill()) {
      if (begin_ == end_) return false;
      b = buf_.data() + begin_;
      len = end_ - begin_;
      begin_ = end_;
    } else {
      continue;
    }
    if (len > 0 && b[len - 1] == '\r') --len;
    line = std::string_view(b, len);
    ++line_no_;
    return true;
  }
}

}  // namespace ws::frontend
