"""The third-party modules the package needs, and the Debian packages that provide them."""

from __future__ import annotations

import importlib.util

DEBIAN_PACKAGES = {"pandas": "python3-pandas", "numpy": "python3-numpy", "matplotlib": "python3-matplotlib"}


def missing_modules() -> list[str]:
    return [m for m in DEBIAN_PACKAGES if importlib.util.find_spec(m) is None]


def missing_message(missing: list[str]) -> str:
    import sys
    packages = " ".join(DEBIAN_PACKAGES[m] for m in missing)
    return (f"warpsim: {sys.executable} lacks the Python modules {', '.join(missing)}; on Debian: "
            f"sudo apt-get install {packages} (or set WARPSIM_PYTHON to an interpreter that has them)")
