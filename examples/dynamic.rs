//! A computation whose shape is only known at run time: an arithmetic
//! expression read from the command line (or generated at random from a
//! seed), parsed by a small recursive-descent parser, recorded on the tape,
//! differentiated, and checked against central finite differences.
//!
//! ```text
//! cargo run --release --example dynamic
//! cargo run --release --example dynamic -- "x^3 * atan2(y, x) + hypot(x, y)" x=0.3 y=-2
//! cargo run --release --example dynamic -- --random 7
//! cargo run --release --example dynamic -- "sin(x*y) + x^2/y" --dot | dot -Tsvg > graph.svg
//! ```
//!
//! Syntax: numbers, variables (any identifier; `pi` and `e` are the
//! constants), `+ - * / ^` (`^` binds tightest and to the right, `-x^2` is
//! `-(x^2)`), parentheses, and the functions `sin cos tan asin acos atan
//! sinh cosh tanh exp exp2 ln log2 log10 sqrt cbrt abs` of one argument and
//! `atan2 hypot max min pow log` (`log(x, base)`) of two. A variable gets
//! its value from a `name=value` argument, or else the next of 0.5, 1.5,
//! 2.5, ... in order of first appearance.

use autograd::check::{self, Report};
use autograd::tape::{Operand, Tape, Var};

/// The expression differentiated when none is given.
pub const DEFAULT_EXPRESSION: &str = "sin(x*y) + x^2/y - exp(-x)";

/// The relative tolerance of the finite-difference check.
pub const TOLERANCE: f64 = 1e-6;

/// A parsed expression: the run-time shape the tape records.
#[derive(Clone, Debug)]
enum Expr {
    Num(f64),
    /// Index into the variable list.
    Var(usize),
    Neg(Box<Expr>),
    Binary(char, Box<Expr>, Box<Expr>),
    Call(&'static str, Vec<Expr>),
}

const UNARY: [&str; 17] = [
    "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "exp", "exp2", "ln",
    "log2", "log10", "sqrt", "cbrt", "abs",
];
const BINARY: [&str; 6] = ["atan2", "hypot", "max", "min", "pow", "log"];

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Num(f64),
    Ident(String),
    Sym(char),
}

fn tokenize(src: &str) -> Result<Vec<(usize, Token)>, String> {
    let chars: Vec<char> = src.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let start = i;
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() || c == '.' {
            while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                i += 1;
            }
            // An exponent: 1e-3, 2.5E+4.
            if i < chars.len() && (chars[i] == 'e' || chars[i] == 'E') {
                let mut j = i + 1;
                if j < chars.len() && (chars[j] == '+' || chars[j] == '-') {
                    j += 1;
                }
                if j < chars.len() && chars[j].is_ascii_digit() {
                    i = j;
                    while i < chars.len() && chars[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            let text: String = chars[start..i].iter().collect();
            let value = text
                .parse()
                .map_err(|_| format!("bad number `{text}` at column {}", start + 1))?;
            tokens.push((start, Token::Num(value)));
        } else if c.is_alphabetic() || c == '_' {
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            tokens.push((start, Token::Ident(chars[start..i].iter().collect())));
        } else if "+-*/^(),".contains(c) {
            tokens.push((start, Token::Sym(c)));
            i += 1;
        } else {
            return Err(format!("unexpected `{c}` at column {}", start + 1));
        }
    }
    Ok(tokens)
}

/// Recursive descent, one function per precedence level:
///
/// ```text
/// expr  = term (("+" | "-") term)*
/// term  = unary (("*" | "/") unary)*
/// unary = "-" unary | power
/// power = atom ("^" unary)?
/// atom  = number | name | name "(" expr ("," expr)* ")" | "(" expr ")"
/// ```
struct Parser {
    tokens: Vec<(usize, Token)>,
    pos: usize,
    len: usize,
    variables: Vec<String>,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos).map(|(_, t)| t)
    }

    fn column(&self) -> usize {
        self.tokens.get(self.pos).map_or(self.len, |(c, _)| *c) + 1
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(&Token::Sym(c)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char) -> Result<(), String> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(format!("expected `{c}` at column {}", self.column()))
        }
    }

    fn expr(&mut self) -> Result<Expr, String> {
        let mut left = self.term()?;
        loop {
            let op = if self.eat('+') {
                '+'
            } else if self.eat('-') {
                '-'
            } else {
                return Ok(left);
            };
            left = Expr::Binary(op, Box::new(left), Box::new(self.term()?));
        }
    }

    fn term(&mut self) -> Result<Expr, String> {
        let mut left = self.unary()?;
        loop {
            let op = if self.eat('*') {
                '*'
            } else if self.eat('/') {
                '/'
            } else {
                return Ok(left);
            };
            left = Expr::Binary(op, Box::new(left), Box::new(self.unary()?));
        }
    }

    fn unary(&mut self) -> Result<Expr, String> {
        if self.eat('-') {
            Ok(Expr::Neg(Box::new(self.unary()?)))
        } else {
            self.power()
        }
    }

    fn power(&mut self) -> Result<Expr, String> {
        let base = self.atom()?;
        if self.eat('^') {
            Ok(Expr::Binary('^', Box::new(base), Box::new(self.unary()?)))
        } else {
            Ok(base)
        }
    }

    fn atom(&mut self) -> Result<Expr, String> {
        let column = self.column();
        match self.tokens.get(self.pos).map(|(_, t)| t.clone()) {
            Some(Token::Num(v)) => {
                self.pos += 1;
                Ok(Expr::Num(v))
            }
            Some(Token::Sym('(')) => {
                self.pos += 1;
                let inner = self.expr()?;
                self.expect(')')?;
                Ok(inner)
            }
            Some(Token::Ident(name)) => {
                self.pos += 1;
                if self.eat('(') {
                    let mut args = vec![self.expr()?];
                    while self.eat(',') {
                        args.push(self.expr()?);
                    }
                    self.expect(')')?;
                    let (known, arity): (&[&'static str], usize) = if UNARY.contains(&&*name) {
                        (&UNARY, 1)
                    } else if BINARY.contains(&&*name) {
                        (&BINARY, 2)
                    } else {
                        return Err(format!("unknown function `{name}` at column {column}"));
                    };
                    if args.len() != arity {
                        return Err(format!(
                            "`{name}` takes {arity} argument(s), got {} at column {column}",
                            args.len()
                        ));
                    }
                    let name = known.iter().find(|&&k| k == name).copied().unwrap_or("?");
                    Ok(Expr::Call(name, args))
                } else if name == "pi" {
                    Ok(Expr::Num(std::f64::consts::PI))
                } else if name == "e" {
                    Ok(Expr::Num(std::f64::consts::E))
                } else {
                    let index = match self.variables.iter().position(|v| *v == name) {
                        Some(index) => index,
                        None => {
                            self.variables.push(name);
                            self.variables.len() - 1
                        }
                    };
                    Ok(Expr::Var(index))
                }
            }
            _ => Err(format!(
                "expected a number, a name or `(` at column {column}"
            )),
        }
    }
}

/// Parses `src`; returns the expression and its variables in order of first appearance.
fn parse(src: &str) -> Result<(Expr, Vec<String>), String> {
    let mut parser = Parser {
        tokens: tokenize(src)?,
        pos: 0,
        len: src.chars().count(),
        variables: Vec::new(),
    };
    let expr = parser.expr()?;
    if parser.pos != parser.tokens.len() {
        return Err(format!("unexpected input at column {}", parser.column()));
    }
    Ok((expr, parser.variables))
}

/// A value while recording: a constant (folded, no node) or a tape variable.
#[derive(Clone, Copy)]
enum Val<'t> {
    C(f64),
    V(Var<'t>),
}

/// Records `expr` on `tape`, with the variables `vars`; returns its value.
fn record<'t>(expr: &Expr, tape: &'t Tape, vars: &[Var<'t>]) -> Val<'t> {
    use Val::{C, V};
    macro_rules! unary {
        ($a:expr, $($name:ident)*) => {
            match $a {
                $(
                    (stringify!($name), C(a)) => C(a.$name()),
                    (stringify!($name), V(a)) => V(a.$name()),
                )*
                (name, _) => unreachable!("unknown function {name}"),
            }
        };
    }
    match expr {
        Expr::Num(c) => C(*c),
        Expr::Var(i) => V(vars[*i]),
        Expr::Neg(a) => match record(a, tape, vars) {
            C(a) => C(-a),
            V(a) => V(-a),
        },
        Expr::Binary(op, a, b) => {
            let (a, b) = (record(a, tape, vars), record(b, tape, vars));
            match (op, a, b) {
                ('+', C(a), C(b)) => C(a + b),
                ('-', C(a), C(b)) => C(a - b),
                ('*', C(a), C(b)) => C(a * b),
                ('/', C(a), C(b)) => C(a / b),
                ('+', V(a), C(b)) => V(a + b),
                ('-', V(a), C(b)) => V(a - b),
                ('*', V(a), C(b)) => V(a * b),
                ('/', V(a), C(b)) => V(a / b),
                ('+', C(a), V(b)) => V(a + b),
                ('-', C(a), V(b)) => V(a - b),
                ('*', C(a), V(b)) => V(a * b),
                ('/', C(a), V(b)) => V(a / b),
                ('+', V(a), V(b)) => V(a + b),
                ('-', V(a), V(b)) => V(a - b),
                ('*', V(a), V(b)) => V(a * b),
                ('/', V(a), V(b)) => V(a / b),
                ('^', a, b) => power(tape, a, b),
                (op, _, _) => unreachable!("unknown operator {op}"),
            }
        }
        Expr::Call(name, args) if args.len() == 1 => {
            let a = record(&args[0], tape, vars);
            unary!((*name, a), sin cos tan asin acos atan sinh cosh tanh exp exp2 ln log2 log10 sqrt cbrt abs)
        }
        Expr::Call(name, args) => {
            let (a, b) = (record(&args[0], tape, vars), record(&args[1], tape, vars));
            if *name == "pow" {
                return power(tape, a, b);
            }
            // A constant first argument of a two-argument function becomes a
            // leaf of the tape (a node that is not differentiated against).
            let a = match (a, b) {
                (C(a), C(b)) => {
                    return C(match *name {
                        "atan2" => a.atan2(b),
                        "hypot" => a.hypot(b),
                        "max" => a.max(b),
                        "min" => a.min(b),
                        _ => a.log(b),
                    })
                }
                (C(a), _) => tape.var(a),
                (V(a), _) => a,
            };
            let b: Operand = match b {
                C(b) => b.into(),
                V(b) => b.into(),
            };
            V(match *name {
                "atan2" => a.atan2(b),
                "hypot" => a.hypot(b),
                "max" => a.max(b),
                "min" => a.min(b),
                _ => a.log(b),
            })
        }
    }
}

/// `a^b`: `powi` for a constant integer exponent, `exp(b · ln a)` for a
/// constant base, `powf` otherwise.
fn power<'t>(tape: &'t Tape, a: Val<'t>, b: Val<'t>) -> Val<'t> {
    use Val::{C, V};
    let integer = |b: f64| b.fract() == 0.0 && b.abs() <= i32::MAX as f64;
    match (a, b) {
        (C(a), C(b)) => C(a.powf(b)),
        (V(a), C(b)) if integer(b) => V(a.powi(b as i32)),
        (V(a), C(b)) => V(a.powf(b)),
        (C(a), V(b)) if a > 0.0 => V((b * a.ln()).exp()),
        (C(a), V(b)) => V(tape.var(a).powf(b)),
        (V(a), V(b)) => V(a.powf(b)),
    }
}

/// An expression of depth at most 4 over `x`, `y`, `z`, drawn from
/// `seed`, in the parser's syntax; smooth everywhere (no kinks, no poles),
/// so finite differences are meaningful at any point.
pub fn random_expression(seed: u64) -> String {
    // SplitMix64: a few lines instead of a dependency.
    let mut state = seed;
    let mut next = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    fn tree(next: &mut dyn FnMut() -> u64, depth: u32) -> String {
        if depth == 0 || next() % 4 == 0 {
            return match next() % 4 {
                0 => format!("{}", 1 + next() % 9) + "." + &(next() % 10).to_string(),
                k => ["x", "y", "z"][k as usize - 1].to_string(),
            };
        }
        let choice = next() % 11;
        let mut sub = || tree(next, depth - 1);
        match choice {
            0 => format!("({} + {})", sub(), sub()),
            1 => format!("({} - {})", sub(), sub()),
            2 | 3 => format!("{} * {}", sub(), sub()),
            4 => format!("{} / (1 + ({})^2)", sub(), sub()),
            5 => format!("sin({})", sub()),
            6 => format!("cos({})", sub()),
            7 => format!("tanh({})", sub()),
            8 => format!("atan({})", sub()),
            9 => format!("ln(1 + ({})^2)", sub()),
            _ => format!("sqrt(1 + ({})^2)", sub()),
        }
    }
    tree(&mut next, 4)
}

/// What differentiating one expression gave.
pub struct DynamicResult {
    /// The expression.
    pub expression: String,
    /// The variables, in order of first appearance, with their values.
    pub variables: Vec<(String, f64)>,
    /// The expression's value.
    pub value: f64,
    /// `∂/∂` each variable, from the tape, in the order of `variables`.
    pub gradient: Vec<f64>,
    /// The tape gradient against central finite differences.
    pub report: Report,
    /// Nodes the tape recorded.
    pub nodes: usize,
    /// The Graphviz of the graph, if asked for.
    pub dot: Option<String>,
}

impl DynamicResult {
    /// Whether the tape gradient agrees with finite differences to [`TOLERANCE`].
    pub fn passed(&self) -> bool {
        self.report.is_ok(TOLERANCE)
    }
}

/// Parses `expression`, records it on a tape at the values `assigned` (a
/// variable not assigned takes the next of 0.5, 1.5, ...), differentiates
/// it, and checks the gradient against finite differences.
pub fn differentiate(
    expression: &str,
    assigned: &[(String, f64)],
    dot: bool,
    verbose: bool,
) -> Result<DynamicResult, String> {
    let (expr, names) = parse(expression)?;
    if let Some((name, _)) = assigned.iter().find(|(n, _)| !names.contains(n)) {
        return Err(format!("`{name}` is not a variable of `{expression}`"));
    }
    let variables: Vec<(String, f64)> = names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let given = assigned.iter().rev().find(|(n, _)| n == name);
            (name.clone(), given.map_or(0.5 + i as f64, |(_, v)| *v))
        })
        .collect();
    let point: Vec<f64> = variables.iter().map(|(_, v)| *v).collect();

    let tape = Tape::new();
    let vars: Vec<Var> = variables
        .iter()
        .map(|(name, value)| tape.var_named(name, *value))
        .collect();
    let out = match record(&expr, &tape, &vars) {
        Val::V(v) => v,
        // A constant expression: record it so there is something to differentiate.
        Val::C(c) => tape.var(c),
    };
    let grads = out.backward();
    let gradient = grads.wrt_all(&vars);
    let nodes = tape.len();
    let dot = dot.then(|| out.to_dot());

    // The same expression re-recorded at nearby points, on one reused tape.
    let scratch = Tape::new();
    let f = |p: &[f64]| {
        scratch.clear();
        let vars: Vec<Var> = p.iter().map(|&v| scratch.var(v)).collect();
        match record(&expr, &scratch, &vars) {
            Val::V(v) => v.value(),
            Val::C(c) => c,
        }
    };
    let report = check::gradient(f, &point, &gradient);

    let result = DynamicResult {
        expression: expression.to_string(),
        variables,
        value: out.value(),
        gradient,
        report,
        nodes,
        dot,
    };
    if verbose {
        let at: Vec<String> = result
            .variables
            .iter()
            .map(|(n, v)| format!("{n} = {v}"))
            .collect();
        println!("f = {}", result.expression);
        let at = if at.is_empty() {
            "no variables".to_string()
        } else {
            at.join(", ")
        };
        println!("at {at}: f = {:.12}  ({nodes} tape nodes)", result.value);
        for ((name, _), d) in result.variables.iter().zip(&result.gradient) {
            println!("  ∂f/∂{name} = {d:+.12}");
        }
        println!("{}", result.report);
    }
    Ok(result)
}

/// Differentiates [`DEFAULT_EXPRESSION`] at x = 0.5, y = 1.5.
pub fn run(verbose: bool) -> DynamicResult {
    match differentiate(DEFAULT_EXPRESSION, &[], false, verbose) {
        Ok(result) => result,
        Err(e) => panic!("the default expression does not parse: {e}"),
    }
}

fn main() {
    let mut expression = None;
    let mut assigned = Vec::new();
    let mut dot = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--dot" {
            dot = true;
        } else if arg == "--random" {
            let seed = args.next().and_then(|s| s.parse().ok()).unwrap_or(0);
            expression = Some(random_expression(seed));
        } else if let Some((name, value)) = arg.split_once('=') {
            match value.trim().parse() {
                Ok(v) => assigned.push((name.trim().to_string(), v)),
                Err(_) => {
                    eprintln!("dynamic: `{arg}`: `{value}` is not a number");
                    std::process::exit(2);
                }
            }
        } else {
            expression = Some(arg);
        }
    }
    let expression = expression.unwrap_or_else(|| DEFAULT_EXPRESSION.to_string());
    // With --dot, stdout is the graph alone (pipe it to `dot`); the rest goes to stderr.
    let result = match differentiate(&expression, &assigned, dot, !dot) {
        Ok(result) => result,
        Err(e) => {
            eprintln!("dynamic: {e}");
            std::process::exit(2);
        }
    };
    if let Some(graph) = &result.dot {
        print!("{graph}");
    }
    let line = format!(
        "dynamic: tape gradient vs finite differences: max rel error {:.1e} — {} (tolerance {:.0e})",
        result.report.max_rel_error,
        if result.passed() { "ok" } else { "FAILED" },
        TOLERANCE
    );
    if dot {
        eprintln!("{line}");
    } else {
        println!("{line}");
    }
    if !result.passed() {
        std::process::exit(1);
    }
}
