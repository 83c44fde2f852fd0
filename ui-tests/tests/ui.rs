//! Diagnostics of `#[differentiable]`: every refused construct is a compile
//! error spanned on the construct, with no secondary errors.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
