//! Printing results for people (aligned text) or scripts (`--json`).

use std::io::Write as _;

use serde::Serialize;

/// Writes to stdout; a closed pipe (`dsh ... | head`) is not an error worth a panic.
pub fn emit(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{text}").and_then(|()| stdout.flush());
}

#[derive(Debug, Clone, Copy)]
pub struct Printer {
    pub json: bool,
}

impl Printer {
    /// Prints `value` as JSON, or `human` otherwise.
    pub fn print<T: Serialize>(&self, value: &T, human: impl FnOnce() -> String) {
        if self.json {
            match serde_json::to_string_pretty(value) {
                Ok(text) => emit(&text),
                Err(err) => eprintln!("dsh: cannot render JSON: {err}"),
            }
        } else {
            let text = human();
            if !text.is_empty() {
                emit(&text);
            }
        }
    }
}

/// Columns padded to their widest cell.
pub fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            if let Some(width) = widths.get_mut(i) {
                *width = (*width).max(cell.chars().count());
            }
        }
    }
    let render = |cells: Vec<String>| {
        cells
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{c:<width$}", width = widths.get(i).copied().unwrap_or(0)))
            .collect::<Vec<_>>()
            .join("  ")
            .trim_end()
            .to_owned()
    };
    let mut lines = vec![render(header.iter().map(|h| (*h).to_owned()).collect())];
    lines.extend(rows.iter().map(|r| render(r.clone())));
    lines.join("\n")
}

/// One-line progress on stderr while something slow runs, shown only to a person (stderr
/// is a terminal), so scripts and `--json` consumers see nothing extra.
pub struct Progress {
    enabled: bool,
    started: std::time::Instant,
}

impl Progress {
    pub fn new() -> Self {
        use std::io::IsTerminal as _;
        Self { enabled: std::io::stderr().is_terminal(), started: std::time::Instant::now() }
    }

    /// Replaces the line with `what`, followed by an ellipsis unless it has one.
    pub fn say(&self, what: &str) {
        if self.enabled {
            let more = if what.contains('…') { "" } else { "…" };
            eprint!("\r\x1b[2K[{:>5.1}s] {what}{more}", self.started.elapsed().as_secs_f64());
        }
    }

    pub fn done(&self) {
        if self.enabled {
            eprint!("\r\x1b[2K");
        }
    }
}
