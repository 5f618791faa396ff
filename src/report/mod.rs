//! Human output: tables, progress, and the HTML fleet report.

pub mod fleet;
pub mod render;
pub mod svg;

use crate::manifest;
use crate::text::mm;

/// A link's fit as written in its manifest: name, choice, primitive count, volume ÷ hull
/// (`-` for a flat link), max and mean protrusion, and the achieved margin, in mm.
pub fn link_fit_cells(l: &manifest::Link) -> Vec<String> {
    vec![
        l.name.clone(),
        l.fit.choice.as_str().to_string(),
        l.primitives.len().to_string(),
        l.fit
            .vol_ratio
            .map(|v| format!("{v:.2}"))
            .unwrap_or_else(|| "-".into()),
        mm(l.fit.max_protrusion_m),
        mm(l.fit.mean_protrusion_m),
        mm(l.fit.min_margin_m),
    ]
}
