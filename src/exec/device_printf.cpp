// The device printf formatter: one conversion at a time through snprintf.
#include "exec/device_printf.h"

#include <cstdio>
#include <cstring>

namespace ws::exec {

namespace {

// CUDA's printf takes at most 32 arguments after the format; later
// conversions are printed as written.
constexpr int kMaxArguments = 32;

// One parsed conversion specification, `%[flags][width][.precision][length]conv`.
struct Spec {
  std::string flags;
  bool width_star = false, has_width = false, prec_star = false, has_prec = false;
  int width = 0, prec = 0;
  std::string length;  // "", "h", "hh", "l", "ll", "L", "z", "j", "t"
  char conv = 0;
  size_t end = 0;      // index just past the conversion character
};

int read_number(std::string_view f, size_t& i) {
  int v = 0;
  while (i < f.size() && f[i] >= '0' && f[i] <= '9') v = v * 10 + (f[i++] - '0');
  return v;
}

// Parses the specification starting after the '%' at `i`; conv = 0 when the format ends first.
Spec parse_spec(std::string_view f, size_t i) {
  Spec s;
  while (i < f.size() && std::strchr("-+ #0", f[i])) s.flags += f[i++];
  if (i < f.size() && f[i] == '*') s.width_star = s.has_width = true, ++i;
  else if (i < f.size() && f[i] >= '0' && f[i] <= '9') s.has_width = true, s.width = read_number(f, i);
  if (i < f.size() && f[i] == '.') {
    s.has_prec = true;
    ++i;
    if (i < f.size() && f[i] == '*') s.prec_star = true, ++i;
    else s.prec = read_number(f, i);
  }
  while (i < f.size() && std::strchr("hlLzjt", f[i])) s.length += f[i++];
  if (i < f.size()) s.conv = f[i++];
  s.end = i;
  return s;
}

bool is_wide_length(const std::string& len) {
  return len == "l" || len == "ll" || len == "z" || len == "j" || len == "t";
}

// The single-conversion host format: `*` resolved to numbers, length as given by `length`.
std::string host_format(const Spec& s, const char* length) {
  std::string f = "%" + s.flags;
  if (s.has_width) f += std::to_string(s.width);
  if (s.has_prec) f += "." + std::to_string(s.prec);
  return f + length + s.conv;
}

template <class T>
void append(std::string& out, const std::string& fmt, T value) {
  char small[128];
  int n = std::snprintf(small, sizeof small, fmt.c_str(), value);
  if (n < 0) return;
  if (static_cast<size_t>(n) < sizeof small) {
    out.append(small, static_cast<size_t>(n));
    return;
  }
  std::string big(static_cast<size_t>(n) + 1, '\0');
  std::snprintf(big.data(), big.size(), fmt.c_str(), value);
  out.append(big.data(), static_cast<size_t>(n));
}

class ArgumentReader {
 public:
  explicit ArgumentReader(PrintfSource& src) : src_(src) {}
  bool next(unsigned bytes, uint64_t& v) {
    offset_ = (offset_ + bytes - 1) / bytes * bytes;
    if (!src_.argument(offset_, bytes, v)) return false;
    offset_ += bytes;
    ++count_;
    return true;
  }
  int count() const { return count_; }

 private:
  PrintfSource& src_;
  uint64_t offset_ = 0;
  int count_ = 0;
};

// Formats one conversion; false when an argument could not be read.
bool convert(Spec& s, ArgumentReader& args, PrintfSource& src, std::string& out) {
  uint64_t v = 0;
  if (s.width_star) {
    if (!args.next(4, v)) return false;
    int w = static_cast<int32_t>(v);
    if (w < 0) s.flags += '-', w = -w;
    s.width = w;
  }
  if (s.prec_star) {
    if (!args.next(4, v)) return false;
    s.prec = static_cast<int32_t>(v);
    s.has_prec = s.prec >= 0;
  }
  bool wide = is_wide_length(s.length);
  switch (s.conv) {
    case 'd': case 'i':
      if (!args.next(wide ? 8 : 4, v)) return false;
      if (wide) append(out, host_format(s, "ll"), static_cast<long long>(v));
      else append(out, host_format(s, s.length == "h" || s.length == "hh" ? s.length.c_str() : ""), static_cast<int>(v));
      return true;
    case 'u': case 'x': case 'X': case 'o':
      if (!args.next(wide ? 8 : 4, v)) return false;
      if (wide) append(out, host_format(s, "ll"), static_cast<unsigned long long>(v));
      else append(out, host_format(s, s.length == "h" || s.length == "hh" ? s.length.c_str() : ""),
                  static_cast<unsigned>(v));
      return true;
    case 'c':
      if (!args.next(4, v)) return false;
      append(out, host_format(s, ""), static_cast<int>(v));
      return true;
    case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A': {
      if (!args.next(8, v)) return false;
      double d;
      std::memcpy(&d, &v, 8);
      append(out, host_format(s, ""), d);
      return true;
    }
    case 'p':
      if (!args.next(8, v)) return false;
      append(out, host_format(s, ""), reinterpret_cast<void*>(static_cast<uintptr_t>(v)));
      return true;
    case 's': {
      if (!args.next(8, v)) return false;
      std::string text = "(null)";
      if (v && !src.string(v, text)) return false;
      append(out, host_format(s, ""), text.c_str());
      return true;
    }
    default: return true;  // %n and unknown conversions print nothing
  }
}

}  // namespace

PrintfResult format_device_printf(std::string_view fmt, PrintfSource& src, std::string& out) {
  PrintfResult r;
  ArgumentReader args(src);
  size_t i = 0;
  while (i < fmt.size()) {
    size_t pct = fmt.find('%', i);
    if (pct == std::string_view::npos) pct = fmt.size();
    out.append(fmt.substr(i, pct - i));
    if (pct == fmt.size()) break;
    Spec s = parse_spec(fmt, pct + 1);
    if (s.conv == '%' || s.conv == 0 || args.count() >= kMaxArguments) {
      if (s.conv == '%') out += '%';
      else out.append(fmt.substr(pct, s.end - pct));
      i = s.end;
      continue;
    }
    if (!convert(s, args, src, out)) return r.ok = false, r.arguments = args.count(), r;
    i = s.end;
  }
  r.arguments = args.count();
  return r;
}

}  // namespace ws::exec
