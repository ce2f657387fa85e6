"""Profiler units and the error statistics' corner cases."""

import math

import numpy as np
import pytest

from warpsim.accuracy import accuracy, errors
from warpsim.mapping import load_mapping


def test_units_with_si_prefixes():
    m = load_mapping()
    assert m.unit_scale("usecond") == ("ns", 1e3)
    assert m.unit_scale("Kcycle") == ("cycle", 1e3)       # ncu's automatic scaling
    assert m.unit_scale("Msector") == ("sector", 1e6)
    assert m.unit_scale("furlong") is None


def test_zero_measured_count():
    # hw 0 and sim 0 is no error; hw 0 and sim 5 has no relative error and is set aside.
    err = errors(np.array([0.0, 0.0, 10.0]), np.array([0.0, 5.0, 12.0]), "count")
    assert err[0] == 0 and math.isnan(err[1]) and err[2] == pytest.approx(0.2)
    a = accuracy([0.0, 0.0, 10.0], [0.0, 5.0, 12.0], "count")
    assert a.skipped == 1 and a.mae == pytest.approx((0 + 20) / 2)


def test_pearson_needs_two_varying_points():
    assert math.isnan(accuracy([5.0], [6.0], "count").pearson)
    assert math.isnan(accuracy([5.0, 5.0], [6.0, 7.0], "count").pearson)
    assert accuracy([1.0, 2.0, 3.0], [3.0, 2.0, 1.0], "count").pearson == pytest.approx(-1.0)
