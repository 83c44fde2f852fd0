#!/usr/bin/env bash
# Compile-time cost of #[differentiable] (issue #8, item 4), on the ~200-line
# `landing_cost` in benches/compile_cost/big.rs. Prints markdown tables of:
#
# 1. Size: lines (as written; pretty-printed by prettyplease) and tokens of
#    the input function and of its expansion (the function + `_grad` +
#    `_adjoint`), from the ignored test autograd-macros/src/compile_cost_tests.rs.
# 2. Expansion time alone: `expand::differentiable` called in-process on the
#    function, min / median wall time of 50 expansions, with the macro built
#    unoptimized (as cargo builds proc macros by default, in debug and in
#    release: build-override opt-level 0) and optimized (--release); and
#    callgrind instructions of one unoptimized expansion (repeatable), when
#    valgrind and jq are installed.
# 3. Compile time added: a throwaway workspace in a temp dir holds the file
#    twice, as crate `with_macro` (as written) and as crate `plain` (the same
#    code with the `#[differentiable]` lines removed), both depending on
#    autograd by path. After the dependencies are built, each crate's
#    source is touched and the crate alone rebuilt (CARGO_INCREMENTAL=0, so
#    every rebuild compiles the whole crate), interleaved, RUNS times each,
#    for `cargo check`, `cargo build` and `cargo build --release`: min /
#    median wall time of the cargo command; and, when valgrind is
#    installed, the instructions rustc executes for one such compile
#    (cachegrind through a RUSTC_WRAPPER; repeatable where wall time is not).
# 4. Machine code: `nm` sizes of landing_cost, landing_cost_grad and
#    landing_cost_adjoint in the with_macro rlib, and of all code in each
#    crate's rlib (debug and release).
#
# Usage (from anywhere; runs in the repo root): benches/compile_cost.sh
# Environment: RUNS (default 5) rebuilds per configuration. The throwaway
# crates build into target/compile_cost, so later runs reuse dependencies.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
runs=${RUNS:-5}
big=benches/compile_cost/big.rs
target_dir=${CARGO_TARGET_DIR:-$repo/target}

# --- 1 and 2: sizes and expansion time, in-process ---------------------------
# "Unoptimized" is the test profile set like cargo's build-override, with which
# it builds proc macros and their dependencies (syn, quote, ...) in debug and
# in release builds: opt-level 0, no debug assertions, no overflow checks.
unoptimized=(--config profile.test.debug-assertions=false --config profile.test.overflow-checks=false
    --config profile.test.debug=false)
measure() { # $@: cargo args; prints the test's COMPILE_COST lines
    cargo test -q "$@" -p autograd-macros --lib compile_cost_tests -- \
        --ignored --nocapture --test-threads=1 | grep '^COMPILE_COST'
}
debug_lines=$(measure "${unoptimized[@]}")
release_lines=$(measure --release)
get() { # $1: lines, $2: key
    awk -v k="$2" '$2 == k { print $3 }' <<<"$1"
}

source_lines=$(awk '/^#\[differentiable\(wrt\(params/ { on = 1 } on { n++ } on && /^}/ { print n; exit }' "$big")

echo "### Size of the expansion"
echo
echo "| | lines (pretty-printed) | tokens |"
echo "| --- | --- | --- |"
in_lines=$(get "$debug_lines" input_lines)
in_tokens=$(get "$debug_lines" input_tokens)
echo "| input \`landing_cost\` ($source_lines lines as written) | $in_lines | $in_tokens |"
for item in _primal _grad _adjoint; do
    lines=$(get "$debug_lines" "item${item}_lines")
    tokens=$(get "$debug_lines" "item${item}_tokens")
    name=landing_cost${item#_primal}
    awk -v n="$name" -v l="$lines" -v t="$tokens" -v il="$in_lines" -v it="$in_tokens" \
        'BEGIN { printf "| expansion: `%s` | %d (%.1f×) | %d (%.1f×) |\n", n, l, l / il, t, t / it }'
done
out_lines=$(get "$debug_lines" output_lines)
out_tokens=$(get "$debug_lines" output_tokens)
awk -v l="$out_lines" -v t="$out_tokens" -v il="$in_lines" -v it="$in_tokens" \
    'BEGIN { printf "| expansion, total | %d (%.1f×) | %d (%.1f×) |\n", l, l / il, t, t / it }'
echo

echo "### Expansion time (in-process, $(get "$debug_lines" iterations) expansions)"
echo
echo "| macro built | min | median | instructions (callgrind) |"
echo "| --- | --- | --- | --- |"
instructions="(needs valgrind and jq)"
if command -v valgrind >/dev/null && command -v jq >/dev/null; then
    binary=$(cargo test "${unoptimized[@]}" -p autograd-macros --lib --no-run --message-format=json |
        jq -r 'select(.profile.test == true and .target.name == "autograd_macros") | .executable')
    count() { # $1: timed expansions; prints the instructions inside expand::differentiable
        (cd autograd-macros &&
            LD_LIBRARY_PATH=$(rustc --print target-libdir) COMPILE_COST_ITERS=$1 \
                valgrind --tool=callgrind --callgrind-out-file=/dev/null \
                --toggle-collect='autograd_macros::expand::differentiable*' \
                "$binary" compile_cost_tests::compile_cost --exact --ignored --test-threads=1 2>&1 |
            sed -n 's/.*refs: *//p' | tr -d ,)
    }
    # Difference of 2 and 0 timed expansions (both do 4 untimed ones): one expansion.
    instructions=$((($(count 2) - $(count 0)) / 2))
fi
echo "| unoptimized (opt-level 0: how cargo builds proc macros) | $(get "$debug_lines" expand_min_ms) ms | $(get "$debug_lines" expand_median_ms) ms | $instructions |"
echo "| optimized (\`--release\`) | $(get "$release_lines" expand_min_ms) ms | $(get "$release_lines" expand_median_ms) ms | |"
echo

# --- 3: compile time added ----------------------------------------------------
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/Cargo.toml" <<EOF
[workspace]
members = ["with_macro", "plain"]
resolver = "2"
EOF
cp Cargo.lock "$work/Cargo.lock"
for crate in with_macro plain; do
    mkdir -p "$work/$crate/src"
    cat >"$work/$crate/Cargo.toml" <<EOF
[package]
name = "$crate"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
autograd = { path = "$repo" }
EOF
done
cp "$big" "$work/with_macro/src/lib.rs"
grep -v -e '^#\[differentiable' -e '^use autograd::differentiable;' "$big" >"$work/plain/src/lib.rs"

export CARGO_TARGET_DIR=$target_dir/compile_cost CARGO_INCREMENTAL=0
modes=("check" "build" "build --release")
for mode in "${modes[@]}"; do # dependencies, and a first build of both crates
    # shellcheck disable=SC2086
    (cd "$work" && cargo $mode -q --workspace)
done
stats() { # stdin: one number a line; prints "min / median"
    sort -g | awk '{ v[NR] = $1 } END { printf "%.2f / %.2f", v[1], v[int((NR + 1) / 2)] }'
}
echo "### Compile time of the crate (min / median of $runs rebuilds, seconds)"
echo
echo "| | plain fn | with \`#[differentiable]\` | added | ratio (min) |"
echo "| --- | --- | --- | --- | --- |"
for mode in "${modes[@]}"; do
    : >"$work/plain.times"
    : >"$work/with_macro.times"
    for _ in $(seq "$runs"); do
        for crate in plain with_macro; do
            touch "$work/$crate/src/lib.rs"
            start=$(date +%s%N)
            # shellcheck disable=SC2086
            (cd "$work" && cargo $mode -q -p "$crate")
            end=$(date +%s%N)
            echo $(((end - start) / 1000000)) | awk '{ print $1 / 1000 }' >>"$work/$crate.times"
        done
    done
    plain=$(stats <"$work/plain.times")
    with=$(stats <"$work/with_macro.times")
    awk -v m="cargo $mode" -v p="$plain" -v w="$with" 'BEGIN {
        split(p, a, " / "); split(w, b, " / ");
        printf "| `%s` | %s | %s | %.2f / %.2f | %.1f× |\n", m, p, w, b[1] - a[1], b[2] - a[2], b[1] / a[1] }'
done
echo

# The same compiles counted in instructions (repeatable to ~0.1%): a
# RUSTC_WRAPPER runs rustc under cachegrind for the two measured crates only.
if command -v valgrind >/dev/null; then
    cat >"$work/wrap.sh" <<'EOF'
#!/usr/bin/env bash
case " $* " in
*" --crate-name plain "* | *" --crate-name with_macro "*)
    exec valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
        --log-file="$COUNT_LOG" "$@" ;;
*) exec "$@" ;;
esac
EOF
    chmod +x "$work/wrap.sh"
    echo "### Instructions rustc executes compiling the crate (cachegrind, millions)"
    echo
    echo "| | plain fn | with \`#[differentiable]\` | added | ratio |"
    echo "| --- | --- | --- | --- | --- |"
    for mode in "${modes[@]}"; do
        for crate in plain with_macro; do
            touch "$work/$crate/src/lib.rs"
            # shellcheck disable=SC2086
            (cd "$work" && COUNT_LOG="$work/$crate.log" RUSTC_WRAPPER="$work/wrap.sh" cargo $mode -q -p "$crate")
        done
        plain=$(sed -n 's/.*I *refs: *//p' "$work/plain.log" | tr -d ,)
        with=$(sed -n 's/.*I *refs: *//p' "$work/with_macro.log" | tr -d ,)
        awk -v m="cargo $mode" -v p="$plain" -v w="$with" \
            'BEGIN { printf "| `%s` | %.0f | %.0f | %.0f | %.1f× |\n", m, p / 1e6, w / 1e6, (w - p) / 1e6, w / p }'
    done
    echo
fi

# --- 4: machine code ----------------------------------------------------------
echo "### Machine code (bytes, \`nm -S\` of the crate's rlib)"
echo
echo "| profile | \`landing_cost\` | \`landing_cost_grad\` | \`landing_cost_adjoint\` | all code in the rlib: plain | all code in the rlib: with macro |"
echo "| --- | --- | --- | --- | --- | --- |"
for profile in debug release; do
    symbols() { # $1: crate; prints "size name" of its text symbols
        nm -S -C -t d --defined-only "$CARGO_TARGET_DIR/$profile/lib$1.rlib" 2>/dev/null |
            awk 'NF >= 4 && $3 ~ /^[tTwW]$/ { print $2 + 0, $4 }'
    }
    size_of() { # $1: function; its size in with_macro
        symbols with_macro | awk -v f="with_macro::$1" '$2 == f { s += $1 } END { print s + 0 }'
    }
    total() { # $1: crate; all its code, with the generics and runtime helpers instantiated in it
        symbols "$1" | awk '{ s += $1 } END { print s + 0 }'
    }
    echo "| $profile | $(size_of landing_cost) | $(size_of landing_cost_grad) | $(size_of landing_cost_adjoint) | $(total plain) | $(total with_macro) |"
done
