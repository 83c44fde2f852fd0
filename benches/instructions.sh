#!/usr/bin/env bash
# Instruction counts (callgrind) of the generated adjoint, the hand-written
# gradient and the primal, per workload, and their ratios. Repeatable on a
# shared machine where wall time is not. Usage: benches/instructions.sh
set -euo pipefail
cd "$(dirname "$0")/.."
binary=$(cargo bench --bench instructions --no-run 2>&1 | grep -o 'target/release/deps/instructions-[0-9a-f]*' | head -n 1)
out=$(mktemp -d)
count() {
    valgrind --tool=callgrind --callgrind-out-file="$out/$1-$2" --toggle-collect='instructions::measured' \
        "$binary" "$1" "$2" >/dev/null 2>&1
    callgrind_annotate "$out/$1-$2" 2>/dev/null | grep -m1 'PROGRAM TOTALS' | awk '{gsub(",", "", $1); print $1}'
}
echo "| workload | primal Ir | hand-written Ir | adjoint Ir | adjoint / hand-written | adjoint / primal |"
echo "| --- | --- | --- | --- | --- | --- |"
for workload in rosenbrock mlp newton; do
    primal=$(count "$workload" primal)
    hand=$(count "$workload" hand_written)
    adjoint=$(count "$workload" macro_adjoint)
    awk -v w="$workload" -v p="$primal" -v h="$hand" -v a="$adjoint" \
        'BEGIN { printf "| %s | %d | %d | %d | %.2f | %.2f |\n", w, p, h, a, a / h, a / p }'
done
rm -rf "$out"
