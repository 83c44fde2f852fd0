#!/usr/bin/env bash
# Instructions per call (callgrind) of f_adjoint, f_hvp and f_hessian on a
# few workloads (benches/hvp_instructions.rs), with hvp / adjoint and
# hessian / (n · hvp). Issue 17 asks hvp / adjoint <= 4. Also the hidden
# f_hvp_adjoint that f_hvp wraps, which writes into the caller's buffers as
# f_adjoint does (f_hvp also allocates the returned Vecs, which its caller
# frees: that is most of the n = 2 row).
#
# Usage: benches/hvp_instructions.sh
# ROWS="rosenbrock:100 newton:1" narrows the rows.
set -euo pipefail
cd "$(dirname "$0")/.."

rows=${ROWS:-"rosenbrock:2 rosenbrock:100 rosenbrock:10000 springs:1000 newton:1"}
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

echo "| workload | n | adjoint Ir | hvp Ir | hvp / adjoint | hvp_adjoint Ir | hvp_adjoint / adjoint | hessian Ir | hessian / (n · hvp) |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for row in $rows; do
    workload=${row%%:*}
    n=${row##*:}
    adjoint=$(count "$workload" "$n" adjoint)
    hvp=$(count "$workload" "$n" hvp)
    kernel=$(count "$workload" "$n" kernel)
    if [ "$n" -le 1000 ]; then
        hessian=$(count "$workload" "$n" hessian)
        per=$(awk -v h="$hessian" -v p="$hvp" -v n="$n" 'BEGIN { printf "%.2f", h / (n * p) }')
    else
        hessian=—
        per=—
    fi
    ratio=$(awk -v a="$adjoint" -v h="$hvp" 'BEGIN { printf "%.2f", h / a }')
    kratio=$(awk -v a="$adjoint" -v h="$kernel" 'BEGIN { printf "%.2f", h / a }')
    echo "| $workload | $n | $adjoint | $hvp | $ratio | $kernel | $kratio | $hessian | $per |"
done
