// Warp-level matrix fragments (wmma, mma.sync): which matrix element each
// lane holds in each fragment slot, how slots pack into registers, and the
// matrix multiply-accumulate over a whole warp's fragments.
//
// mma.sync layouts are the PTX ISA's ("Matrix Fragments for mma.m16n8k*"):
// with g = lane / 4 and t = lane % 4, A rows are g and g + 8, columns run
// along t; B columns are g, rows run along t. wmma leaves its layout
// unspecified (only load, store and mma must agree), so warpsim uses a plain
// one: slot e of lane l holds row-major element (e mod U) * 32 + l, with U
// = rows * cols / 32 the distinct elements per lane (f16 A/B fragments of
// m16n16k16 hold each element twice, as the PTX register counts imply).
#pragma once
#include <cstdint>

namespace ws::exec::emu::tensor {

enum class Operand : uint8_t { A, B, C };  // C also describes D
enum class Elem : uint8_t { F16, BF16, TF32, F32, F64, S8, U8, S32 };
enum class Family : uint8_t { Wmma, MmaSync };

// One operand's fragment of one instruction shape.
struct FragSpec {
  uint8_t m = 0, n = 0, k = 0;
  Operand op = Operand::A;
  Elem elem = Elem::F16;
  Family family = Family::Wmma;
  bool col_major = false;  // wmma.load/store: the layout in memory; mma.m8n8k4 f16 A/B: the fragment's layout

  // Volta's mma.m8n8k4 with f16 inputs: four products, one per quad pair.
  bool quad_pair() const { return family == Family::MmaSync && m == 8 && elem != Elem::F64; }

  unsigned rows() const { return op == Operand::B ? k : m; }
  unsigned cols() const { return op == Operand::A ? k : n; }
  // Distinct matrix elements each lane holds (a quad pair's 8 lanes share one matrix).
  unsigned unique_per_lane() const { return rows() * cols() / (quad_pair() ? 8 : 32); }
  uint32_t pack() const;
  static FragSpec unpack(uint32_t bits);
};

unsigned elem_bits(Elem e);
// Fragment slots one register holds (two f16 in a .b32, one f64 in a .b64).
inline unsigned elems_per_reg(Elem e) { return e == Elem::F64 ? 1 : 32 / elem_bits(e); }
bool is_integer(Elem e);

struct Coord {
  unsigned row, col;
};
// The matrix element held in slot `slot` of `lane` (in its quad pair's
// matrices for the quad-pair form).
Coord coord(const FragSpec& f, unsigned lane, unsigned slot);
// Which of the warp's independent products a lane takes part in (0 but for quad pairs).
inline unsigned product_of(const FragSpec& f, unsigned lane) { return f.quad_pair() ? lane % 16 / 4 : 0; }

// Slot `slot` of a fragment held in registers `regs` (per-lane values), as a double.
double read_slot(Elem e, const uint64_t* const* regs, unsigned lane, unsigned slot);
// Writes `v` (rounded to nearest for narrower floats) into a slot.
void write_slot(Elem e, uint64_t* const* regs, unsigned lane, unsigned slot, double v);
// Raw bits of a slot and storing raw bits (memory moves: no conversion).
uint64_t slot_bits(Elem e, const uint64_t* const* regs, unsigned lane, unsigned slot);
void set_slot_bits(Elem e, uint64_t* const* regs, unsigned lane, unsigned slot, uint64_t bits);
// The value an element of type `e` with raw bits `bits` stands for.
double bits_value(Elem e, uint64_t bits);

// D = A x B + C over the warp's fragments. Float sums are formed in double
// precision (products of f16/bf16/tf32 are exact there) and rounded once to
// D's type; integer sums are exact and wrap to 32 bits, or clamp with
// `satfinite` (which also clamps float infinities to the largest finite).
struct MmaOperands {
  FragSpec a, b, c, d;
  const uint64_t* const* ra;
  const uint64_t* const* rb;
  const uint64_t* const* rc;
  uint64_t* const* rd;
  unsigned na, nb, nc, nd;  // slots per lane in each fragment
  bool satfinite = false;
};
void warp_mma(const MmaOperands& o, uint32_t write_mask);

}  // namespace ws::exec::emu::tensor
