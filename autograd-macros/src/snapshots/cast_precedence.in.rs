fn h(x: f64, n: usize) -> f64 { -(n as f64) * x + (n as f64).mul_add(1.5, x) }
