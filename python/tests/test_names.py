"""Kernel names in the forms the trace, ncu and nvprof print reduce to the same key."""

import pytest

from warpsim.names import kernel_name


@pytest.mark.parametrize("printed, base", [
    ("_Z8mult_gpuIfEvPT_S1_S1_ii", "mult_gpu"),                      # trace: mangled template
    ("void mult_gpu<float>(float*, float*, float*, int, int)", "mult_gpu"),   # ncu default: demangled
    ("mult_gpu", "mult_gpu"),                                        # ncu --print-kernel-base function
    ("void add_bias<256, 1>(...)", "add_bias"),                      # parameters elided
    ("_ZN3cub11EmptyKernelIvEEvv", "EmptyKernel"),                    # namespaced, template args
    ("void cub::EmptyKernel<void>()", "EmptyKernel"),
    ("_ZN2ns6detail6reduceILi256EN3foo3BarEEEvPKfPf", "reduce"),      # literal and nested template args
    ("void ns::detail::reduce<256, foo::Bar>(const float*, float*)", "reduce"),
    ("_ZL11static_kernPi", "static_kern"),                            # internal linkage
    ("(anonymous namespace)::helper(int)", "helper"),
])
def test_base_names(printed, base):
    assert kernel_name(printed).base == base
    assert not kernel_name(printed).truncated


def test_cut_short_name_matches_by_prefix():
    k = kernel_name("void a_very_long_kernel_na...")
    assert k.truncated and k.matches("a_very_long_kernel_name") and not k.matches("other")


def test_name_cut_in_its_parameters_keeps_the_whole_function_name():
    k = kernel_name("void scale<float>(float*, int, flo...")
    assert k == kernel_name("scale") and not k.matches("scale_more")
