// NVIDIA fat binaries as nvcc embeds them in host executables: the wrapper
// registered with __cudaRegisterFatBinary, the container it points to, and
// the container's entries (PTX text or ELF cubins, maybe compressed).
// Layout, as measured on nvcc 13 output (docs/exec.md, "Fat binaries"):
//   wrapper   {u32 magic 0x466243B1, u32 version, u64 data, u64 unused}
//   container {u32 magic 0xBA55ED50, u16 version, u16 header size, u64 payload size}
//   entry     {u16 kind, u16 ?, u32 header size, u64 payload size,
//              u32 compressed size, u32 ?, u16 ptx minor, u16 ptx major, u32 arch,
//              u32 name offset, u32 name size, u64 flags, u64 ?, u64 uncompressed size, ...}
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace ws::fatbin {

inline constexpr uint32_t kWrapperMagic = 0x466243B1;
inline constexpr uint32_t kContainerMagic = 0xBA55ED50;

enum class EntryKind : uint16_t { Ptx = 1, Elf = 2 };

enum class Compression { None, Lz4, Zstd };

struct Entry {
  EntryKind kind = EntryKind::Ptx;
  uint32_t arch = 0;              // 80 for compute_80 / sm_80
  uint16_t ptx_major = 0, ptx_minor = 0;  // PTX ISA version (PTX entries)
  uint64_t flags = 0;
  Compression compression = Compression::None;
  uint64_t offset = 0;            // of the entry header within the container
  std::span<const uint8_t> payload;  // as stored (compressed or not; padding trimmed)
  uint64_t uncompressed_size = 0; // 0 when stored uncompressed
};

// Every entry of one container. `bytes` must hold at least the whole
// container; `what` names it in errors ("fatbin #2"). Throws InputError when
// the container is malformed (bad magic, sizes past the end, ...).
std::vector<Entry> parse_container(std::span<const uint8_t> bytes, const std::string& what);

// The container a registered wrapper points to, as a byte span (its length
// comes from the container header). Throws InputError on a bad magic.
std::span<const uint8_t> container_of_wrapper(const void* wrapper, const std::string& what);

// An entry's payload as text: decompressed, trailing NULs removed.
// Throws InputError when decompression fails or the size disagrees.
std::string entry_text(const Entry& e, const std::string& what);

// Index of the PTX entry to run on a device of compute capability `cc`
// (major*10+minor): the highest PTX arch <= cc, else the lowest PTX arch.
// -1 when there is no PTX entry.
int select_ptx(const std::vector<Entry>& entries, uint32_t cc);

}  // namespace ws::fatbin
