#!/usr/bin/env bash
# Instructions per call (callgrind) of f_jacobian of tall residual vectors
# (m data points, n = 4 or 2 parameters: computed by columns in forward
# mode) against the Jacobian by rows from m vector-Jacobian products
# f_adjoint(e_i) (reverse mode), and one f_adjoint (benches/hvp_instructions.rs).
#
# Usage: benches/jacobian_instructions.sh
# ROWS="peak:100" narrows the rows.
set -euo pipefail
cd "$(dirname "$0")/.."

rows=${ROWS:-"peak:10 peak:100 peak:1000 exp_model:10 exp_model:100 exp_model:1000"}
repeats=10 # REPEATS in benches/hvp_instructions.rs

binary=$(cargo bench --bench hvp_instructions --no-run 2>&1 |
    grep -o '[^ (]*/release/deps/hvp_instructions-[0-9a-f]*' | head -n 1)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

count() {
    local file="$out/$1-$2-$3"
    valgrind --tool=callgrind --callgrind-out-file="$file" \
        --toggle-collect='hvp_instructions::measured' "$binary" "$1" "$2" "$3" >/dev/null 2>&1
    callgrind_annotate "$file" 2>/dev/null | grep -m1 'PROGRAM TOTALS' |
        awk -v r="$repeats" '{ gsub(",", "", $1); printf "%.0f\n", $1 / r }'
}

echo "| workload | m | n | f_jacobian Ir (columns) | m × f_adjoint Ir (rows) | rows / columns | f_adjoint Ir | f_jacobian / f_adjoint |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for row in $rows; do
    workload=${row%%:*}
    m=${row##*:}
    case $workload in peak) n=4 ;; *) n=2 ;; esac
    jacobian=$(count "$workload" "$m" jacobian)
    byrows=$(count "$workload" "$m" rows)
    adjoint=$(count "$workload" "$m" adjoint)
    ratio=$(awk -v a="$byrows" -v b="$jacobian" 'BEGIN { printf "%.1f", a / b }')
    per=$(awk -v a="$jacobian" -v b="$adjoint" 'BEGIN { printf "%.2f", a / b }')
    echo "| $workload | $m | $n | $jacobian | $byrows | $ratio | $adjoint | $per |"
done
