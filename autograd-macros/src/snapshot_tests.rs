//! Snapshot tests of whole expansions: each case is a function in
//! `src/snapshots/<name>.in.rs`, expanded and pretty-printed into
//! `src/snapshots/<name>.out.rs`. Set `UPDATE_SNAPSHOTS=1` to rewrite the
//! expected outputs, then read the diff: it is the generated code.

use std::path::PathBuf;

fn expand(source: &str) -> String {
    let item: syn::ItemFn = syn::parse_str(source).expect("snapshot input parses");
    // The attribute line, if any, holds the arguments: `#[differentiable(wrt(x))]`.
    let mut item = item;
    let mut args = proc_macro2::TokenStream::new();
    item.attrs.retain(|attr| {
        if attr.path().is_ident("differentiable") {
            if let syn::Meta::List(list) = &attr.meta {
                args = list.tokens.clone();
            }
            false
        } else {
            true
        }
    });
    let output = crate::expand::differentiable(args, quote::quote!(#item));
    // An expansion that does not parse is kept as raw tokens, so the
    // snapshot shows what went wrong (and the test fails on it).
    match syn::parse2::<syn::File>(output.clone()) {
        Ok(file) => prettyplease::unparse(&file),
        Err(err) => format!("// the expansion does not parse: {err}\n{output}\n"),
    }
}

#[test]
fn snapshots() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/snapshots");
    let update = std::env::var_os("UPDATE_SNAPSHOTS").is_some();
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.to_string_lossy().ends_with(".in.rs"))
        .collect();
    inputs.sort();
    assert!(!inputs.is_empty());
    let mut failures = Vec::new();
    for input in inputs {
        let source = std::fs::read_to_string(&input).unwrap();
        let actual = expand(&source);
        let expected_path = PathBuf::from(input.to_string_lossy().replace(".in.rs", ".out.rs"));
        if update {
            std::fs::write(&expected_path, &actual).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if expected != actual {
            failures.push(format!(
                "{}:\n--- expected\n{expected}\n--- actual\n{actual}",
                expected_path.display()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "expansions changed (UPDATE_SNAPSHOTS=1 to accept):\n{}",
        failures.join("\n")
    );
}

/// Prints the expansion of the function in the file named by `EXPAND`
/// (`EXPAND=/tmp/f.rs cargo test -p autograd-macros expand_file --
/// --nocapture`): a look at the generated code of any function without
/// writing a snapshot. Does nothing without `EXPAND`.
#[test]
fn expand_file() {
    if let Some(path) = std::env::var_os("EXPAND") {
        let source = std::fs::read_to_string(path).expect("EXPAND names a readable file");
        println!("{}", expand(&source));
    }
}
