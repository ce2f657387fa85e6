"""The SArcs-era presets (c2050, titan, titanx, p100) against their public
specifications: SM count, clock and peak DRAM bandwidth, read from the
effective configuration a short run writes. Peak bandwidth is channels x
bytes per command clock x clock, where a channel moves two beats of
`dram.bus_bytes` per command clock (GDDR5: 8 B x 2 = 16 B for a 32-bit
channel; HBM2: 16 B x 2 = 32 B for a 128-bit one)."""

import subprocess
import tomllib
from pathlib import Path

import pytest

TRACE = Path(__file__).resolve().parents[2] / "examples/traces/matrixmul-32-32-trace"

# preset: (SMs, core MHz, GB/s), from the vendors' specifications cited in each preset's comments
SPECS = {"c2050": (14, 575.0, 144.0), "titan": (14, 837.0, 288.4), "titanx": (28, 1417.0, 480.0),
         "p100": (56, 1328.0, 732.0)}


@pytest.mark.parametrize("preset", sorted(SPECS))
def test_preset_matches_its_specification(tmp_path, warpsim_bin, preset):
    done = subprocess.run([warpsim_bin, "run", str(TRACE), "--gpu", preset, "--out", str(tmp_path),
                           "--format", "none", "--no-progress"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    with open(tmp_path / "config.toml", "rb") as f:
        cfg = tomllib.load(f)
    sms, mhz, gbs = SPECS[preset]
    assert cfg["gpu.sms"] == sms and cfg["clock.core_mhz"] == mhz
    peak = cfg["l2.channels"] * 2 * cfg["dram.bus_bytes"] * cfg["clock.dram_mhz"] * 1e6 / 1e9
    assert peak == pytest.approx(gbs, rel=0.005)
