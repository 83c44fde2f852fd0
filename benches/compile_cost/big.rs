//! The input of the compile-time cost measurement (issue #8, item 4): a
//! ~200-line `#[differentiable]` function, `landing_cost`, that simulates a
//! small 2-D rocket landing and scores it. It mixes what real models use:
//! many lets and shadowing, arithmetic, transcendental methods, branches,
//! `for`/`while`/`loop` with `break` and `continue`, slices and local
//! buffers, and calls to two helper differentiable functions.
//!
//! `benches/compile_cost.sh` expands and compiles this file, with and
//! without the attribute; `tests/compile_cost.rs` checks its gradient
//! against finite differences so it keeps compiling and stays correct.

// Index loops, as the formulas are written.
#![allow(clippy::needless_range_loop)]

use autograd::differentiable;

/// Standard gravity, m/s².
const G0: f64 = 9.80665;
/// Points in the drag-coefficient table (Mach 0, 0.25, .., 1.25).
const N_AERO: usize = 6;
/// A sensor sample is taken every this many steps.
const SAMPLE_EVERY: usize = 5;

/// Aerodynamic drag, N: ½ ρ C_d A v².
#[differentiable]
pub fn drag(speed: f64, density: f64, cd_area: f64) -> f64 {
    0.5 * density * cd_area * speed * speed
}

/// A smooth positive part, `ln(1 + e^(k x)) / k`, linear for large `k x`.
#[differentiable(wrt(x))]
pub fn soft_plus(x: f64, sharpness: f64) -> f64 {
    let z = x * sharpness;
    if z > 30.0 {
        x
    } else {
        z.exp().ln_1p() / sharpness
    }
}

/// The cost of a landing: vehicle parameters `params` (9 entries),
/// `controls` (throttle and gimbal command per step), a constant `wind`
/// profile, the `target` state `[x, y, vx, vy]` and the time step `dt`.
#[differentiable(wrt(params, controls, target))]
pub fn landing_cost(
    params: &[f64],
    controls: &[f64],
    wind: &[f64],
    target: [f64; 4],
    dt: f64,
) -> f64 {
    let n = controls.len() / 2;
    debug_assert!(n > 0, "at least one step");

    // Vehicle parameters, kept physical by smooth transforms.
    let dry_mass = 1.0 + params[0].exp();
    let fuel0 = soft_plus(params[1], 4.0);
    let isp = 200.0 + 50.0 * params[2].tanh();
    let cd_area = 0.1 * (1.0 + params[3] * params[3]).sqrt();
    let inertia = 0.5 + params[4].powi(2);
    let arm = 0.8 + 0.1 * params[5].sin();
    let max_thrust = 30.0 * (1.0 + 0.2 * params[6].atan());
    let gimbal_limit = 0.2 + 0.05 * params[7].cos();
    let exhaust_speed = isp * G0;

    // Drag-coefficient table over Mach number, then smoothed.
    let mut aero = [0.0; N_AERO];
    for j in 0..N_AERO {
        let mach = 0.25 * j as f64;
        let bump = (-(mach - 0.9).powi(2) / 0.05).exp();
        aero[j] = 1.0 + 0.3 * bump + 0.01 * params[8] * mach;
    }
    let mut smoothed = [0.0; N_AERO];
    smoothed[0] = aero[0];
    smoothed[N_AERO - 1] = aero[N_AERO - 1];
    for j in 1..N_AERO - 1 {
        smoothed[j] = 0.25 * aero[j - 1] + 0.5 * aero[j] + 0.25 * aero[j + 1];
    }

    // State: position, velocity, attitude, fuel.
    let mut x: f64 = 40.0;
    let mut y: f64 = 150.0;
    let mut vx: f64 = -3.0;
    let mut vy: f64 = -12.0;
    let mut theta: f64 = 0.05;
    let mut omega: f64 = 0.0;
    let mut fuel = fuel0;

    let mut altitudes = vec![0.0; n];
    let mut sensors = [0.0; 8];
    let mut effort = 0.0;
    let mut attitude_cost = 0.0;
    let mut heat = 0.0;
    let mut crashed = 0.0;

    for k in 0..n {
        // Controls: throttle in (0, 1), gimbal within its limit.
        let throttle = 0.5 * (1.0 + controls[2 * k].tanh());
        let gimbal = (gimbal_limit * controls[2 * k + 1].tanh()).clamp(-0.25, 0.25);

        // Atmosphere: density and speed of sound at this altitude.
        let h = y.max(0.0);
        let density = 1.225 * (-h / 8500.0).exp();
        let temperature = if h < 11000.0 {
            288.15 - 0.0065 * h
        } else if h < 20000.0 {
            216.65
        } else {
            216.65 + 0.001 * (h - 20000.0)
        };
        let sound = (1.4 * 287.05 * temperature).sqrt();

        // Air-relative velocity and Mach number.
        let gust = wind[k % wind.len()];
        let vrx = vx - gust;
        let vry = vy;
        let speed = vrx.hypot(vry);
        let mach = speed / sound;

        // Piecewise-linear drag coefficient from the table.
        let pos = (mach * 4.0).min((N_AERO - 2) as f64);
        let idx = pos.floor() as usize;
        let frac = pos - idx as f64;
        let cd = smoothed[idx] * (1.0 - frac) + smoothed[idx + 1] * frac;
        let d = drag(speed, density, cd_area * cd);

        // Thrust only while there is fuel.
        let thrust = if fuel > 0.0 {
            max_thrust * throttle
        } else {
            0.0
        };
        let mass = dry_mass + fuel;

        // Forces and torque.
        let angle = theta + gimbal;
        let fx = thrust * angle.sin() - d * vrx / speed;
        let fy = thrust * angle.cos() - d * vry / speed - mass * G0;
        let torque = -thrust * arm * gimbal.sin();
        let ax = fx / mass;
        let ay = fy / mass;
        let alpha = torque / inertia;

        // Semi-implicit Euler step.
        vx = ax.mul_add(dt, vx);
        vy = ay.mul_add(dt, vy);
        x += vx * dt;
        y += vy * dt;
        omega += alpha * dt;
        theta += omega * dt;
        fuel -= thrust / exhaust_speed * dt;
        if fuel < 0.0 {
            fuel = 0.0;
        }

        // Running costs.
        effort += throttle.powi(2) * dt;
        attitude_cost += (theta * theta + 0.1 * omega * omega) * dt;
        heat += density * speed.powi(3) * 1e-6 * dt;
        altitudes[k] = y;

        if y < 0.0 {
            crashed = 1000.0 + vy * vy;
            break;
        }
        if k % SAMPLE_EVERY != 0 {
            continue;
        }
        // Every few steps, a bearing sensor reads the target.
        let slot = (k / SAMPLE_EVERY).min(7);
        sensors[slot] = (x - target[0]).atan2(y - target[1] + 1.0);
    }

    // Low-pass filter of the altitude history; its roughness is a cost.
    let mut filtered = altitudes.to_vec();
    let mut i = 1;
    while i < n {
        filtered[i] = 0.7 * filtered[i - 1] + 0.3 * altitudes[i];
        i += 1;
    }
    let mut roughness = 0.0;
    for (i, &a) in altitudes.iter().enumerate() {
        let r = a - filtered[i];
        roughness += r * r;
    }
    roughness /= n as f64;

    // Sensor statistics: mean and variance of the bearings.
    let mut mean = 0.0;
    for &s in sensors.iter() {
        mean += s;
    }
    mean /= sensors.len() as f64;
    let mut variance = 0.0;
    for s in sensors.iter() {
        variance += (s - mean).powi(2);
    }
    variance /= sensors.len() as f64;

    // Time to touchdown from the final state, by Newton's method on
    // y + vy t - g t² / 2 = 0.
    let mut t = 1.0;
    let mut iteration = 0;
    loop {
        if iteration == 8 {
            break;
        }
        let residual = y + vy * t - 0.5 * G0 * t * t;
        let slope = vy - G0 * t;
        t -= residual / slope;
        iteration += 1;
    }
    let impact_speed = (vy - G0 * t).abs();

    // Terminal cost: distance to the target state.
    let dx = x - target[0];
    let dy = y - target[1];
    let dvx = vx - target[2];
    let dvy = vy - target[3];
    let miss = dx.hypot(dy);
    let terminal = miss.powi(2) + 0.5 * (dvx * dvx + dvy * dvy);
    let tilt = 1.0 - theta.cos();
    let spin = omega.powi(2);

    // Fuel: a reward for what is left, a barrier against running dry.
    let fuel_left = fuel.max(1e-6);
    let fuel_bonus = -0.1 * fuel_left.ln_1p();
    let barrier = -0.01 * (fuel_left / fuel0).ln();

    // Wind exposure (a constant: `wind` is not differentiated).
    let mut wind_energy = 0.0;
    for w in wind {
        wind_energy += w * w;
    }
    let exposure = 1e-3 * wind_energy.sqrt() * heat;

    let mut total = terminal
        + 2.0 * tilt
        + 0.1 * spin
        + 0.05 * effort
        + 0.5 * attitude_cost
        + 0.01 * roughness
        + variance
        + 0.02 * impact_speed
        + fuel_bonus
        + barrier
        + exposure
        + crashed;
    total = soft_plus(total - 1.0, 2.0) + 1.0;
    if total > 1e12 {
        return 1e12;
    }
    total
}
