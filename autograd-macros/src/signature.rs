//! The function's signature, checked and classified: which parameters are
//! active (differentiated) and what shape their gradients have.

use crate::attr::Args;
use crate::ctxt::Ctxt;
use crate::names::Names;
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::spanned::Spanned;
use syn::{FnArg, Ident, Pat, ReturnType, Type};

/// How a parameter takes part in differentiation, read off its type.
#[derive(Clone, Debug)]
pub enum ParamClass {
    /// `f64`.
    Scalar,
    /// `&[f64]`: gradient `Vec<f64>`, adjoint `&mut [f64]`.
    Slice,
    /// `[f64; N]` or `&[f64; N]`: gradient `[f64; N]`, adjoint `&mut [f64; N]`.
    Array { len: syn::Expr, by_value: bool },
    /// Anything else (`usize`, `&[usize]`, your own types): never differentiated.
    Constant,
}

impl ParamClass {
    pub fn is_float(&self) -> bool {
        !matches!(self, ParamClass::Constant)
    }
}

/// One parameter of the function (the `self` receiver is not one of these).
pub struct Param {
    /// The bound name; `None` for a constant parameter with a pattern such as `_`.
    pub name: Option<Ident>,
    /// `mut x: T`.
    pub mutable: bool,
    pub class: ParamClass,
    /// Differentiated: a float parameter, and named in `wrt(..)` if that is given.
    pub active: bool,
    /// The name of its adjoint argument in `f_adjoint` (`d_<name>`, from
    /// [`Names::argument`]): set for active parameters.
    pub adjoint: Option<Ident>,
    /// With `hessian`, for an active parameter: the names of its direction
    /// in `f_hvp` (`v_<name>`) and of its H·v buffer in the generated
    /// bodies (`hv_<name>`), from [`Names::argument`].
    pub second: Option<(Ident, Ident)>,
    /// Of a primitive integer type (`usize`, `i32`, ...), by value: what
    /// `record.rs` needs to know to count a loop's integer back.
    pub integer: bool,
}

impl Param {
    /// `d_<name>`: the adjoint argument of an active parameter.
    pub fn adjoint_ident(&self) -> Option<Ident> {
        self.adjoint.clone()
    }

    /// The type of `d_<name>` in `f_adjoint`.
    pub fn adjoint_type(&self) -> TokenStream {
        match &self.class {
            ParamClass::Scalar => quote!(&mut f64),
            ParamClass::Slice => quote!(&mut [f64]),
            ParamClass::Array { len, .. } => quote!(&mut [f64; #len]),
            ParamClass::Constant => quote!(()),
        }
    }

    /// The type of this parameter's gradient in the result of `f_grad`.
    pub fn gradient_type(&self) -> TokenStream {
        match &self.class {
            ParamClass::Scalar => quote!(f64),
            ParamClass::Slice => quote!(::std::vec::Vec<f64>),
            ParamClass::Array { len, .. } => quote!([f64; #len]),
            ParamClass::Constant => quote!(()),
        }
    }
}

/// The checked signature.
pub struct Signature {
    pub params: Vec<Param>,
    /// The return type is `f64` (otherwise an error was reported).
    pub returns_f64: bool,
    /// The name of the output's adjoint argument in `f_adjoint` (`d_out`
    /// unless a parameter of `f` has that name).
    pub d_out: Ident,
    /// `#[differentiable(hessian)]`.
    pub hessian: bool,
}

impl Signature {
    pub fn active(&self) -> impl Iterator<Item = &Param> {
        self.params.iter().filter(|p| p.active)
    }
}

/// Checks `sig` against what `#[differentiable]` supports and classifies its
/// parameters. Every problem is reported to `cx`; the result is usable (with
/// offending parameters treated as constants) even when errors were found.
pub fn analyze(cx: &Ctxt, sig: &syn::Signature, args: &Args, names: &Names) -> Signature {
    check_qualifiers(cx, sig);
    let returns_f64 = check_return_type(cx, sig);

    let mut params = Vec::new();
    for input in &sig.inputs {
        match input {
            // `self`, `&self`, `self: Box<Self>`: a constant like any other.
            FnArg::Receiver(receiver) => {
                if receiver.mutability.is_some() && receiver.reference.is_some() {
                    cx.error_spanned_by(
                        receiver,
                        "`&mut self` is not supported: `self` is a constant of the \
                         derivative; take `&self` instead",
                    );
                }
            }
            FnArg::Typed(pat_type) => params.push(classify_param(cx, pat_type)),
        }
    }
    mark_active(cx, &mut params, args);
    // The parameters keep their names; `f_adjoint`'s own arguments take
    // `d_out` and `d_<p>` unless a parameter has them (`fn f(out: f64)`
    // gets `d_out` and `d_out_1`), and the user's locals of those names
    // are renamed around them.
    for name in params.iter().filter_map(|p| p.name.as_ref()) {
        names.reserve(name);
    }
    let d_out = names.argument("d_out");
    for param in params.iter_mut().filter(|p| p.active) {
        param.adjoint = param.name.as_ref().map(|name| {
            names.argument(&format!("d_{}", name.to_string().trim_start_matches("r#")))
        });
    }
    if args.hessian {
        for param in params.iter_mut().filter(|p| p.active) {
            param.second = param.name.as_ref().map(|name| {
                let plain = name.to_string();
                let plain = plain.trim_start_matches("r#");
                (
                    names.argument(&format!("v_{plain}")),
                    names.argument(&format!("hv_{plain}")),
                )
            });
        }
    }
    Signature {
        params,
        returns_f64,
        d_out,
        hessian: args.hessian,
    }
}

fn check_qualifiers(cx: &Ctxt, sig: &syn::Signature) {
    if let Some(token) = &sig.asyncness {
        cx.error_spanned_by(
            token,
            "`async fn` cannot be differentiated; make it a plain `fn`",
        );
    }
    if let Some(token) = &sig.unsafety {
        cx.error_spanned_by(
            token,
            "`unsafe fn` cannot be differentiated; make it a safe `fn`",
        );
    }
    if let Some(abi) = &sig.abi {
        cx.error_spanned_by(
            abi,
            "`extern` functions cannot be differentiated; differentiate a plain Rust `fn` \
             and wrap it",
        );
    }
    if !sig.generics.params.is_empty() {
        cx.error_spanned_by(
            &sig.generics,
            "generic functions are not supported by `#[differentiable]`; write the \
             function for `f64` (and `&[f64]`) parameters",
        );
    } else if let Some(where_clause) = &sig.generics.where_clause {
        cx.error_spanned_by(
            where_clause,
            "`where` clauses are not supported by `#[differentiable]`; remove it",
        );
    }
    if let Some(variadic) = &sig.variadic {
        cx.error_spanned_by(variadic, "variadic functions cannot be differentiated");
    }
}

fn check_return_type(cx: &Ctxt, sig: &syn::Signature) -> bool {
    match &sig.output {
        ReturnType::Default => {
            cx.error_spanned_by(
                &sig.ident,
                format!(
                    "a `#[differentiable]` function must return `f64`, or `[f64; M]` or \
                     `Vec<f64>` for several outputs; `{}` returns `()`: add `-> f64`, or, \
                     for a function that writes its outputs into a `&mut` slice, return \
                     them (`-> Vec<f64>`) instead",
                    sig.ident
                ),
            );
            false
        }
        ReturnType::Type(_, ty) if !is_f64(ty) => {
            cx.error_spanned_by(
                ty,
                "a `#[differentiable]` function must return `f64`, or `[f64; M]` or \
                 `Vec<f64>` for several outputs (it then gets `f_jacobian`)",
            );
            false
        }
        ReturnType::Type(..) => true,
    }
}

fn classify_param(cx: &Ctxt, pat_type: &syn::PatType) -> Param {
    let class = classify_type(cx, &pat_type.ty);
    let mutable = matches!(&*pat_type.pat, Pat::Ident(p) if p.mutability.is_some());
    let name = match &*pat_type.pat {
        Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => Some(p.ident.clone()),
        Pat::Tuple(_) | Pat::TupleStruct(_) | Pat::Struct(_) | Pat::Slice(_)
            if class.is_float() =>
        {
            cx.error_spanned_by(
                &pat_type.pat,
                "a float parameter must be a plain name (`x: f64`); destructuring \
                 patterns are not supported here",
            );
            None
        }
        Pat::Wild(_) if class.is_float() => {
            cx.error_spanned_by(
                &pat_type.pat,
                "a float parameter needs a name: its gradient argument is called \
                 `d_<name>`; write `_x: f64` to keep it unused",
            );
            None
        }
        _ => None,
    };
    let class = if name.is_none() {
        ParamClass::Constant
    } else {
        class
    };
    Param {
        name,
        mutable,
        class,
        active: false,
        adjoint: None,
        second: None,
        integer: is_primitive_integer(&pat_type.ty),
    }
}

/// The primitive integer types, by name.
pub const INTEGER_TYPES: [&str; 12] = [
    "usize", "isize", "u8", "u16", "u32", "u64", "u128", "i8", "i16", "i32", "i64", "i128",
];

/// `usize`, `i32`, ... (not a reference: `&usize + 1` is a `usize`, but
/// a cell holding it would be a `&usize`).
fn is_primitive_integer(ty: &Type) -> bool {
    match ty {
        Type::Paren(inner) => is_primitive_integer(&inner.elem),
        Type::Group(inner) => is_primitive_integer(&inner.elem),
        Type::Path(path) => {
            path.qself.is_none()
                && path.path.segments.len() == 1
                && INTEGER_TYPES.contains(&path.path.segments[0].ident.to_string().as_str())
        }
        _ => false,
    }
}

/// Reads the float shape off a parameter type; refuses `&mut`, float tuples
/// and `impl Trait`.
fn classify_type(cx: &Ctxt, ty: &Type) -> ParamClass {
    match ty {
        Type::Paren(inner) => classify_type(cx, &inner.elem),
        Type::Group(inner) => classify_type(cx, &inner.elem),
        _ if is_f64(ty) => ParamClass::Scalar,
        Type::Reference(reference) if reference.mutability.is_some() => {
            cx.error_spanned_by(
                ty,
                "`&mut` parameters are not supported by `#[differentiable]`: outputs \
                 other than the returned `f64` cannot be differentiated; return the \
                 value instead, or take `&` for an input",
            );
            ParamClass::Constant
        }
        Type::Reference(reference) => match &*reference.elem {
            Type::Slice(slice) if is_f64(&slice.elem) => ParamClass::Slice,
            Type::Array(array) if is_f64(&array.elem) => ParamClass::Array {
                len: array.len.clone(),
                by_value: false,
            },
            _ => ParamClass::Constant,
        },
        Type::Array(array) if is_f64(&array.elem) => ParamClass::Array {
            len: array.len.clone(),
            by_value: true,
        },
        Type::Tuple(tuple) if mentions_f64(tuple) => {
            cx.error_spanned_by(
                ty,
                "tuples of floats are not supported as parameters; pass each `f64` as \
                 its own parameter, or use `[f64; N]`",
            );
            ParamClass::Constant
        }
        Type::ImplTrait(_) => {
            cx.error_spanned_by(
                ty,
                "`impl Trait` parameters make the function generic, which \
                 `#[differentiable]` does not support; use a concrete type",
            );
            ParamClass::Constant
        }
        _ => ParamClass::Constant,
    }
}

fn mark_active(cx: &Ctxt, params: &mut [Param], args: &Args) {
    let Some((_, wrt)) = &args.wrt else {
        for param in params.iter_mut() {
            param.active = param.class.is_float();
        }
        return;
    };
    for (position, name) in wrt.iter().enumerate() {
        if wrt[..position].contains(name) {
            cx.error_spanned_by(name, format!("`{name}` is named twice in `wrt(..)`"));
            continue;
        }
        match params.iter_mut().find(|p| p.name.as_ref() == Some(name)) {
            None => cx.error_spanned_by(
                name,
                format!("`wrt` names `{name}`, but the function has no parameter `{name}`"),
            ),
            Some(param) if !param.class.is_float() => cx.error_spanned_by(
                name,
                format!(
                    "`wrt` names `{name}`, which is not a float parameter; only `f64`, \
                     `&[f64]`, `[f64; N]` and `&[f64; N]` parameters can be differentiated"
                ),
            ),
            Some(param) => param.active = true,
        }
    }
}

/// Warnings (rustc's `deprecated` lint, the one way a stable proc macro
/// has to warn) at parameters that look differentiable but are constants
/// under the rules of API.md: `&Vec<f64>`, `Vec<f64>` and `f32` ones,
/// without `wrt(..)` (which says what is differentiated). Their gradient
/// would silently be `()`.
pub fn warnings(sig: &syn::Signature, args: &Args) -> proc_macro2::TokenStream {
    if args.wrt.is_some() {
        return proc_macro2::TokenStream::new();
    }
    let mut out = proc_macro2::TokenStream::new();
    for input in &sig.inputs {
        let FnArg::Typed(pat_type) = input else {
            continue;
        };
        let ty = &*pat_type.ty;
        let inner = match ty {
            Type::Reference(r) if r.mutability.is_none() => &*r.elem,
            other => other,
        };
        let name = pat_type.pat.to_token_stream().to_string();
        let shown = ty
            .to_token_stream()
            .to_string()
            .replace("& ", "&")
            .replace(" < ", "<")
            .replace(" >", ">");
        let advice = if vec_element(inner).is_some_and(is_f64) {
            format!(
                "`{name}: {shown}` gets no gradient: `#[differentiable]` differentiates `f64`, \
                 `&[f64]`, `[f64; N]` and `&[f64; N]` parameters, and takes any other type \
                 for constant data; write `{name}: &[f64]` to differentiate it (a `&Vec<f64>` \
                 argument coerces), or say what is differentiated with `wrt(..)`"
            )
        } else if is_f32(inner)
            || matches!(inner, Type::Slice(s) if is_f32(&s.elem))
            || matches!(inner, Type::Array(a) if is_f32(&a.elem))
            || vec_element(inner).is_some_and(is_f32)
        {
            format!(
                "`{name}: {shown}` gets no gradient: `#[differentiable]` differentiates `f64` \
                 values only, and takes `f32` ones for constant data; use `f64`, or say what \
                 is differentiated with `wrt(..)`"
            )
        } else {
            continue;
        };
        out.extend(quote::quote_spanned! {ty.span()=>
            const _: () = {
                #[deprecated(note = #advice)]
                #[allow(non_camel_case_types)]
                struct not_differentiated;
                let _ = not_differentiated;
            };
        });
    }
    out
}

fn is_f32(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.is_ident("f32"))
}

/// `T` of `Vec<T>` (any path ending in `Vec`).
pub fn vec_element(ty: &Type) -> Option<&Type> {
    let Type::Path(path) = ty else {
        return None;
    };
    let last = path.path.segments.last()?;
    if last.ident != "Vec" {
        return None;
    }
    match &last.arguments {
        syn::PathArguments::AngleBracketed(args) => match args.args.first()? {
            syn::GenericArgument::Type(elem) => Some(elem),
            _ => None,
        },
        _ => None,
    }
}

/// `f64`, `std::primitive::f64` or `core::primitive::f64`.
pub fn is_f64(ty: &Type) -> bool {
    let Type::Path(path) = ty else { return false };
    if path.qself.is_some() {
        return false;
    }
    let segments: Vec<String> = path
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    let plain = path.path.segments.iter().all(|s| s.arguments.is_none());
    plain
        && match segments.as_slice() {
            [f] => f == "f64",
            [krate, primitive, f] => {
                (krate == "std" || krate == "core") && primitive == "primitive" && f == "f64"
            }
            _ => false,
        }
}

fn mentions_f64(tuple: &syn::TypeTuple) -> bool {
    tuple.elems.iter().any(|elem| match elem {
        Type::Tuple(inner) => mentions_f64(inner),
        Type::Reference(r) => is_f64(&r.elem),
        other => is_f64(other),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classes(src: &str, args: &str) -> (Vec<(String, bool, String)>, bool) {
        let item: syn::ItemFn = syn::parse_str(src).unwrap();
        let args: Args = syn::parse_str(args).unwrap();
        let cx = Ctxt::new();
        let names = crate::names::Names::new(&item);
        let sig = analyze(&cx, &item.sig, &args, &names);
        let out = sig
            .params
            .iter()
            .map(|p| {
                let class = match p.class {
                    ParamClass::Scalar => "scalar",
                    ParamClass::Slice => "slice",
                    ParamClass::Array { .. } => "array",
                    ParamClass::Constant => "const",
                };
                (
                    p.name.as_ref().map_or("_".into(), |n| n.to_string()),
                    p.active,
                    class.to_string(),
                )
            })
            .collect();
        (out, cx.check().is_err())
    }

    #[test]
    fn classifies_parameter_types() {
        let (params, failed) = classes(
            "fn f(x: f64, w: &[f64], a: [f64; 3], b: &'a [f64; N], n: usize, i: &[usize]) -> f64 { x }",
            "",
        );
        assert!(!failed);
        let expect = [
            ("x", true, "scalar"),
            ("w", true, "slice"),
            ("a", true, "array"),
            ("b", true, "array"),
            ("n", false, "const"),
            ("i", false, "const"),
        ];
        for (got, want) in params.iter().zip(expect) {
            assert_eq!((got.0.as_str(), got.1, got.2.as_str()), want);
        }
    }

    #[test]
    fn wrt_selects_active_parameters() {
        let (params, failed) = classes("fn f(x: f64, y: f64) -> f64 { x }", "wrt(y)");
        assert!(!failed);
        assert!(!params[0].1 && params[1].1);
    }

    #[test]
    fn refuses_bad_signatures() {
        for src in [
            "fn f(x: &mut f64) -> f64 { 0.0 }",
            "fn f(p: (f64, f64)) -> f64 { 0.0 }",
            "fn f<T>(x: f64) -> f64 { x }",
            "fn f(x: f64) -> f32 { 0.0 }",
            "fn f(x: f64) { }",
            "async fn f(x: f64) -> f64 { x }",
        ] {
            assert!(classes(src, "").1, "accepted {src}");
        }
        assert!(classes("fn f(x: f64, n: usize) -> f64 { x }", "wrt(n)").1);
        assert!(classes("fn f(x: f64) -> f64 { x }", "wrt(y)").1);
    }

    /// The adjoint's arguments are named `d_out` and `d_<p>` unless a
    /// parameter has the name: then they yield, the parameter keeps it.
    #[test]
    fn adjoint_arguments_yield_to_parameters() {
        let arguments = |src: &str| {
            let item: syn::ItemFn = syn::parse_str(src).unwrap();
            let cx = Ctxt::new();
            let names = crate::names::Names::new(&item);
            let sig = analyze(&cx, &item.sig, &Args::default(), &names);
            assert!(cx.check().is_ok(), "refused {src}");
            let mut out = vec![sig.d_out.to_string()];
            out.extend(sig.active().map(|p| p.adjoint_ident().unwrap().to_string()));
            out
        };
        assert_eq!(
            arguments("fn f(out: f64) -> f64 { out }"),
            ["d_out", "d_out_1"]
        );
        assert_eq!(
            arguments("fn f(x: f64, d_x: f64) -> f64 { x }"),
            ["d_out", "d_x_1", "d_d_x"]
        );
        assert_eq!(
            arguments("fn f(d_out: f64) -> f64 { d_out }"),
            ["d_out_1", "d_d_out"]
        );
    }
}
