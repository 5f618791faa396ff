#!/usr/bin/env bash
# Wall-clock timings of the whole-pipeline targets (release build, best of N runs).
# Usage: scripts/bench-pipeline.sh [runs]   (run by `make bench` after the criterion benches)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
bin=target/release/collide
erd=.robots/site/cmeel.prefix/share/example-robot-data/robots
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# best_of LABEL TARGET COMMAND...: the fastest of $runs runs, in seconds.
best_of() {
    local label=$1 target=$2; shift 2
    local best=""
    for _ in $(seq "$runs"); do
        local start end t
        start=$(date +%s.%N)
        "$@" >/dev/null 2>&1 || { echo "$label: command failed: $*" >&2; exit 1; }
        end=$(date +%s.%N)
        t=$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')
        if [ -z "$best" ] || awk -v t="$t" -v b="$best" 'BEGIN { exit !(t < b) }'; then best=$t; fi
    done
    printf '| %s | %.2f s | %s |\n' "$label" "$best" "$target"
}

# Lowering the fleet into a scratch copy (the committed manifests carry the tight links).
lower_fleet() {
    for dir in robots/*/; do
        r=$(basename "$dir")
        mkdir -p "$scratch/$r"
        cp "$dir/robot.yaml" "$dir/manifest.yaml" "$scratch/$r/"
        $bin lower "$scratch/$r/robot.yaml" --write -q
    done
}

echo "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p'), $(date -u +%Y-%m-%d)"
echo
echo "| what | best of $runs | target |"
echo "|---|---|---|"
best_of "inspect, whole example-robot-data tree (69 URDF)" "< 5 s" bash -c "$bin inspect $erd -q || [ \$? = 2 ]"
mkdir -p "$scratch/g1" && cp robots/g1_29dof/robot.yaml robots/g1_29dof/manifest.yaml "$scratch/g1/"
best_of "lower G1 29-dof (re-lower the committed manifest, refinement check included)" "< 30 s" $bin lower "$scratch/g1/robot.yaml" -q
best_of "lower the committed fleet (12 robots, re-lowered)" "< 3 min" lower_fleet
best_of "acm regenerate G1 29-dof" "< 10 s" $bin acm regenerate robots/g1_29dof/robot.yaml -q
best_of "verify the committed fleet (12 manifests)" "< 10 s" $bin verify robots/*/manifest.yaml -q
