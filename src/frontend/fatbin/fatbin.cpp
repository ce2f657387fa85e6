#include "frontend/fatbin/fatbin.h"

#include <fmt/format.h>
#include <lz4.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>

#include "common/error.h"

namespace ws::fatbin {
namespace {

constexpr uint64_t kContainerHeaderBytes = 16;
constexpr uint64_t kMinEntryHeaderBytes = 0x40;  // every field we read lies below this
constexpr uint64_t kFlagLz4 = 0x2000;
constexpr uint64_t kFlagZstd = 0x8000;

template <typename T>
T load(std::span<const uint8_t> b, uint64_t at) {
  T v;
  std::memcpy(&v, b.data() + at, sizeof v);
  return v;
}

Entry parse_entry(std::span<const uint8_t> bytes, uint64_t at, uint64_t end, const std::string& what) {
  auto fail = [&](const std::string& msg) {
    return InputError(fmt::format("{}: entry at offset {:#x}: {}", what, at, msg));
  };
  if (end - at < kMinEntryHeaderBytes) throw fail("truncated entry header");
  Entry e;
  uint16_t kind = load<uint16_t>(bytes, at);
  if (kind != 1 && kind != 2) throw fail(fmt::format("unknown entry kind {}", kind));
  e.kind = static_cast<EntryKind>(kind);
  uint32_t header = load<uint32_t>(bytes, at + 4);
  uint64_t payload = load<uint64_t>(bytes, at + 8);
  if (header < kMinEntryHeaderBytes || header > end - at || payload > end - at - header)
    throw fail(fmt::format("header size {:#x} / payload size {:#x} run past the container", header, payload));
  uint32_t compressed = load<uint32_t>(bytes, at + 0x10);
  e.ptx_minor = load<uint16_t>(bytes, at + 0x18);
  e.ptx_major = load<uint16_t>(bytes, at + 0x1a);
  e.arch = load<uint32_t>(bytes, at + 0x1c);
  e.flags = load<uint64_t>(bytes, at + 0x28);
  e.uncompressed_size = load<uint64_t>(bytes, at + 0x38);
  e.offset = at;
  uint64_t stored = payload;
  if (e.flags & (kFlagLz4 | kFlagZstd)) {
    e.compression = (e.flags & kFlagZstd) ? Compression::Zstd : Compression::Lz4;
    if (compressed == 0 || compressed > payload) throw fail(fmt::format("bad compressed size {:#x}", compressed));
    if (e.uncompressed_size == 0) throw fail("compressed entry without an uncompressed size");
    stored = compressed;
  }
  e.payload = bytes.subspan(at + header, stored);
  return e;
}

std::string trim_nuls(std::string s) {
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

}  // namespace

std::vector<Entry> parse_container(std::span<const uint8_t> bytes, const std::string& what) {
  if (bytes.size() < kContainerHeaderBytes) throw InputError(what + ": truncated fatbin header");
  uint32_t magic = load<uint32_t>(bytes, 0);
  if (magic != kContainerMagic)
    throw InputError(fmt::format("{}: bad fatbin magic {:#010x} (expected {:#010x})", what, magic, kContainerMagic));
  uint16_t header = load<uint16_t>(bytes, 6);
  uint64_t payload = load<uint64_t>(bytes, 8);
  if (header < kContainerHeaderBytes || header > bytes.size() || payload > bytes.size() - header)
    throw InputError(fmt::format("{}: fatbin header size {:#x} / payload size {:#x} exceed the {} bytes available",
                                 what, header, payload, bytes.size()));
  std::vector<Entry> entries;
  uint64_t end = header + payload;
  for (uint64_t at = header; at < end;) {
    entries.push_back(parse_entry(bytes, at, end, what));
    at += load<uint32_t>(bytes, at + 4) + load<uint64_t>(bytes, at + 8);
  }
  return entries;
}

std::span<const uint8_t> container_of_wrapper(const void* wrapper, const std::string& what) {
  uint32_t magic;
  std::memcpy(&magic, wrapper, sizeof magic);
  if (magic != kWrapperMagic)
    throw InputError(fmt::format("{}: bad fatbin wrapper magic {:#010x} (expected {:#010x})", what, magic,
                                 kWrapperMagic));
  const uint8_t* data;
  std::memcpy(&data, static_cast<const uint8_t*>(wrapper) + 8, sizeof data);
  if (data == nullptr) throw InputError(what + ": fatbin wrapper has no data pointer");
  std::span<const uint8_t> head(data, kContainerHeaderBytes);
  if (load<uint32_t>(head, 0) != kContainerMagic)
    throw InputError(fmt::format("{}: bad fatbin magic {:#010x} (expected {:#010x})", what, load<uint32_t>(head, 0),
                                 kContainerMagic));
  return {data, load<uint16_t>(head, 6) + load<uint64_t>(head, 8)};
}

std::string entry_text(const Entry& e, const std::string& what) {
  const auto* src = reinterpret_cast<const char*>(e.payload.data());
  if (e.compression == Compression::None) return trim_nuls(std::string(src, e.payload.size()));
  std::string out(e.uncompressed_size, '\0');
  auto fail = [&](const char* codec, const std::string& why) {
    return InputError(fmt::format("{}: entry at offset {:#x} (arch {}): {} decompression failed: {}", what, e.offset,
                                  e.arch, codec, why));
  };
  if (e.compression == Compression::Lz4) {
    int n = LZ4_decompress_safe(src, out.data(), static_cast<int>(e.payload.size()), static_cast<int>(out.size()));
    if (n < 0) throw fail("LZ4", "corrupt block");
    if (static_cast<uint64_t>(n) != out.size())
      throw fail("LZ4", fmt::format("{} bytes, expected {}", n, out.size()));
  } else {
    size_t n = ZSTD_decompress(out.data(), out.size(), src, e.payload.size());
    if (ZSTD_isError(n)) throw fail("zstd", ZSTD_getErrorName(n));
    if (n != out.size()) throw fail("zstd", fmt::format("{} bytes, expected {}", n, out.size()));
  }
  return trim_nuls(std::move(out));
}

int select_ptx(const std::vector<Entry>& entries, uint32_t cc) {
  int best = -1, lowest = -1;
  for (int i = 0; i < static_cast<int>(entries.size()); ++i) {
    const Entry& e = entries[i];
    if (e.kind != EntryKind::Ptx) continue;
    if (lowest < 0 || e.arch < entries[lowest].arch) lowest = i;
    if (e.arch <= cc && (best < 0 || e.arch > entries[best].arch)) best = i;
  }
  return best >= 0 ? best : lowest;
}

}  // namespace ws::fatbin
