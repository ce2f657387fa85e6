// Linking separately compiled PTX units (-rdc=true).
#include <gtest/gtest.h>

#include "common/error.h"
#include "frontend/ptx/link.h"
#include "frontend/ptx/parser.h"

namespace ws::ptx {
namespace {

const char* kHeader = ".version 9.0\n.target sm_80\n.address_size 64\n";

Module unit(const std::string& body, const std::string& name) { return parse_module(kHeader + body, name); }

TEST(PtxLink, ExternDeclarationsResolveAndInternalNamesStayApart) {
  Module a = unit(R"(
.extern .func (.param .b32 r) twice(.param .b32 x);
.extern .global .align 4 .u32 counter;
.global .align 1 .b8 $str[3] = {104, 105, 0};
.visible .entry k()
{
  .reg .b64 %rd<2>;
  mov.u64 %rd1, $str;
  mov.u64 %rd1, counter;
  ret;
}
)", "a.ptx");
  Module b = unit(R"(
.global .align 1 .b8 $str[3] = {121, 111, 0};
.visible .global .align 4 .u32 counter;
.visible .func (.param .b32 r) twice(.param .b32 x)
{
  .reg .b64 %rd<2>;
  mov.u64 %rd1, $str;
  ret;
}
)", "b.ptx");
  Module m = link_modules({std::move(a), std::move(b)}, "linked");
  // Both units' $str survive under distinct names; the extern declarations are gone.
  ASSERT_EQ(m.globals.size(), 3u);
  EXPECT_EQ(m.globals[0].name, "$str$unit0");
  EXPECT_EQ(m.globals[1].name, "$str$unit1");
  EXPECT_EQ(m.globals[2].name, "counter");
  EXPECT_FALSE(m.globals[2].is_extern);
  ASSERT_EQ(m.functions.size(), 2u);
  const Function* k = m.find_function("k");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->body[0].ops[1].symbol, "$str$unit0");
  EXPECT_EQ(k->body[1].ops[1].symbol, "counter");  // visible names are shared
  const Function* twice = m.find_function("twice");
  ASSERT_NE(twice, nullptr);
  EXPECT_FALSE(twice->is_extern);
  EXPECT_EQ(twice->body[0].ops[1].symbol, "$str$unit1");
}

TEST(PtxLink, TwoDefinitionsOfAVisibleNameAreAnError) {
  Module a = unit(".visible .global .align 4 .u32 g;\n", "a.ptx");
  Module b = unit(".visible .global .align 4 .u32 g;\n", "b.ptx");
  try {
    link_modules({std::move(a), std::move(b)}, "linked");
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("a.ptx"), std::string::npos) << msg;
    EXPECT_NE(msg.find("b.ptx"), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace ws::ptx
