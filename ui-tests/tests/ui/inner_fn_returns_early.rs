use autograd::differentiable;

// A `fn` declared inside the body is inlined at its calls like a closure,
// unless it returns early (or is generic or recursive): a differentiated
// call of such a one is refused, naming it.
#[differentiable]
fn f(x: f64) -> f64 {
    fn ramp(t: f64) -> f64 {
        if t < 0.0 {
            return 0.0;
        }
        t
    }
    fn twice(t: usize) -> usize {
        if t > 9 {
            return t;
        }
        2 * t
    }
    ramp(x) * twice(2) as f64
}

fn main() {}
