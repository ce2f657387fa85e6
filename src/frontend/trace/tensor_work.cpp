#include "frontend/trace/tensor_work.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace ws::frontend {

namespace {

// Takes a leading number from `s` that is one of `options`.
bool take_dim(std::string_view& s, std::initializer_list<unsigned> options, unsigned& out) {
  for (unsigned v : options) {
    unsigned digits = v >= 100 ? 3 : v >= 10 ? 2 : 1;
    if (s.size() < digits) continue;
    unsigned got = 0;
    for (unsigned i = 0; i < digits; ++i) got = got * 10 + static_cast<unsigned>(s[i] - '0');
    if (got == v) {
      s.remove_prefix(digits);
      out = v;
      return true;
    }
  }
  return false;
}

// The f16-rate multiplier of an input-type token (0 when it is not one).
double rate_factor(std::string_view t) {
  if (t == "TF32") return 2.0;
  if (t == "S8" || t == "U8") return 0.5;
  if (t == "S4" || t == "U4") return 0.25;
  if (t == "F64") return 16.0;
  return 0.0;
}

}  // namespace

bool parse_mma_shape(std::string_view digits, unsigned& m, unsigned& n, unsigned& k) {
  if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return false;
  std::string_view s = digits;
  if (!take_dim(s, {16, 32, 8}, m) || !take_dim(s, {16, 32, 8}, n)) return false;
  for (unsigned v : {4u, 8u, 16u, 32u, 64u, 128u, 256u})
    if (s == std::to_string(v)) return k = v, true;
  return false;
}

uint8_t tensor_work_of(std::string_view opcode) {
  std::string_view base = opcode.substr(0, opcode.find('.'));
  if (base.size() < 3 || base.substr(base.size() - 3) != "MMA") return 0;
  unsigned m = 0, n = 0, k = 0;
  double factor = base == "DMMA" ? 16.0 : 1.0, products = 1.0;
  bool shaped = false;
  for (size_t at = base.size(); at < opcode.size();) {
    size_t end = opcode.find('.', at + 1);
    std::string_view tok = opcode.substr(at + 1, end == std::string_view::npos ? end : end - at - 1);
    if (tok == "QUADPAIR") products = 4.0;  // warpsim's name for Volta's mma.m8n8k4: one product per quad pair
    else if (!shaped) shaped = parse_mma_shape(tok, m, n, k);
    else if (double f = rate_factor(tok); f != 0 && factor == 1.0) factor = f;
    at = end == std::string_view::npos ? opcode.size() : end;
  }
  if (!shaped) return 0;
  double units = std::ceil(double(m) * n * k * factor * products / ir::kTensorWorkUnit);
  return static_cast<uint8_t>(std::clamp(units, 1.0, 255.0));
}

}  // namespace ws::frontend
