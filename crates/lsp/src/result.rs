//! What an operation answers, with 1-based lines and 1-based UTF-16 columns, and its
//! text rendering for a model.

use std::fmt;
use std::path::PathBuf;

use serde::Serialize;

/// A range in a file, with the one-line excerpt of its first line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Location {
    pub path: PathBuf,
    pub line: u32,
    pub character: u32,
    pub end_line: u32,
    pub end_character: u32,
    pub excerpt: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub path: PathBuf,
    /// `error`, `warning`, `information` or `hint`.
    pub severity: String,
    pub line: u32,
    pub character: u32,
    pub end_line: u32,
    pub end_character: u32,
    pub message: String,
    pub source: Option<String>,
    pub code: Option<String>,
    pub excerpt: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Symbol {
    pub name: String,
    /// `function`, `class`, `variable`...
    pub kind: String,
    pub container: Option<String>,
    /// Nesting depth in a document outline (0 at top level).
    pub depth: usize,
    pub location: Location,
}

/// One proposed edit (not applied).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TextEditPreview {
    pub line: u32,
    pub character: u32,
    pub end_line: u32,
    pub end_character: u32,
    pub new_text: String,
    /// The current text of the edit's first line.
    pub excerpt: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileEdits {
    pub path: PathBuf,
    pub edits: Vec<TextEditPreview>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "items", rename_all = "camelCase")]
pub enum LspOutput {
    Locations(Vec<Location>),
    /// Markdown; `None` when the server has nothing to say about the position.
    Hover(Option<String>),
    Diagnostics(Vec<Diagnostic>),
    Symbols(Vec<Symbol>),
    Rename(Vec<FileEdits>),
}

/// An answer and the server that gave it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LspResult {
    pub server: String,
    pub operation: String,
    pub output: LspOutput,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.path.display(), self.line, self.character)?;
        if !self.excerpt.is_empty() {
            write!(f, ": {}", self.excerpt)?;
        }
        Ok(())
    }
}

impl fmt::Display for LspResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} (answered by {})", self.operation, self.server)?;
        match &self.output {
            LspOutput::Locations(items) if items.is_empty() => writeln!(f, "no locations found"),
            LspOutput::Locations(items) => {
                for item in items {
                    writeln!(f, "{item}")?;
                }
                Ok(())
            }
            LspOutput::Hover(None) => writeln!(f, "no hover information"),
            LspOutput::Hover(Some(text)) => writeln!(f, "{text}"),
            LspOutput::Diagnostics(items) if items.is_empty() => writeln!(f, "no diagnostics"),
            LspOutput::Diagnostics(items) => {
                for d in items {
                    let code = d.code.as_deref().map(|c| format!(" [{c}]")).unwrap_or_default();
                    writeln!(
                        f,
                        "{}:{}:{}: {}{}: {}",
                        d.path.display(),
                        d.line,
                        d.character,
                        d.severity,
                        code,
                        d.message
                    )?;
                    if !d.excerpt.is_empty() {
                        writeln!(f, "    {}", d.excerpt)?;
                    }
                }
                Ok(())
            }
            LspOutput::Symbols(items) if items.is_empty() => writeln!(f, "no symbols found"),
            LspOutput::Symbols(items) => {
                for s in items {
                    let indent = "  ".repeat(s.depth);
                    let container =
                        s.container.as_deref().map(|c| format!(" in {c}")).unwrap_or_default();
                    writeln!(
                        f,
                        "{indent}{} {}{container} {}:{}:{}",
                        s.kind,
                        s.name,
                        s.location.path.display(),
                        s.location.line,
                        s.location.character
                    )?;
                }
                Ok(())
            }
            LspOutput::Rename(files) if files.is_empty() => writeln!(f, "nothing to rename"),
            LspOutput::Rename(files) => {
                writeln!(f, "preview only: nothing was changed")?;
                for file in files {
                    writeln!(f, "{}:", file.path.display())?;
                    for e in &file.edits {
                        writeln!(
                            f,
                            "  {}:{}-{}:{} -> {:?}: {}",
                            e.line, e.character, e.end_line, e.end_character, e.new_text, e.excerpt
                        )?;
                    }
                }
                Ok(())
            }
        }
    }
}
