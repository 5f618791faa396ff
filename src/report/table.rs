//! Plain-text tables with aligned columns; numbers right-aligned. Also the cells every
//! report shares: millimetres, and a manifest link's fit figures.

use crate::io::manifest;

/// Metres as millimetres with one decimal: `0.0123` -> `12.3`.
pub fn mm(v: f64) -> String {
    format!("{:.1}", v * 1e3)
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

pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(header: &[&str]) -> Self {
        Table {
            header: header.iter().map(|s| s.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    pub fn render(&self) -> String {
        let cols = self.header.len();
        let mut width = vec![0; cols];
        for r in std::iter::once(&self.header).chain(&self.rows) {
            for (i, c) in r.iter().enumerate().take(cols) {
                width[i] = width[i].max(c.chars().count());
            }
        }
        let numeric: Vec<bool> = (0..cols)
            .map(|i| {
                self.rows.iter().all(|r| {
                    r.get(i).is_none_or(|c| {
                        c.is_empty() || c == "-" || c.trim_end_matches('%').parse::<f64>().is_ok()
                    })
                }) && !self.rows.is_empty()
            })
            .collect();
        let line = |cells: &[String]| {
            let mut s = String::new();
            for i in 0..cols {
                let c = cells.get(i).map(String::as_str).unwrap_or("");
                let pad = width[i] - c.chars().count();
                if i > 0 {
                    s.push_str("  ");
                }
                if numeric[i] {
                    s.push_str(&" ".repeat(pad));
                    s.push_str(c);
                } else {
                    s.push_str(c);
                    if i + 1 < cols {
                        s.push_str(&" ".repeat(pad));
                    }
                }
            }
            s.trim_end().to_string() + "\n"
        };
        let mut out = line(&self.header);
        out += &line(&width.iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>());
        for r in &self.rows {
            out += &line(r);
        }
        out
    }
}
