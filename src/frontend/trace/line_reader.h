// Buffered line reader over a plain or .xz file. Lines are string_views into an
// internal buffer (valid until the next call), so reading never allocates per line.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ws::frontend {

class LineReader {
 public:
  virtual ~LineReader() = default;
  // Opens `path`, decompressing on the fly if it ends in ".xz". Throws
  // InputError if it cannot be opened.
  static std::unique_ptr<LineReader> open(const std::string& path);

  // The next line without its newline (or trailing '\r'); false at end of file.
  bool next(std::string_view& line);
  uint64_t line_no() const { return line_no_; }
  const std::string& path() const { return path_; }

 protected:
  explicit LineReader(std::string path) : path_(std::move(path)) {}
  // Fills up to `cap` bytes; returns 0 only at end of input.
  virtual size_t read_some(char* dst, size_t cap) = 0;

 private:
  bool refill();

  std::string path_;
  std::vector<char> buf_ = std::vector<char>(size_t{1} << 20);
  size_t begin_ = 0, end_ = 0;
  bool eof_ = false;
  uint64_t line_no_ = 0;
};

}  // namespace ws::frontend
