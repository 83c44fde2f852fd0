#!/usr/bin/env bash
# Instruction counts (callgrind) per call of each variant of each row of the
# bench suite (benches/common/suite.rs), and their ratios to the hand-written
# gradient and of the gradients to the primal. Repeatable on a shared
# machine where wall time is not.
#
# Usage: benches/instructions.sh [variant...]
#   default variants: primal hand_written macro_adjoint tape tape_fresh
#   all of them:      benches/instructions.sh all
#   nested workloads: benches/instructions.sh nested   (primal, hand_written,
#                     macro_adjoint on the nested rows, one call per count)
# ROWS="mlp:100 newton:30" narrows the rows (default: the ten rows of the
# flat workloads; with `nested`, the 40 nested rows).
set -euo pipefail
cd "$(dirname "$0")/.."

nested_rows="gmm_d2_k5:1000 gmm_d2_k50:1000 gmm_d2_k200:1000 gmm_d10_k5:1000 gmm_d10_k50:100 gmm_d10_k200:100 gmm_d20_k5:1000 gmm_d20_k50:100 gmm_d20_k200:10 gmm_d64_k5:100 gmm_d64_k50:10 gmm_d64_k200:10 lstm_b8:16 lstm_b32:64 heat_n100:100 heat_n1000:100 trisolve:10 trisolve:100 trisolve:500 product:10 product:30 product:100 pairs:100 pairs:1000 kmeans_d4_k8:1000 kmeans_d16_k32:1000 softmax_p8_c10:1000 softmax_p64_c10:100 chebyshev_m12:1000 chebyshev_m40:1000 cutoff:125 cutoff:512 gauss_seidel:100 gauss_seidel:1000 adbench_lstm_l2_b14:64 adbench_lstm_l4_b14:256 adbench_lstm_l2_b128:64 colsolve:10 colsolve:100 colsolve:500"
if [ "${1:-}" = nested ]; then
    # the nested workloads (benches/nested.rs): one call per count
    ROWS=${ROWS:-$nested_rows}
    INSTRUCTIONS_REPEATS=${INSTRUCTIONS_REPEATS:-1}
    set -- macro_adjoint
fi
if [ "$#" -eq 0 ]; then
    set -- macro_adjoint tape tape_fresh
elif [ "$1" = all ]; then
    set -- macro_adjoint tape tape_fresh closure_graph reverse num_dual
fi
# The ratios need these two, so they are always counted, first.
variants=(primal hand_written)
for v in "$@"; do
    case $v in primal | hand_written) ;; *) variants+=("$v") ;; esac
done
rows=${ROWS:-"rosenbrock:2 rosenbrock:10 rosenbrock:100 rosenbrock:1000 rosenbrock:10000 dot_zip:1000 dot_loop:1000 mlp:100 newton:30 springs:1000"}
# Calls per count (REPEATS in benches/instructions.rs, 10 unless
# INSTRUCTIONS_REPEATS says otherwise: 1 for the big nested rows).
repeats=${INSTRUCTIONS_REPEATS:-10}
export INSTRUCTIONS_REPEATS=$repeats

binary=$(cargo bench --bench instructions --no-run 2>&1 |
    grep -o '[^ (]*/release/deps/instructions-[0-9a-f]*' | head -n 1)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Instructions per call, or "-" if the row has no such variant.
count() {
    local file="$out/$1-$2-$3"
    if ! valgrind --tool=callgrind --callgrind-out-file="$file" \
        --toggle-collect='instructions::measured' "$binary" "$1" "$2" "$3" >/dev/null 2>&1; then
        echo -
        return
    fi
    callgrind_annotate "$file" 2>/dev/null | grep -m1 'PROGRAM TOTALS' |
        awk -v r="$repeats" '{ gsub(",", "", $1); printf "%.0f\n", $1 / r }'
}

# a / b to two decimals, or a dash if either is missing.
ratio() {
    if [ "$1" = - ] || [ "$2" = - ] || [ -z "$1" ] || [ -z "$2" ]; then
        echo —
    else
        awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'
    fi
}

header="| workload | n |"
rule="| --- | --- |"
for v in "${variants[@]}"; do
    header="$header $v Ir |"
    rule="$rule --- |"
done
for v in "${variants[@]}"; do
    case $v in primal | hand_written) ;; *)
        header="$header $v / hand |"
        rule="$rule --- |"
        ;;
    esac
done
echo "$header macro_adjoint / primal | hand_written / primal |"
echo "$rule --- | --- |"
for row in $rows; do
    workload=${row%%:*}
    param=${row##*:}
    declare -A ir=()
    for v in "${variants[@]}"; do
        ir[$v]=$(count "$workload" "$param" "$v")
    done
    line="| $workload | $param |"
    for v in "${variants[@]}"; do
        line="$line ${ir[$v]} |"
    done
    for v in "${variants[@]}"; do
        case $v in primal | hand_written) ;; *)
            line="$line $(ratio "${ir[$v]}" "${ir[hand_written]}") |"
            ;;
        esac
    done
    adjoint=${ir[macro_adjoint]:--}
    line="$line $(ratio "$adjoint" "${ir[primal]}") | $(ratio "${ir[hand_written]}" "${ir[primal]}") |"
    echo "$line"
    unset ir
done
