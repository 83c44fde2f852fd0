//! The never-panic property under random token-level mutation: valid
//! functions inside API.md's subset (and the `hessian` and vector-valued
//! forms) have tokens deleted, duplicated, swapped, replaced, inserted or
//! unwrapped, one to three times, and the macro must answer every mutant
//! with tokens (code or `compile_error!`s), never a panic. The seed is
//! fixed so every run checks the same 4 000 mutants; `FUZZ_SEED` and
//! `FUZZ_MUTANTS` in the environment run others, and `FUZZ_TRACE=1` prints
//! each mutant first (a stack overflow aborts: the last one printed is it).
//! (`pipeline_tests::never_panics` holds the hand-picked malformed inputs,
//! each failure found here among them.)

use crate::expand;

/// A tiny deterministic PRNG (xorshift64*): the fuzzer must give the same
/// mutants on every run, and autograd-macros has no `rand`.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Valid functions inside API.md's subset: the fuzzer's starting points.
const FUZZ_CORPUS: &[(&str, &str)] = &[
    ("", "fn f(x: f64, y: f64) -> f64 { let t0 = x.sin() * y; t0 }"),
    ("", "fn f(x: f64, w: &[f64], n: usize) -> f64 { let mut s = 0.0; for i in 0..n { s += w[i] * x; } s }"),
    ("", "fn f(x: f64) -> f64 { if x > 0.0 { x.sqrt() } else if x < -1.0 { -x } else { x * x } }"),
    ("", "fn f(xs: &[f64]) -> f64 { let mut m = xs[0]; for &v in xs { if v > m { m = v; } } m }"),
    ("", "fn f(xs: &[f64]) -> f64 { let mut s = 0.0; for (i, v) in xs.iter().enumerate() { s += (i as f64) * v; } s }"),
    ("", "fn f(x: f64) -> f64 { let mut k = 0; let mut s = x; while k < 3 { k += 1; if s > 2.0 { continue; } s *= 1.5; } s }"),
    ("", "fn f(x: f64) -> f64 { let mut k = 0; loop { k += 1; if k > 3 { break; } } x * k as f64 }"),
    ("", "fn f(a: [f64; 3], b: &[f64; 2]) -> f64 { let mut buf = [0.0; 3]; buf[1] = a[0] * b[1]; let v = a.to_vec(); buf[1] + v[2] }"),
    ("", "fn f(x: f64, n: usize) -> f64 { let mut b: Vec<f64> = vec![0.0; n]; b[0] += x; -(n as f64) * b[0] + (n as f64).sqrt() }"),
    ("", "fn f(x: f64) -> f64 { { let d_x = x * 2.0; return d_x.tanh(); } }"),
    ("", "fn f(x: f64, w: &[f64]) -> f64 { g(&w[1..3], x) + g(&[x, 1.0], 2.0) + h([x, x]) }"),
    ("", "fn f(x: f64) -> f64 { x.powi(3) + x.powf(1.5) + f64::atan2(x, 2.0) + x.clamp(-1.0, 1.0) + x.mul_add(2.0, 1.0) }"),
    ("", "fn f(x: f64) -> f64 { std::f64::consts::PI * x + f64::EPSILON + SCALE * x.max(0.0).min(2.0) }"),
    ("", "fn f(x: f64) -> f64 { let y = if x > 1.0 { let t = x.ln(); t * t } else { x }; y }"),
    ("", "fn f(x: f64, i: usize) -> f64 { let __ad_t3 = x; let mut value = [x; 2]; value[i] -= __ad_t3; value[0] / 2.0 }"),
    ("wrt(w)", "fn f(w: &[f64], data: &[f64]) -> f64 { let mut s = 0.0; for (i, &d) in data.iter().enumerate() { s += w[i] * d; } s }"),
    ("", "fn f(x: f64) -> f64 { let (s, c) = x.sin_cos(); let sq = |t: f64| t * t; sq(s) + c }"),
    ("", "fn f(xs: &[f64]) -> f64 { xs.iter().map(|v| v * v).sum::<f64>() + xs.iter().zip(xs).fold(0.0, |a, (p, q)| a + p * q) }"),
    ("", "fn f(x: f64, k: usize) -> f64 { match k { 0 => x, 1 | 2 => x * x, _ => -x } }"),
    ("hessian", "fn f(x: f64, y: f64) -> f64 { x * y * y }"),
    ("", "fn f(x: f64, y: f64) -> [f64; 2] { [x * y, x + y] }"),
    ("hessian, wrt(w)", "fn f(x: f64, w: &[f64]) -> f64 { let mut b = vec![0.0; 2]; for i in 0..2 { b[i] = w[i] * x; } g(&b, x) + b[1].sin() }"),
    ("", "fn f(x: f64, w: &[f64]) -> Vec<f64> { let mut out = vec![0.0; w.len()]; for i in 0..w.len() { out[i] = w[i] * x; } out }"),
];

/// Tokens spliced in by the `replace` and `insert` mutations: keywords and
/// punctuation the lowering must be ready to see anywhere.
const FUZZ_TOKENS: &[&str] = &[
    "x", "y", "f64", "usize", "as", "let", "mut", "return", "break", "continue", "loop", "while",
    "for", "in", "if", "else", "match", "fn", "self", "Self", "_", "0", "1", "2.5", "1e308", "-",
    "+", "*", "/", "%", "=", "+=", "==", "<", "&", "&&", "|", "!", "..", "..=", ";", ",", ":",
    "::", ".", "?", "'a", "#", "$", "[0.0; 2]", "(x)", "{ }", "()", "d_x", "__ad_t0", "t0",
];

/// Applies `op` to the token list of the `target`-th stream of `ts` (in
/// pre-order: 0 is `ts` itself, then every group's contents).
fn fuzz_edit(
    ts: proc_macro2::TokenStream,
    target: usize,
    counter: &mut usize,
    op: &mut dyn FnMut(&mut Vec<proc_macro2::TokenTree>),
) -> proc_macro2::TokenStream {
    use proc_macro2::{Group, TokenTree};
    let me = *counter;
    *counter += 1;
    let mut trees: Vec<TokenTree> = ts
        .into_iter()
        .map(|tt| match tt {
            TokenTree::Group(g) => {
                let inner = fuzz_edit(g.stream(), target, counter, op);
                let mut group = Group::new(g.delimiter(), inner);
                group.set_span(g.span());
                TokenTree::Group(group)
            }
            other => other,
        })
        .collect();
    if me == target {
        op(&mut trees);
    }
    trees.into_iter().collect()
}

/// How many streams (the top level and every group) `ts` has.
fn fuzz_streams(ts: &proc_macro2::TokenStream) -> usize {
    1 + ts
        .clone()
        .into_iter()
        .map(|tt| match tt {
            proc_macro2::TokenTree::Group(g) => fuzz_streams(&g.stream()),
            _ => 0,
        })
        .sum::<usize>()
}

/// One random token-level mutation of `ts`: delete, duplicate, swap,
/// replace or insert a token tree, or unwrap a group, in a random stream.
fn fuzz_mutate(ts: proc_macro2::TokenStream, rng: &mut XorShift) -> proc_macro2::TokenStream {
    use proc_macro2::TokenTree;
    let target = rng.below(fuzz_streams(&ts));
    let kind = rng.below(6);
    let pick = rng.next();
    let other = rng.next();
    let token: proc_macro2::TokenStream = FUZZ_TOKENS[rng.below(FUZZ_TOKENS.len())]
        .parse()
        .expect("the token pool parses");
    fuzz_edit(ts, target, &mut 0, &mut |trees: &mut Vec<TokenTree>| {
        let n = trees.len();
        let i = (pick % (n.max(1) as u64)) as usize;
        let j = (other % (n.max(1) as u64)) as usize;
        match kind {
            0 if n > 0 => {
                trees.remove(i);
            }
            1 if n > 0 => {
                let t = trees[i].clone();
                trees.insert(i, t);
            }
            2 if n > 1 => trees.swap(i, j),
            3 if n > 0 => {
                trees.splice(i..=i, token.clone());
            }
            4 => {
                let at = if n == 0 { 0 } else { i };
                trees.splice(at..at, token.clone());
            }
            _ if n > 0 => {
                // Unwrap a group: `(a + b)` → `a + b`, `{ s; e }` → `s; e`.
                if let TokenTree::Group(g) = &trees[i] {
                    let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                    trees.splice(i..=i, inner);
                } else {
                    trees.remove(i);
                }
            }
            _ => {}
        }
    })
}

/// Random token-level mutants of valid functions: the macro must answer
/// every one with tokens (code or `compile_error!`s), never a panic.
#[test]
fn never_panics_on_token_mutants() {
    // `FUZZ_SEED` and `FUZZ_MUTANTS` in the environment run other mutants:
    // `FUZZ_SEED=7 FUZZ_MUTANTS=100000 cargo test -p autograd-macros --release fuzz`.
    let env = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let fuzz_seed = env("FUZZ_SEED", 0x5EED_0014);
    let mutants = env("FUZZ_MUTANTS", 4000) as usize;
    let mut rng = XorShift(fuzz_seed.max(1));
    let mut panics: Vec<String> = Vec::new();
    for n in 0..mutants {
        let (args, src) = FUZZ_CORPUS[n % FUZZ_CORPUS.len()];
        let mut attr: proc_macro2::TokenStream = args.parse().unwrap();
        let mut item: proc_macro2::TokenStream = src.parse().unwrap();
        // One to three stacked mutations; sometimes of the attribute.
        for _ in 0..1 + rng.below(3) {
            if rng.below(8) == 0 {
                attr = fuzz_mutate(attr, &mut rng);
            } else {
                item = fuzz_mutate(item, &mut rng);
            }
        }
        let (a, i) = (attr.to_string(), item.to_string());
        if std::env::var_os("FUZZ_TRACE").is_some() {
            // A stack overflow aborts the process: the last mutant printed is it.
            eprintln!("mutant {n}: #[differentiable({a})] {i}");
        }
        let result = std::panic::catch_unwind(|| expand::differentiable(attr, item).to_string());
        if result.is_err() && panics.len() < 10 {
            panics.push(format!("mutant {n}: #[differentiable({a})] {i}"));
        }
    }
    assert!(
        panics.is_empty(),
        "the macro panicked on {} token mutant(s) (FUZZ_SEED={fuzz_seed}); first ones:\n{}",
        panics.len(),
        panics.join("\n")
    );
}
