"""python3 -m warpsim: the mapping page and missing third-party modules."""

from pathlib import Path

import warpsim.__main__ as cli


def test_missing_modules_name_the_debian_packages(monkeypatch, capsys):
    monkeypatch.setattr(cli, "missing_modules", lambda: ["pandas", "matplotlib"])
    assert cli.main(["correlate", "--sim", "a", "--hw", "b"]) == 3
    err = capsys.readouterr().err
    assert "lacks the Python modules pandas, matplotlib" in err
    assert "sudo apt-get install python3-pandas python3-matplotlib" in err


def test_mapping_doc_is_up_to_date(capsys):
    """docs/metric-mapping.md is generated from data/metrics.toml; regenerate it when this fails."""
    assert cli.main(["mapping", "--markdown"]) == 0
    doc = Path(__file__).resolve().parents[2] / "docs" / "metric-mapping.md"
    assert capsys.readouterr().out == doc.read_text(), \
        "run: PYTHONPATH=python python3 -m warpsim mapping --markdown > docs/metric-mapping.md"
