//! Text every command prints: plain-text tables with aligned columns (numbers
//! right-aligned), number formats, markup escaping and wrapped prose. A leaf: it imports
//! only the leaf `messages` (one-line escaping).

/// Metres as millimetres with one decimal: `0.0123` -> `12.3`.
pub fn mm(v: f64) -> String {
    format!("{:.1}", v * 1e3)
}

/// 4812 -> "4,812".
pub fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Escapes text for XML and HTML (attribute values and element text alike).
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
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

/// Lines of `text` (made one line: control characters escaped, as in messages), each
/// `prefix` then words, wrapped at about `width` columns (a word longer than that keeps a
/// line of its own).
pub fn wrapped(prefix: &str, text: &str, width: usize) -> String {
    let text = crate::messages::one_line(text);
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        if !line.is_empty() && prefix.len() + line.len() + 1 + word.len() > width {
            out += &format!("{prefix}{line}\n");
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line += word;
    }
    if !line.is_empty() {
        out += &format!("{prefix}{line}\n");
    }
    out
}
