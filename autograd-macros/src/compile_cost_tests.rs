//! Compile-time cost of the expansion (issue #8, item 4), measured on the
//! ~200-line `landing_cost` in `benches/compile_cost/big.rs`. Ignored: run by
//! `benches/compile_cost.sh`, or by hand:
//!
//! ```sh
//! cargo test -p autograd-macros --lib compile_cost -- --ignored --nocapture
//! ```
//!
//! It prints `COMPILE_COST <key> <value>` lines: the size of the input
//! function and of each item of its expansion (lines pretty-printed by
//! prettyplease, and tokens), and the minimum and median wall time of
//! `expand::differentiable` over `COMPILE_COST_ITERS` expansions (default
//! 50, after 4 untimed ones: one for the sizes, three to warm up). The timed call is the whole macro apart from
//! the `proc_macro` ↔ `proc_macro2` conversion at the compiler boundary:
//! parsing the function, lowering, the analyses and emitting.
//! `COMPILE_COST_DUMP=<file>` also writes the pretty-printed expansion there.

use proc_macro2::{TokenStream, TokenTree};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The function measured.
const FUNCTION: &str = "landing_cost";

/// The attribute arguments and the item (without the attribute) of every
/// `#[differentiable]` function in `big.rs`, by name, as the compiler hands
/// them to the macro.
fn inputs() -> Vec<(String, TokenStream, syn::ItemFn)> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../benches/compile_cost/big.rs");
    let source = std::fs::read_to_string(&path).expect("benches/compile_cost/big.rs is readable");
    let file = syn::parse_file(&source).expect("big.rs parses");
    let mut found = Vec::new();
    for item in file.items {
        let syn::Item::Fn(mut item) = item else {
            continue;
        };
        let mut args = None;
        item.attrs.retain(|attr| {
            if attr.path().is_ident("differentiable") {
                args = Some(match &attr.meta {
                    syn::Meta::List(list) => list.tokens.clone(),
                    _ => TokenStream::new(),
                });
                false
            } else {
                true
            }
        });
        if let Some(args) = args {
            found.push((item.sig.ident.to_string(), args, item));
        }
    }
    found
}

/// Tokens as the compiler counts them: identifiers, punctuation and
/// literals, and a delimited group's two delimiters (`{ }`, `( )`, `[ ]`).
fn count_tokens(tokens: TokenStream) -> usize {
    tokens
        .into_iter()
        .map(|tree| match tree {
            TokenTree::Group(group) => {
                let delimiters = match group.delimiter() {
                    proc_macro2::Delimiter::None => 0,
                    _ => 2,
                };
                delimiters + count_tokens(group.stream())
            }
            _ => 1,
        })
        .sum()
}

/// Lines of `item` pretty-printed alone.
fn pretty_lines(item: syn::Item) -> usize {
    let file = syn::File {
        shebang: None,
        attrs: Vec::new(),
        items: vec![item],
    };
    prettyplease::unparse(&file).lines().count()
}

fn report(key: &str, value: impl std::fmt::Display) {
    println!("COMPILE_COST {key} {value}");
}

#[test]
#[ignore = "a measurement, run by benches/compile_cost.sh"]
fn compile_cost() {
    let inputs = inputs();
    let names: Vec<&str> = inputs.iter().map(|(name, ..)| name.as_str()).collect();
    assert!(names.contains(&FUNCTION), "big.rs defines {names:?}");
    let (_, args, item) = inputs
        .into_iter()
        .find(|(name, ..)| name == FUNCTION)
        .unwrap();
    let item_tokens = quote::quote!(#item);

    // Sizes, deterministic.
    report("input_lines", pretty_lines(syn::Item::Fn(item.clone())));
    report("input_tokens", count_tokens(item_tokens.clone()));
    let output = crate::expand::differentiable(args.clone(), item_tokens.clone());
    let output_tokens = count_tokens(output.clone());
    let file: syn::File = syn::parse2(output).expect("the expansion parses as a file");
    let pretty = prettyplease::unparse(&file);
    if let Some(path) = std::env::var_os("COMPILE_COST_DUMP") {
        std::fs::write(path, &pretty).expect("COMPILE_COST_DUMP is writable");
    }
    report("output_lines", pretty.lines().count());
    report("output_tokens", output_tokens);
    for item in file.items {
        let syn::Item::Fn(function) = &item else {
            panic!("the expansion holds only functions");
        };
        let name = function.sig.ident.to_string();
        let suffix = name.strip_prefix(FUNCTION).expect("named after the input");
        let key = if suffix.is_empty() { "_primal" } else { suffix };
        report(
            &format!("item{key}_tokens"),
            count_tokens(quote::quote!(#item)),
        );
        report(&format!("item{key}_lines"), pretty_lines(item));
    }

    // Time, noisy: the minimum and median over many expansions.
    let iterations: usize = std::env::var("COMPILE_COST_ITERS")
        .ok()
        .map(|n| n.parse().expect("COMPILE_COST_ITERS is a number"))
        .unwrap_or(50);
    for _ in 0..3 {
        std::hint::black_box(crate::expand::differentiable(
            args.clone(),
            item_tokens.clone(),
        ));
    }
    let mut times: Vec<Duration> = (0..iterations)
        .map(|_| {
            let (args, item_tokens) = (args.clone(), item_tokens.clone());
            let start = Instant::now();
            let output = crate::expand::differentiable(args, item_tokens);
            let elapsed = start.elapsed();
            drop(std::hint::black_box(output));
            elapsed
        })
        .collect();
    times.sort();
    report("iterations", iterations);
    if let (Some(min), Some(median)) = (times.first(), times.get(iterations / 2)) {
        report("expand_min_ms", format!("{:.2}", min.as_secs_f64() * 1e3));
        report(
            "expand_median_ms",
            format!("{:.2}", median.as_secs_f64() * 1e3),
        );
    }
}
