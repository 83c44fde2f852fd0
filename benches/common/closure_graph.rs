//! The baseline the project started from: a scalar graph of reference-counted
//! nodes, each holding its value, its gradient, its operands and a boxed
//! closure that pushes its gradient into its operands' — micrograd's engine,
//! written the way a Rust engineer would port it.
//!
//! `backward()` sorts the graph topologically with a recursive depth-first
//! walk (a `HashSet` of visited nodes), then runs the closures in reverse
//! order; gradients accumulate with `+=`, so fan-out is correct.
//!
//! This is deliberately the straightforward design, not a tuned one: it is
//! what the benchmarks measure the generated adjoints and the tape against,
//! so it pays what that design pays — one `Rc<RefCell<_>>` allocation and
//! one `Vec` of operands per operation, a leaf node per constant (as
//! micrograd wraps a number in a `Value`), a hash-set lookup per node in the
//! sort, a dynamic call per node in the sweep, and a recursive drop of the
//! whole graph at the end. The recursion (in the sort and in the drop)
//! bounds the depth of graph it can handle by the thread's stack; the
//! deepest workload here, Rosenbrock at n = 10 000, is about 10 000 deep.

use super::workloads::{REST, SOFTNESS};
use std::cell::RefCell;
use std::collections::HashSet;
use std::ops::{Add, Div, Mul, Neg, Sub};
use std::rc::Rc;

/// A scalar in the graph; cloning it shares the node.
#[derive(Clone)]
pub struct Value(Rc<RefCell<Node>>);

/// The closure that, given the node it belongs to (its gradient, value and
/// operands), adds the node's gradient times each local partial derivative
/// into the operands' gradients.
type Backward = Box<dyn Fn(&Node)>;

struct Node {
    data: f64,
    grad: f64,
    children: Vec<Value>,
    backward: Option<Backward>,
}

impl Value {
    /// A leaf: an input, or a constant.
    pub fn new(data: f64) -> Value {
        Value::node(data, Vec::new(), None)
    }

    fn node(data: f64, children: Vec<Value>, backward: Option<Backward>) -> Value {
        Value(Rc::new(RefCell::new(Node {
            data,
            grad: 0.0,
            children,
            backward,
        })))
    }

    pub fn data(&self) -> f64 {
        self.0.borrow().data
    }

    /// ∂(the value `backward` was called on)/∂self, once `backward` has run.
    pub fn grad(&self) -> f64 {
        self.0.borrow().grad
    }

    fn add_grad(&self, g: f64) {
        self.0.borrow_mut().grad += g;
    }

    /// `max(self, 0)`; derivative 0 at 0.
    pub fn relu(&self) -> Value {
        let data = self.data();
        Value::node(
            data.max(0.0),
            vec![self.clone()],
            Some(Box::new(|out: &Node| {
                if out.children[0].data() > 0.0 {
                    out.children[0].add_grad(out.grad);
                }
            })),
        )
    }

    /// `max(self, other)`; at a tie the derivative is split equally, as in
    /// the macro and the tape.
    pub fn max(&self, other: &Value) -> Value {
        let (a, b) = (self.data(), other.data());
        Value::node(
            a.max(b),
            vec![self.clone(), other.clone()],
            Some(Box::new(|out: &Node| {
                let (a, b) = (&out.children[0], &out.children[1]);
                let (share_a, share_b) = match a.data().partial_cmp(&b.data()) {
                    Some(std::cmp::Ordering::Greater) => (1.0, 0.0),
                    Some(std::cmp::Ordering::Less) => (0.0, 1.0),
                    _ => (0.5, 0.5),
                };
                a.add_grad(share_a * out.grad);
                b.add_grad(share_b * out.grad);
            })),
        )
    }

    pub fn sqrt(&self) -> Value {
        let data = self.data().sqrt();
        Value::node(
            data,
            vec![self.clone()],
            Some(Box::new(|out: &Node| {
                out.children[0].add_grad(out.grad * 0.5 / out.data);
            })),
        )
    }

    pub fn powi(&self, n: i32) -> Value {
        let x = self.data();
        Value::node(
            x.powi(n),
            vec![self.clone()],
            // This closure captures `n`, so unlike the others it allocates.
            Some(Box::new(move |out: &Node| {
                let x = out.children[0].data();
                out.children[0].add_grad(out.grad * f64::from(n) * x.powi(n - 1));
            })),
        )
    }

    /// Sets `∂self/∂v` into every node `v` that `self` depends on.
    pub fn backward(&self) {
        let mut topo = Vec::new();
        let mut visited = HashSet::new();
        build_topo(self, &mut visited, &mut topo);
        self.0.borrow_mut().grad = 1.0;
        for v in topo.iter().rev() {
            let node = v.0.borrow();
            if let Some(backward) = &node.backward {
                backward(&node);
            }
        }
    }
}

/// Post-order depth-first walk: every node comes after its operands.
fn build_topo(v: &Value, visited: &mut HashSet<*const RefCell<Node>>, topo: &mut Vec<Value>) {
    if visited.insert(Rc::as_ptr(&v.0)) {
        for child in &v.0.borrow().children {
            build_topo(child, visited, topo);
        }
        topo.push(v.clone());
    }
}

// ----- arithmetic --------------------------------------------------------------

fn add(a: &Value, b: &Value) -> Value {
    Value::node(
        a.data() + b.data(),
        vec![a.clone(), b.clone()],
        Some(Box::new(|out: &Node| {
            out.children[0].add_grad(out.grad);
            out.children[1].add_grad(out.grad);
        })),
    )
}

fn sub(a: &Value, b: &Value) -> Value {
    Value::node(
        a.data() - b.data(),
        vec![a.clone(), b.clone()],
        Some(Box::new(|out: &Node| {
            out.children[0].add_grad(out.grad);
            out.children[1].add_grad(-out.grad);
        })),
    )
}

fn mul(a: &Value, b: &Value) -> Value {
    Value::node(
        a.data() * b.data(),
        vec![a.clone(), b.clone()],
        Some(Box::new(|out: &Node| {
            let (a, b) = (&out.children[0], &out.children[1]);
            let (da, db) = (b.data() * out.grad, a.data() * out.grad);
            a.add_grad(da);
            b.add_grad(db);
        })),
    )
}

fn div(a: &Value, b: &Value) -> Value {
    Value::node(
        a.data() / b.data(),
        vec![a.clone(), b.clone()],
        Some(Box::new(|out: &Node| {
            let (a, b) = (&out.children[0], &out.children[1]);
            let q = b.data().recip();
            a.add_grad(out.grad * q);
            b.add_grad(-out.grad * out.data * q);
        })),
    )
}

impl Neg for &Value {
    type Output = Value;
    fn neg(self) -> Value {
        Value::node(
            -self.data(),
            vec![self.clone()],
            Some(Box::new(|out: &Node| out.children[0].add_grad(-out.grad))),
        )
    }
}

impl Neg for Value {
    type Output = Value;
    fn neg(self) -> Value {
        -&self
    }
}

/// Every operator between `Value`, `&Value` and `f64` (a number becomes a
/// leaf node first, as in micrograd), on top of one function per operator.
macro_rules! binary_ops {
    ($($Trait:ident $method:ident $f:ident;)*) => {$(
        impl $Trait<&Value> for &Value {
            type Output = Value;
            fn $method(self, rhs: &Value) -> Value { $f(self, rhs) }
        }
        impl $Trait<Value> for &Value {
            type Output = Value;
            fn $method(self, rhs: Value) -> Value { $f(self, &rhs) }
        }
        impl $Trait<&Value> for Value {
            type Output = Value;
            fn $method(self, rhs: &Value) -> Value { $f(&self, rhs) }
        }
        impl $Trait<Value> for Value {
            type Output = Value;
            fn $method(self, rhs: Value) -> Value { $f(&self, &rhs) }
        }
        impl $Trait<f64> for &Value {
            type Output = Value;
            fn $method(self, rhs: f64) -> Value { $f(self, &Value::new(rhs)) }
        }
        impl $Trait<f64> for Value {
            type Output = Value;
            fn $method(self, rhs: f64) -> Value { $f(&self, &Value::new(rhs)) }
        }
        impl $Trait<&Value> for f64 {
            type Output = Value;
            fn $method(self, rhs: &Value) -> Value { $f(&Value::new(self), rhs) }
        }
        impl $Trait<Value> for f64 {
            type Output = Value;
            fn $method(self, rhs: Value) -> Value { $f(&Value::new(self), &rhs) }
        }
    )*};
}

binary_ops! {
    Add add add;
    Sub sub sub;
    Mul mul mul;
    Div div div;
}

/// `values.sum()` starts from a zero leaf, as Python's `sum` does.
impl std::iter::Sum for Value {
    fn sum<I: Iterator<Item = Value>>(iter: I) -> Value {
        iter.fold(Value::new(0.0), |acc, v| acc + v)
    }
}

// ----- the workloads on this graph ---------------------------------------------

/// Builds the graph of `f` at `x` (fresh leaves for the inputs), runs
/// `backward()` and writes the gradient into `grad`; returns the value. The
/// graph is dropped before returning, so its teardown is part of the cost.
pub fn gradient(x: &[f64], grad: &mut [f64], f: impl FnOnce(&[Value]) -> Value) -> f64 {
    let inputs: Vec<Value> = x.iter().map(|&v| Value::new(v)).collect();
    let y = f(&inputs);
    y.backward();
    for (d, v) in grad.iter_mut().zip(&inputs) {
        *d = v.grad();
    }
    y.data()
}

pub fn rosenbrock(x: &[Value]) -> Value {
    (0..x.len() - 1)
        .map(|i| {
            let t = &x[i + 1] - &x[i] * &x[i];
            let u = 1.0 - &x[i];
            100.0 * &t * &t + &u * &u
        })
        .sum()
}

pub fn mlp_loss(w: &[Value], xs: &[f64], ys: &[f64]) -> Value {
    let n = ys.len();
    let total: Value = (0..n)
        .map(|s| {
            let h1: Vec<Value> = (0..16)
                .map(|j| {
                    (&w[32 + j] + &w[j * 2] * xs[2 * s] + &w[j * 2 + 1] * xs[2 * s + 1]).relu()
                })
                .collect();
            let h2: Vec<Value> = (0..16)
                .map(|j| {
                    let mut a = w[304 + j].clone();
                    for (k, h) in h1.iter().enumerate() {
                        a = a + &w[48 + j * 16 + k] * h;
                    }
                    a.relu()
                })
                .collect();
            let mut out = w[336].clone();
            for (k, h) in h2.iter().enumerate() {
                out = out + &w[320 + k] * h;
            }
            (1.0 - ys[s] * &out).relu()
        })
        .sum();
    let reg: Value = w.iter().map(|p| p * p).sum();
    total / n as f64 + 1e-4 * reg
}

pub fn newton_sqrt(a: &[Value]) -> Value {
    let a = &a[0];
    let mut x = a.clone();
    for _ in 0..30 {
        x = 0.5 * (&x + a / &x);
    }
    x
}

pub fn springs(x: &[Value]) -> Value {
    (0..x.len() - 1)
        .map(|i| {
            let d = &x[i + 1] - &x[i];
            let stretch = (&d * &d + SOFTNESS).sqrt() - REST;
            &stretch * &stretch
        })
        .sum()
}
