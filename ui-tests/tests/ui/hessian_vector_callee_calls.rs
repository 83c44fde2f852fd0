use autograd::differentiable;

#[differentiable(hessian)]
fn model(p: &[f64], t: f64) -> f64 {
    p[0] * (p[1] * t).exp()
}

// A vector-valued function that calls another one with its parameters: a
// `hessian` function cannot call it (its second-order adjoint would need
// `model`'s, which the macro cannot see from here).
#[differentiable(wrt(p))]
fn residuals(p: &[f64], t: &[f64], y: &[f64]) -> Vec<f64> {
    let mut r = vec![0.0; t.len()];
    for i in 0..t.len() {
        r[i] = model(p, t[i]) - y[i];
    }
    r
}

#[differentiable(wrt(p), hessian)]
fn cost(p: &[f64], t: &[f64], y: &[f64]) -> f64 {
    let r = residuals(p, t, y);
    r[0] * r[0]
}



#[differentiable(hessian)]
fn wave(s: f64) -> f64 {
    s.sin()
}

#[differentiable]
fn curve(s: f64) -> [f64; 2] {
    [wave(s), s * s]
}

#[differentiable(hessian)]
fn energy(s: f64) -> f64 {
    let p = curve(s);
    p[0] * p[1]
}
struct Fit {
    t: Vec<f64>,
}

#[differentiable(wrt(q), hessian)]
fn line(q: &[f64], t: f64) -> f64 {
    q[0] + q[1] * t
}

impl Fit {
    #[differentiable(wrt(p))]
    fn residuals(&self, p: &[f64]) -> Vec<f64> {
        let mut r = vec![0.0; self.t.len()];
        for i in 0..self.t.len() {
            r[i] = line(p, self.t[i]);
        }
        r
    }

    #[differentiable(wrt(p), hessian)]
    fn cost(&self, p: &[f64]) -> f64 {
        let r = self.residuals(p);
        r[0] * r[1]
    }
}

fn main() {}
