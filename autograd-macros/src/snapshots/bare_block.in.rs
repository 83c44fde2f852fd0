fn blk(x: f64, w: f64) -> f64 { let mut t = x; { if 1.0 > 2.0 { t = w; } else { t += 1.0; } } t }
