//! A decision boundary as an SVG picture: the classifier's score as a
//! shaded field (blue for −1, red for +1, paler near the boundary), the
//! boundary itself, and the data points on top.

use std::fmt::Write as _;

/// Pixels of the square picture.
const SIZE: f64 = 600.0;
/// Cells per side of the shaded field.
const CELLS: usize = 90;

/// Writes `path`: `score(x, y)` shaded over the bounding box of `points`
/// (with a margin), and each point coloured by its label (±1).
pub fn decision_boundary(
    path: &str,
    points: &[(f64, f64)],
    labels: &[f64],
    caption: &str,
    score: impl Fn(f64, f64) -> f64,
) -> std::io::Result<()> {
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in points {
        (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
    }
    // A square view centred on the data, with a margin.
    let span = 1.3 * (x1 - x0).max(y1 - y0);
    let (cx, cy) = (0.5 * (x0 + x1), 0.5 * (y0 + y1));
    let (x0, y0) = (cx - 0.5 * span, cy - 0.5 * span);
    let to_px = |x: f64, y: f64| ((x - x0) / span * SIZE, SIZE - (y - y0) / span * SIZE);
    let cell = span / CELLS as f64;

    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{SIZE}" height="{SIZE}" viewBox="0 0 {SIZE} {SIZE}">"#
    );
    let _ = writeln!(
        svg,
        r#"<rect width="{SIZE}" height="{SIZE}" fill="white"/>"#
    );
    // The field: one rectangle per cell, coloured by the score at its centre.
    let mut grid = vec![vec![0.0; CELLS]; CELLS];
    for (i, row) in grid.iter_mut().enumerate() {
        for (j, value) in row.iter_mut().enumerate() {
            let (x, y) = (x0 + (j as f64 + 0.5) * cell, y0 + (i as f64 + 0.5) * cell);
            *value = score(x, y);
            let (px, py) = to_px(x - 0.5 * cell, y + 0.5 * cell);
            let side = SIZE / CELLS as f64 + 0.5;
            let _ = writeln!(
                svg,
                r#"<rect x="{px:.1}" y="{py:.1}" width="{side:.1}" height="{side:.1}" fill="{}"/>"#,
                shade(*value)
            );
        }
    }
    // The boundary, by marching squares: in each square of four cell
    // centres, where the score changes sign along an edge, the zero is
    // interpolated linearly; the crossings are joined pairwise.
    let mut path_data = String::new();
    let centre = |i: usize, j: usize| (x0 + (j as f64 + 0.5) * cell, y0 + (i as f64 + 0.5) * cell);
    for i in 0..CELLS - 1 {
        for j in 0..CELLS - 1 {
            let corners = [(i, j), (i, j + 1), (i + 1, j + 1), (i + 1, j)];
            let mut crossings = Vec::new();
            for k in 0..4 {
                let (a, b) = (corners[k], corners[(k + 1) % 4]);
                let (va, vb) = (grid[a.0][a.1], grid[b.0][b.1]);
                if (va > 0.0) != (vb > 0.0) {
                    let t = va / (va - vb);
                    let ((xa, ya), (xb, yb)) = (centre(a.0, a.1), centre(b.0, b.1));
                    crossings.push(to_px(xa + t * (xb - xa), ya + t * (yb - ya)));
                }
            }
            for pair in crossings.chunks(2) {
                if let [(a, b), (c, d)] = pair {
                    let _ = write!(path_data, "M{a:.1},{b:.1}L{c:.1},{d:.1}");
                }
            }
        }
    }
    let _ = writeln!(
        svg,
        r#"<path d="{path_data}" stroke="black" stroke-width="2.5" stroke-linecap="round" fill="none"/>"#
    );
    for (&(x, y), &label) in points.iter().zip(labels) {
        let (px, py) = to_px(x, y);
        let fill = if label > 0.0 { "#c62828" } else { "#1565c0" };
        let _ = writeln!(
            svg,
            r#"<circle cx="{px:.1}" cy="{py:.1}" r="6" fill="{fill}" stroke="white" stroke-width="1.5"/>"#
        );
    }
    let _ = writeln!(
        svg,
        r#"<text x="12" y="28" font-family="sans-serif" font-size="18" fill="black">{caption}</text>"#
    );
    svg.push_str("</svg>\n");
    std::fs::write(path, svg)
}

/// Blue for negative scores, red for positive, white at the boundary.
fn shade(score: f64) -> String {
    let t = score.tanh().abs() * 0.55;
    let mix = |full: f64| (255.0 - t * (255.0 - full)).round() as u8;
    if score > 0.0 {
        format!("#{:02x}{:02x}{:02x}", mix(239.0), mix(83.0), mix(80.0))
    } else {
        format!("#{:02x}{:02x}{:02x}", mix(66.0), mix(133.0), mix(244.0))
    }
}
