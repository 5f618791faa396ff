#!/usr/bin/env bash
# Runs one fuzz target for SECONDS (default 600) at the lowest CPU priority.
#   fuzz/run.sh urdf 600
# cargo-fuzz wants a nightly compiler; RUSTC_BOOTSTRAP=1 lets the stable one
# accept the -Z flags it passes (see docs/fuzzing.md). An empty corpus is
# first seeded from the test files of the target's format.
set -euo pipefail
target=${1:?usage: fuzz/run.sh TARGET [SECONDS]}
seconds=${2:-600}
cd "$(dirname "$0")/.."
# Runs before the shared scratch folder left one `collide-fuzz-PID` folder each: remove them.
find "${TMPDIR:-/tmp}" -maxdepth 1 -type d -name 'collide-fuzz-[0-9]*' -exec rm -rf {} +
corpus="fuzz/corpus/$target"
mkdir -p "$corpus"
if [ -z "$(ls -A "$corpus")" ]; then
    case "$target" in
        urdf) seeds="tests/bad/*.urdf tests/robots/*.urdf tests/meshes/degenerate/*.urdf" ;;
        srdf) seeds="tests/bad/*.srdf" ;;
        mjcf) seeds="tests/bad/*.xml" ;;
        stl) seeds="tests/meshes/*.stl tests/meshes/bad/*.stl tests/meshes/degenerate/*.stl tests/bad/*.stl" ;;
        obj) seeds="tests/meshes/*.obj tests/meshes/bad/*.obj tests/bad/*.obj" ;;
        collada) seeds="tests/meshes/*.dae tests/meshes/bad/*.dae tests/bad/*.dae" ;;
        manifest) seeds="tests/bad/manifest_*.yaml robots/so100/manifest.yaml" ;;
        *) seeds="" ;;
    esac
    for f in $seeds; do cp "$f" "$corpus/"; done
fi
RUSTC_BOOTSTRAP=1 exec nice -n 19 cargo fuzz run -O "$target" -- \
    -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
    -dict="fuzz/dicts/$target.dict" -print_final_stats=1
