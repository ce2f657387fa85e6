"""The three nvprof CSV shapes, as nvprof lays them out (header, optional units line, rows)."""

import pytest
from conftest import sim_kernel, write_run

from warpsim.correlate import correlate, detect_format
from warpsim.errors import InputError
from warpsim.mapping import load_mapping
from warpsim.nvprof import read_nvprof

TRACE = '''==9== NVPROF is profiling process 9, command: ./app
==9== Profiling application: ./app
==9== Profiling result:
"Start","Duration","Grid X","Grid Y","Grid Z","Block X","Block Y","Block Z","Registers Per Thread","Static SMem","Dynamic SMem","Size","Throughput","SrcMemType","DstMemType","Device","Context","Stream","Name","Correlation_ID"
ms,us,,,,,,,,KB,B,MB,GB/s,,,,,,,
0.100,9.000,,,,,,,,,,0.400,2.1,"Pageable","Device","Tesla V100 (0)","1","7","[CUDA memcpy HtoD]",1
0.200,1.500,100,1,1,32,1,1,16,0,0,,,,,"Tesla V100 (0)","1","7","vecAdd(float*, float*, float*, int)",2
0.300,4.000,100,1,1,32,1,1,16,0,0,,,,,"Tesla V100 (0)","1","7","vecAdd(float*, float*, float*, int)",3
'''

SUMMARY = '''==9== Profiling result:
==9== Event result:
"Device","Kernel","Invocations","Event Name","Min","Max","Avg","Total"
"Tesla V100 (0)","vecAdd(float*, float*, float*, int)",2,"elapsed_cycles_sm",80000,160000,120000,240000
==9== Metric result:
"Device","Kernel","Invocations","Metric Name","Metric Description","Min","Max","Avg"
"Tesla V100 (0)","vecAdd(float*, float*, float*, int)",2,"inst_executed","Instructions Executed",10,10,10
"Tesla V100 (0)","vecAdd(float*, float*, float*, int)",2,"l2_tex_hit_rate","L2 Hit Rate",50.00%,70.00%,60.00%
'''

WIDE = '''"Device","Context","Stream","Kernel","Correlation_ID","elapsed_cycles_sm","dram_read_transactions"
"Tesla V100 (0)","1","7","vecAdd(float*, float*, float*, int)","2","80,000","1,000"
"Tesla V100 (0)","1","7","vecAdd(float*, float*, float*, int)","3","160,000","3,000"
'''


@pytest.fixture
def run(tmp_path):
    # 80 SMs at 1000 MHz: 1 cycle = 1 ns.
    return write_run(tmp_path / "app", [sim_kernel("_Z6vecAddPfS_S_i", 1000, 10, dram_reads=1100, l2_hit=66.0),
                                        sim_kernel("_Z6vecAddPfS_S_i", 2000, 10, dram_reads=3300, l2_hit=66.0)])


def _csv(tmp_path, text):
    path = tmp_path / "nvprof.csv"
    path.write_text(text)
    return path


def test_gpu_trace_durations_skip_copies_and_convert_units(tmp_path):
    p = read_nvprof(str(_csv(tmp_path, TRACE)), load_mapping())
    assert [k.values["duration"] for k in p.kernels] == [1500.0, 4000.0]    # us -> ns
    assert [k.line for k in p.kernels] == [7, 8] and p.kernels[0].grid == (100, 1, 1)


def test_gpu_trace_correlates_durations(run, tmp_path):
    c = correlate(str(run), str(_csv(tmp_path, TRACE)))
    # simulated 1000 and 2000 ns against 1500 and 4000 ns: errors -1/3 and -1/2.
    assert c.summary["duration"].mae == pytest.approx((1 / 3 + 1 / 2) / 2 * 100)


def test_summary_compares_averages_and_divides_sm_cycles(run, tmp_path):
    path = _csv(tmp_path, SUMMARY)
    assert detect_format(str(path)) == "nvprof"
    c = correlate(str(run), str(path))
    cycles = c.values[c.values.metric == "cycles"].iloc[0]
    # elapsed_cycles_sm sums over the 80 SMs: 120000 / 80 = 1500; simulated mean (1000 + 2000) / 2.
    assert (cycles.hw, cycles.sim) == (1500.0, 1500.0)
    assert c.summary["l2_hit_rate"].mae == pytest.approx(6.0)          # 66 - 60 points
    assert c.matching.notes == []                                       # 2 invocations, 2 simulated


def test_trace_with_metric_columns(run, tmp_path):
    c = correlate(str(run), str(_csv(tmp_path, WIDE)))
    dram = c.values[c.values.metric == "dram_read_sectors"]
    assert list(dram.hw) == [1000.0, 3000.0] and c.summary["dram_read_sectors"].mae == pytest.approx(10.0)


def test_summary_with_unknown_metric_names_row_and_column(run, tmp_path):
    path = _csv(tmp_path, SUMMARY.replace('"inst_executed"', '"achieved_occupancy"'))
    with pytest.raises(InputError) as e:
        correlate(str(run), str(path))
    assert (e.value.line, e.value.column) == (7, "Metric Name") and "'achieved_occupancy'" in str(e.value)


def test_summary_rows_for_two_template_instances_are_not_both_matched(run, tmp_path):
    two = SUMMARY + ('"Tesla V100 (0)","void vecAdd<double>(double*, double*, double*, int)",1,"inst_executed",'
                     '"Instructions Executed",10,10,10\n')
    c = correlate(str(run), str(_csv(tmp_path, two)), allow_unmatched=True)
    assert [(u.line, u.reason) for u in c.matching.unmatched] == [(9, "line 4 already stands for every simulated 'vecAdd'")]
