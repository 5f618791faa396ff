//! Human output: tables, progress, and the HTML fleet report.

pub mod fleet;
pub mod render;
pub mod svg;
pub mod world;

use crate::manifest;
use crate::text::mm;

/// The contacts by design offered when the rest pose trips on a real contact, as text
/// (empty when there are none).
pub fn design_candidates_text(candidates: &[(String, String, String)]) -> String {
    if candidates.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "\nthe rest pose trips on a real contact; contacts by design among the checked pairs (add the ones you confirm to `allow:` with a reason, as `collide init` would write them; otherwise choose a rest pose where the meshes are apart):\n",
    );
    for (a, b, evidence) in candidates {
        out += &format!("  {a} / {b}: {evidence}\n");
    }
    out
}

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
