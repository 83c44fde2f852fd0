//! Textbook test problems of unconstrained optimisation (from Moré, Garbow
//! and Hillstrom's set), written as an experienced Rust programmer writes
//! them: iterator chains over data literals and ranges, closures,
//! destructuring, `get(..).copied().unwrap_or(..)`, `match`. Each must be
//! accepted as written and agree with central finite differences.

use autograd::differentiable;

#[differentiable]
fn beale(x: &[f64; 2]) -> f64 {
    let [a, b] = *x;
    [1.5, 2.25, 2.625]
        .iter()
        .enumerate()
        .map(|(i, y)| {
            let t = y - a * (1.0 - b.powi(i as i32 + 1));
            t * t
        })
        .sum()
}

#[differentiable]
fn box3d(x: &[f64]) -> f64 {
    let (a, b, c) = (x[0], x[1], x[2]);
    (1..=10)
        .map(|i| {
            let t = 0.1 * i as f64;
            let r = (-t * a).exp() - (-t * b).exp() - c * ((-t).exp() - (-10.0 * t).exp());
            r * r
        })
        .sum()
}

#[differentiable]
fn watson(x: &[f64]) -> f64 {
    let mut f = 0.0;
    for i in 1..=29 {
        let t = i as f64 / 29.0;
        let s1: f64 = x
            .iter()
            .enumerate()
            .skip(1)
            .map(|(j, xj)| j as f64 * xj * t.powi(j as i32 - 1))
            .sum();
        let s2: f64 = x
            .iter()
            .enumerate()
            .map(|(j, xj)| xj * t.powi(j as i32))
            .sum();
        let r = s1 - s2 * s2 - 1.0;
        f += r * r;
    }
    f + x[0] * x[0] + (x[1] - x[0] * x[0] - 1.0).powi(2)
}

#[differentiable]
fn broyden_tridiagonal(x: &[f64]) -> f64 {
    let n = x.len();
    (0..n)
        .map(|i| {
            let prev = if i > 0 { x[i - 1] } else { 0.0 };
            let next = x.get(i + 1).copied().unwrap_or(0.0);
            let r = (3.0 - 2.0 * x[i]) * x[i] - prev - 2.0 * next + 1.0;
            r * r
        })
        .sum()
}

#[differentiable]
fn brown_almost_linear(x: &[f64]) -> f64 {
    let n = x.len() as f64;
    let total: f64 = x.iter().sum();
    let prod: f64 = x.iter().product();
    let head: f64 = x[..x.len() - 1]
        .iter()
        .map(|v| (v + total - (n + 1.0)).powi(2))
        .sum();
    head + (prod - 1.0).powi(2)
}

#[differentiable]
fn penalty_one(x: &[f64]) -> f64 {
    let a = 1e-5;
    let sq: f64 = x.iter().map(|v| v * v).sum();
    a * x.iter().map(|v| (v - 1.0).powi(2)).sum::<f64>() + (sq - 0.25).powi(2)
}

#[differentiable]
fn discrete_integral(x: &[f64]) -> f64 {
    let n = x.len();
    let h = 1.0 / (n as f64 + 1.0);
    let t = |k: usize| (k + 1) as f64 * h;
    let mut f = 0.0;
    for i in 0..n {
        let ti = t(i);
        let lower: f64 = (0..=i).map(|j| t(j) * (x[j] + t(j) + 1.0).powi(3)).sum();
        let upper: f64 = (i + 1..n)
            .map(|j| (1.0 - t(j)) * (x[j] + t(j) + 1.0).powi(3))
            .sum();
        let r = x[i] + h * ((1.0 - ti) * lower + ti * upper) / 2.0;
        f += r * r;
    }
    f
}

#[differentiable]
fn chebyquad(x: &[f64]) -> f64 {
    let n = x.len();
    let mut f = 0.0;
    for i in 1..=n {
        let mean: f64 = x
            .iter()
            .map(|&xj| {
                let y = 2.0 * xj - 1.0;
                let (mut t0, mut t1) = (1.0, y);
                for _ in 1..i {
                    let t2 = 2.0 * y * t1 - t0;
                    t0 = t1;
                    t1 = t2;
                }
                t1
            })
            .sum::<f64>()
            / n as f64;
        let r = if i % 2 == 0 {
            mean + 1.0 / ((i * i) as f64 - 1.0)
        } else {
            mean
        };
        f += r * r;
    }
    f
}

#[differentiable]
fn helical_valley(x: &[f64; 3]) -> f64 {
    let [a, b, c] = *x;
    let theta = match a > 0.0 {
        true => (b / a).atan() / (2.0 * std::f64::consts::PI),
        false => (b / a).atan() / (2.0 * std::f64::consts::PI) + 0.5,
    };
    100.0 * ((c - 10.0 * theta).powi(2) + ((a * a + b * b).sqrt() - 1.0).powi(2)) + c * c
}

#[test]
fn textbook_problems_written_idiomatically_match_finite_differences() {
    type Value = fn(&[f64]) -> f64;
    type Grad = fn(&[f64]) -> (f64, Vec<f64>);
    let problems: [(&str, Value, Grad); 7] = [
        ("box3d", box3d, box3d_grad),
        ("watson", watson, watson_grad),
        (
            "broyden tridiagonal",
            broyden_tridiagonal,
            broyden_tridiagonal_grad,
        ),
        (
            "brown almost-linear",
            brown_almost_linear,
            brown_almost_linear_grad,
        ),
        ("penalty I", penalty_one, penalty_one_grad),
        (
            "discrete integral equation",
            discrete_integral,
            discrete_integral_grad,
        ),
        ("chebyquad", chebyquad, chebyquad_grad),
    ];
    for x in [[0.3, -0.2, 0.5], [0.8, 0.1, -0.6]] {
        for (name, f, grad) in problems {
            let (value, d) = grad(&x);
            assert_eq!(value, f(&x), "{name}");
            let report = autograd::check::gradient(f, &x, &d);
            assert!(report.is_ok(1e-6), "{name} at {x:?}: {report}");
        }
        let (value, d) = beale_grad(&[x[0], x[1]]);
        assert_eq!(value, beale(&[x[0], x[1]]));
        let report = autograd::check::gradient(|p| beale(&[p[0], p[1]]), &x[..2], &d);
        assert!(report.is_ok(1e-6), "beale at {x:?}: {report}");
        let p = [x[0] + 1.0, x[1], x[2]];
        let (value, d) = helical_valley_grad(&p);
        assert_eq!(value, helical_valley(&p));
        let report = autograd::check::gradient(|q| helical_valley(&[q[0], q[1], q[2]]), &p, &d);
        assert!(report.is_ok(1e-6), "helical valley at {p:?}: {report}");
    }
}
