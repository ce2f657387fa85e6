#include "frontend/ptx/ast.h"

#include <array>
#include <string_view>

namespace ws::ptx {
namespace {

struct TypeInfo {
  Type type;
  const char* name;
  unsigned size;
};

constexpr std::array<TypeInfo, 22> kTypes = {{
    {Type::None, "", 0},       {Type::Pred, "pred", 1},     {Type::B8, "b8", 1},       {Type::B16, "b16", 2},
    {Type::B32, "b32", 4},     {Type::B64, "b64", 8},       {Type::B128, "b128", 16},  {Type::U8, "u8", 1},
    {Type::U16, "u16", 2},     {Type::U32, "u32", 4},       {Type::U64, "u64", 8},     {Type::S8, "s8", 1},
    {Type::S16, "s16", 2},     {Type::S32, "s32", 4},       {Type::S64, "s64", 8},     {Type::F16, "f16", 2},
    {Type::F16x2, "f16x2", 4}, {Type::BF16, "bf16", 2},     {Type::BF16x2, "bf16x2", 4}, {Type::TF32, "tf32", 4},
    {Type::F32, "f32", 4},     {Type::F64, "f64", 8},
}};

const TypeInfo& info(Type t) { return kTypes[static_cast<size_t>(t)]; }

}  // namespace

unsigned type_size(Type t) { return info(t).size; }

const char* type_name(Type t) { return info(t).name; }

Type type_from_name(const std::string& s) {
  std::string_view v = s;
  if (!v.empty() && v[0] == '.') v.remove_prefix(1);
  if (v.empty()) return Type::None;
  for (const TypeInfo& ti : kTypes)
    if (v == ti.name) return ti.type;
  return Type::None;
}

const char* space_name(StateSpace s) {
  switch (s) {
    case StateSpace::None: return "";
    case StateSpace::Reg: return "reg";
    case StateSpace::Sreg: return "sreg";
    case StateSpace::Const: return "const";
    case StateSpace::Global: return "global";
    case StateSpace::Local: return "local";
    case StateSpace::Param: return "param";
    case StateSpace::Shared: return "shared";
    case StateSpace::Tex: return "tex";
    case StateSpace::Generic: return "generic";
  }
  return "";
}

const Function* Module::find_function(const std::string& name) const {
  for (const Function& f : functions)
    if (f.name == name) return &f;
  return nullptr;
}

const Variable* Module::find_global(const std::string& name) const {
  for (const Variable& v : globals)
    if (v.name == name) return &v;
  return nullptr;
}

}  // namespace ws::ptx
