#!/usr/bin/env bash
# Runs the Python package's tests (python/tests) with an interpreter that has
# what they import; ctest runs this as the test `python.pytest`.
# WARPSIM_BIN names the built CLI for the end-to-end tests.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
probe='import importlib.util as u, sys; sys.exit(0 if all(u.find_spec(m) for m in ("pandas", "numpy", "matplotlib", "pytest")) else 3)'
python=""
for candidate in ${WARPSIM_PYTHON:-} python3 /usr/bin/python3; do
  if "$candidate" -c "$probe" 2>/dev/null; then python="$candidate"; break; fi
done
if [[ -z "$python" ]]; then
  echo "pytest.sh: no python3 with pandas, numpy, matplotlib and pytest; on Debian:" \
       "sudo apt-get install python3-pandas python3-numpy python3-matplotlib python3-pytest" >&2
  exit 1
fi
cd "$root/python"
# No cache folder in the source tree; Agg so that no display is looked for.
exec env MPLBACKEND=Agg "$python" -m pytest -q -p no:cacheprovider tests "$@"
