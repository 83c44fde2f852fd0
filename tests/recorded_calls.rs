//! Calls given local arrays inside recorded loop nests
//! (`autograd-macros/src/record.rs`, `copied_args`): the forward sweep
//! copies each array the function stores into at the call, and the reverse
//! gives the callee's adjoint that copy, as the call saw it — later
//! iterations have overwritten the array by then. Each function here has a
//! twin with its nest inside an `if`, which keeps the nest replayed (the
//! way such calls were differentiated before); both are checked against
//! central finite differences and against each other.

#![allow(clippy::needless_range_loop)]

mod common;

use autograd::differentiable;
use common::{assert_close, check_gradient_and_adjoint};

const POINTS: [[f64; 6]; 3] = [
    [0.7, -1.3, 0.4, 1.9, -0.6, 1.1],
    [1.2, 0.3, -0.8, 0.5, 2.1, -0.2],
    [-0.4, 0.9, 1.6, -1.1, 0.2, 0.8],
];

macro_rules! twins {
    ($test:ident: $recorded:ident, $recorded_grad:ident, $recorded_adjoint:ident;
     $replayed:ident, $replayed_grad:ident, $replayed_adjoint:ident) => {
        #[test]
        fn $test() {
            check_gradient_and_adjoint(
                $recorded,
                |x| $recorded_grad(x),
                $recorded_adjoint,
                &POINTS,
            );
            check_gradient_and_adjoint(
                $replayed,
                |x| $replayed_grad(x),
                $replayed_adjoint,
                &POINTS,
            );
            for x in POINTS {
                let (value, gradient) = $recorded_grad(&x);
                let (replayed_value, replayed_gradient) = $replayed_grad(&x);
                assert_eq!(value, replayed_value, "at {x:?}");
                assert_close(&gradient, &replayed_gradient, &x);
            }
        }
    };
}

#[differentiable]
fn log_sum_exp(v: &[f64], n: usize) -> f64 {
    let mut sum = 0.0;
    for i in 0..n {
        sum += v[i].exp();
    }
    (sum + 2.0).ln()
}

#[differentiable]
fn weighted(v: &[f64; 3], w: [f64; 3]) -> f64 {
    v[0] * w[0] + v[1] * w[1].sin() + v[2] * w[2]
}

#[differentiable]
fn pair(a: &[f64], b: &[f64]) -> f64 {
    a[0] * b[1] - a[1] * b[0] + a[0] * a[0]
}

// A sequence model's step: a buffer of predictions overwritten every step,
// its log-sum-exp by a helper, a state carried from step to step.
#[differentiable]
fn steps(x: &[f64]) -> f64 {
    let n = 3;
    let mut ypred = vec![0.0; n];
    let mut state = x[3..6].to_vec();
    let mut total = 0.0;
    for t in 0..4 {
        for i in 0..n {
            ypred[i] = (state[i] * x[i]).tanh() + 0.1 * t as f64;
        }
        let lse = log_sum_exp(&ypred, n);
        for i in 0..n {
            total += x[(i + t) % 6] * (ypred[i] - lse);
            state[i] = state[i] * 0.5 + ypred[i];
        }
    }
    total
}

#[differentiable]
fn steps_replayed(x: &[f64]) -> f64 {
    let n = 3;
    let mut ypred = vec![0.0; n];
    let mut state = x[3..6].to_vec();
    let mut total = 0.0;
    // (in an `if`: a nest outside the function body is replayed)
    if x.len() < 1000 {
        for t in 0..4 {
            for i in 0..n {
                ypred[i] = (state[i] * x[i]).tanh() + 0.1 * t as f64;
            }
            let lse = log_sum_exp(&ypred, n);
            for i in 0..n {
                total += x[(i + t) % 6] * (ypred[i] - lse);
                state[i] = state[i] * 0.5 + ypred[i];
            }
        }
    }
    total
}

twins!(a_buffer_overwritten_every_step_is_given_as_called:
    steps, steps_grad, steps_adjoint;
    steps_replayed, steps_replayed_grad, steps_replayed_adjoint);

// Subslices, fixed-size arrays by reference and by value, one array given
// twice, two arrays in one call, a call in a branch of an inner loop, and
// a parameter and an array nothing stores into (given as they are).
#[differentiable]
fn shapes(x: &[f64]) -> f64 {
    let mut buf = x.to_vec();
    let mut fixed = [x[0], x[1], x[2]];
    let data = [0.5, -0.25];
    let mut total = 0.0;
    for t in 0..3 {
        for i in 0..6 {
            buf[i] = (buf[i] * x[(i + t) % 6]).sin();
        }
        for k in 0..3 {
            fixed[k] = fixed[k] * 0.5 + buf[k + t];
            if buf[k] > 0.0 {
                total += log_sum_exp(&buf[k..k + 2], 2);
            }
        }
        total += log_sum_exp(&buf[1..], 4) * weighted(&fixed, fixed);
        total += pair(&buf, &buf) + pair(&fixed, &buf[2..4]) + pair(&data, &fixed);
        total += pair(x, &data);
    }
    total
}

#[differentiable]
fn shapes_replayed(x: &[f64]) -> f64 {
    let mut buf = x.to_vec();
    let mut fixed = [x[0], x[1], x[2]];
    let data = [0.5, -0.25];
    let mut total = 0.0;
    // (in an `if`: a nest outside the function body is replayed)
    if x.len() < 1000 {
        for t in 0..3 {
            for i in 0..6 {
                buf[i] = (buf[i] * x[(i + t) % 6]).sin();
            }
            for k in 0..3 {
                fixed[k] = fixed[k] * 0.5 + buf[k + t];
                if buf[k] > 0.0 {
                    total += log_sum_exp(&buf[k..k + 2], 2);
                }
            }
            total += log_sum_exp(&buf[1..], 4) * weighted(&fixed, fixed);
            total += pair(&buf, &buf) + pair(&fixed, &buf[2..4]) + pair(&data, &fixed);
            total += pair(x, &data);
        }
    }
    total
}

twins!(arrays_of_every_shape_are_given_as_called:
    shapes, shapes_grad, shapes_adjoint;
    shapes_replayed, shapes_replayed_grad, shapes_replayed_adjoint);

// The names this change generates, as a user's: a buffer called
// `__ad_as_called`, locals `__ad_args`, `__ad_partials`, `__ad_at`, and a
// scalar helper whose partials the forward sweep takes.
#[differentiable]
fn squash(v: f64) -> f64 {
    1.0 / (1.0 + (-v).exp())
}

#[differentiable]
fn user_names(x: &[f64]) -> f64 {
    let n = 3;
    let mut __ad_as_called = vec![0.0; n];
    let mut __ad_args = 0.0;
    for t in 0..3 {
        for i in 0..n {
            let __ad_at = squash(x[i] * x[(i + t) % 6]);
            __ad_as_called[i] = __ad_at + 0.5 * __ad_as_called[i];
        }
        let __ad_partials = log_sum_exp(&__ad_as_called, n);
        __ad_args += __ad_partials * x[t];
    }
    __ad_args
}

#[differentiable]
fn user_names_replayed(x: &[f64]) -> f64 {
    let n = 3;
    let mut __ad_as_called = vec![0.0; n];
    let mut __ad_args = 0.0;
    // (in an `if`: a nest outside the function body is replayed)
    if x.len() < 1000 {
        for t in 0..3 {
            for i in 0..n {
                let __ad_at = squash(x[i] * x[(i + t) % 6]);
                __ad_as_called[i] = __ad_at + 0.5 * __ad_as_called[i];
            }
            let __ad_partials = log_sum_exp(&__ad_as_called, n);
            __ad_args += __ad_partials * x[t];
        }
    }
    __ad_args
}

twins!(generated_names_as_users_names:
    user_names, user_names_grad, user_names_adjoint;
    user_names_replayed, user_names_replayed_grad, user_names_replayed_adjoint);

// A recurrent step: each row of a product by a helper given the hidden
// state, which only the step's last loop stores into. The forward sweep
// copies such an array once after the loop around the calls
// (`record::hoisted_copies`) instead of at every call: `hidden` after the
// rows' loop; `next` and `gate`, which the step declares, after the loop
// two levels up from their calls, and after a loop that runs no iteration
// at the first step. Not hoisted: a call in a branch, and an array the
// loop around the call stores into.
#[differentiable]
fn recurrent(x: &[f64]) -> f64 {
    let n = 3;
    let mut hidden = x[3..6].to_vec();
    let mut total = 0.0;
    for t in 0..3 {
        let mut next = vec![0.0; n];
        for i in 0..n {
            next[i] = (pair(&x[i..i + 2], &hidden) + x[(i + t) % 6]).tanh();
        }
        let mut gate = [0.0; 2];
        for k in 0..2 {
            gate[k] = next[k] * hidden[k + 1];
        }
        for i in 0..2 {
            for j in 0..i + 1 {
                total += log_sum_exp(&next, n) * pair(&gate, &x[j..]);
            }
            if next[i] > 0.0 {
                total += pair(&hidden, &next[i..]);
            }
        }
        for j in 0..t {
            total += pair(&next[j..], &x[j + 1..]);
        }
        for i in 0..n {
            hidden[i] = 0.5 * hidden[i] + next[i];
            total += pair(&hidden, &x[i..]);
        }
    }
    total
}

#[differentiable]
fn recurrent_replayed(x: &[f64]) -> f64 {
    let n = 3;
    let mut hidden = x[3..6].to_vec();
    let mut total = 0.0;
    // (in an `if`: a nest outside the function body is replayed)
    if x.len() < 1000 {
        for t in 0..3 {
            let mut next = vec![0.0; n];
            for i in 0..n {
                next[i] = (pair(&x[i..i + 2], &hidden) + x[(i + t) % 6]).tanh();
            }
            let mut gate = [0.0; 2];
            for k in 0..2 {
                gate[k] = next[k] * hidden[k + 1];
            }
            for i in 0..2 {
                for j in 0..i + 1 {
                    total += log_sum_exp(&next, n) * pair(&gate, &x[j..]);
                }
                if next[i] > 0.0 {
                    total += pair(&hidden, &next[i..]);
                }
            }
            for j in 0..t {
                total += pair(&next[j..], &x[j + 1..]);
            }
            for i in 0..n {
                hidden[i] = 0.5 * hidden[i] + next[i];
                total += pair(&hidden, &x[i..]);
            }
        }
    }
    total
}

twins!(an_array_unchanged_in_a_loop_is_copied_once_after_it:
    recurrent, recurrent_grad, recurrent_adjoint;
    recurrent_replayed, recurrent_replayed_grad, recurrent_replayed_adjoint);
