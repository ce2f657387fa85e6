#include "frontend/fatbin/relocatable.h"

#include <cstring>
#include <fstream>

#include "common/error.h"
#include "frontend/fatbin/fatbin.h"

namespace ws::fatbin {

namespace {

template <class T>
T read_at(const std::vector<uint8_t>& b, uint64_t off, const std::string& what) {
  if (off + sizeof(T) > b.size()) throw InputError(what + ": truncated ELF header");
  T v;
  std::memcpy(&v, b.data() + off, sizeof v);
  return v;
}

std::vector<uint8_t> read_range(std::ifstream& f, uint64_t off, uint64_t n, const std::string& what) {
  std::vector<uint8_t> out(n);
  f.seekg(static_cast<std::streamoff>(off));
  f.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(n));
  if (static_cast<uint64_t>(f.gcount()) != n) throw InputError(what + ": truncated file");
  return out;
}

// The bytes of section `name` of a 64-bit little-endian ELF file (empty if absent).
std::vector<uint8_t> elf_section(const std::string& path, const std::string& name) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InputError(path + ": cannot open");
  std::vector<uint8_t> eh = read_range(f, 0, 64, path);
  if (std::memcmp(eh.data(), "\x7f" "ELF", 4) != 0 || eh[4] != 2) throw InputError(path + ": not a 64-bit ELF file");
  auto shoff = read_at<uint64_t>(eh, 0x28, path);
  auto shentsize = read_at<uint16_t>(eh, 0x3a, path), shnum = read_at<uint16_t>(eh, 0x3c, path);
  auto shstrndx = read_at<uint16_t>(eh, 0x3e, path);
  if (shentsize < 64 || shstrndx >= shnum) throw InputError(path + ": bad section table");
  std::vector<uint8_t> sh = read_range(f, shoff, uint64_t{shentsize} * shnum, path);
  auto field = [&](unsigned i, unsigned off) { return read_at<uint64_t>(sh, uint64_t{i} * shentsize + off, path); };
  std::vector<uint8_t> names = read_range(f, field(shstrndx, 0x18), field(shstrndx, 0x20), path);
  for (unsigned i = 0; i < shnum; ++i) {
    auto name_off = read_at<uint32_t>(sh, uint64_t{i} * shentsize, path);
    if (name_off >= names.size()) continue;
    const char* s = reinterpret_cast<const char*>(names.data() + name_off);
    if (strnlen(s, names.size() - name_off) == name.size() && name == s)
      return read_range(f, field(i, 0x18), field(i, 0x20), path);
  }
  return {};
}

}  // namespace

std::vector<std::string> relocatable_ptx(const std::string& elf_path, uint32_t cc) {
  std::vector<uint8_t> sec = elf_section(elf_path, "__nv_relfatbin");
  std::vector<std::string> out;
  uint64_t off = 0;
  for (unsigned n = 1; off + 16 <= sec.size(); ++n) {
    uint32_t magic;
    std::memcpy(&magic, sec.data() + off, 4);
    if (magic != kContainerMagic) {  // alignment padding between containers
      off += 8;
      continue;
    }
    uint16_t header;
    uint64_t payload;
    std::memcpy(&header, sec.data() + off + 6, 2);
    std::memcpy(&payload, sec.data() + off + 8, 8);
    std::string what = elf_path + " __nv_relfatbin container " + std::to_string(n);
    if (off + header + payload > sec.size()) throw InputError(what + ": runs past the section");
    auto entries = parse_container(std::span<const uint8_t>(sec.data() + off, header + payload), what);
    if (int pick = select_ptx(entries, cc); pick >= 0) out.push_back(entry_text(entries[size_t(pick)], what));
    off = (off + header + payload + 7) / 8 * 8;
  }
  return out;
}

}  // namespace ws::fatbin
