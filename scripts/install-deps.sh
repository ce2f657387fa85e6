#!/usr/bin/env bash
# Installs the Debian packages warpsim needs, if any is missing.
# As root it runs apt-get; otherwise it prints the exact command to run.
set -euo pipefail
PKGS=(cmake ninja-build g++ clang pkg-config make python3
      libtomlplusplus-dev libcli11-dev libfmt-dev nlohmann-json3-dev liblzma-dev xz-utils
      libzstd-dev liblz4-dev
      libgtest-dev libgmock-dev libbenchmark-dev libclang-rt-14-dev
      python3-pandas python3-numpy python3-matplotlib python3-pytest ccache
      slurm-wlm munge)
# slurm-wlm and munge: the sweep's Slurm test (python/tests/test_sweep_slurm.py)
# starts its own munged, slurmctld and slurmd on free ports from a temporary
# folder; the system services the packages install are not used.
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "warpsim: installing missing packages: ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}"
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
  sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
else
  echo "warpsim: please run: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
