//! The main demo reaches what it promises: at least 99% accuracy on the two
//! moons, with a loss that falls, and a picture that is well-formed SVG.

#[path = "../examples/moons/main.rs"]
#[allow(dead_code)]
mod moons;

#[test]
fn moons_reaches_99_percent() {
    let outcome = moons::train(false);
    assert!(outcome.accuracy >= 0.99, "accuracy {}", outcome.accuracy);
    let (first, last) = (outcome.losses[0], *outcome.losses.last().unwrap());
    assert!(last < 0.2 * first, "loss {first} -> {last}");
}

#[test]
fn decision_boundary_is_drawn() {
    let outcome = moons::train(false);
    let points: Vec<(f64, f64)> = outcome.xs.chunks(2).map(|p| (p[0], p[1])).collect();
    let path = std::env::temp_dir().join(format!("moons-test-{}.svg", std::process::id()));
    let path = path.to_str().unwrap();
    moons::svg_for_test(path, &points, &outcome.labels, &outcome.model);
    let svg = std::fs::read_to_string(path).unwrap();
    std::fs::remove_file(path).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert_eq!(svg.matches("<circle").count(), 100);
    assert!(svg.contains("<path d=\"M"), "the boundary is drawn");
}
