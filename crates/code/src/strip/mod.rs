//! TypeScript → JavaScript on the host, in strip-only mode, with `swc_ts_fast_strip` (the
//! engine behind Node's own type stripping).
//!
//! Types are blanked out with spaces, so every line and column of the output is the line
//! and column of the model's code: an exception's position inside the worker points at
//! the code the model wrote. Syntax that cannot simply be erased (`enum`, parameter
//! properties, `namespace`) is refused with its line and column.
//!
//! One engine on purpose: a program a model writes is a few KiB, which swc strips in a
//! fraction of a millisecond of a run that takes a few, and a second stripper would have
//! to match it byte for byte forever (any difference silently changes what a program
//! means). `tests/suite/strip_golden.rs` pins its output on a corpus.
//!
//! The program is the body of an async function (top-level `await` and `return`), so it
//! is parsed inside one: `PREFIX` on a line of its own, the code, then `SUFFIX`. (A
//! body that closes the wrapper early parses here but not in the worker, which compiles
//! it with the `AsyncFunction` constructor: a body cannot escape that.)

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex, PoisonError};

use swc_common::errors::{DiagnosticBuilder, Emitter, Handler};
use swc_common::sync::Lrc;
use swc_common::{GLOBALS, Globals, SourceMap, Span};
use swc_ts_fast_strip::{ErrorCode, Mode, Options};

/// The line put before the program while parsing it.
const PREFIX: &str = "async function __dsh_program__() {\n";
/// The line put after the program while parsing it.
const SUFFIX: &str = "\n}\n";

/// Why a program was refused before it ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum StripErrorKind {
    /// The code does not parse as TypeScript.
    Syntax,
    /// The code parses but uses TypeScript that has runtime semantics (`enum`,
    /// parameter properties, `namespace`), which strip-only mode cannot erase.
    Unsupported,
    /// The program is longer than the stripper takes (see [`MAX_PROGRAM_BYTES`]).
    TooLarge,
    /// Stripping took longer than the engine waits (see `CodeConfig::strip_timeout`).
    Timeout,
}

/// A program refused by the stripper, with the position in the model's code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{} at line {line}, column {column}: {message}", match kind {
    StripErrorKind::Syntax => "SyntaxError",
    StripErrorKind::Unsupported => "UnsupportedSyntax",
    StripErrorKind::TooLarge => "ProgramTooLarge",
    StripErrorKind::Timeout => "StripTimeout",
})]
pub struct StripError {
    pub kind: StripErrorKind,
    /// 1-based line in the model's code.
    pub line: u32,
    /// 1-based column (in characters) in the model's code.
    pub column: u32,
    pub message: String,
}

/// A diagnostic: where (if known) and what.
type Diagnostic = (Option<Span>, String);

#[derive(Clone, Default)]
struct Collected(Arc<Mutex<Vec<Diagnostic>>>);

impl Emitter for Collected {
    fn emit(&mut self, db: &mut DiagnosticBuilder<'_>) {
        let mut list = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        list.push((db.span.primary_span(), db.message()));
    }
}

/// Programs longer than this are refused before the parser sees them. The parser's stack
/// is reserved in proportion to the length (below), so this also bounds that
/// reservation (1.5 GiB of address space at the limit, nearly all of it never touched).
pub const MAX_PROGRAM_BYTES: usize = 512 << 10;

/// Stack the parser may need per byte of program, at worst: measured up to 1,662 bytes
/// (nested parentheses, release build; swc recurses per nesting level and is built
/// without its own stack growth here), so nearly twice that.
const STACK_PER_BYTE: usize = 3072;

/// The stack the parser needs for `length` bytes, plus room for the rest. It is reserved
/// (not touched) up front, so a deeply nested program cannot overflow the caller's
/// thread, which would abort the whole process.
fn stack_for(length: usize) -> usize {
    (256 << 10) + length.saturating_mul(STACK_PER_BYTE)
}

/// Strips the TypeScript types from `code` (the body of an async function), keeping
/// every position. Plain JavaScript comes back unchanged.
pub fn strip_types(code: &str) -> Result<String, StripError> {
    if code.len() > MAX_PROGRAM_BYTES {
        return Err(StripError {
            kind: StripErrorKind::TooLarge,
            line: 1,
            column: 1,
            message: format!(
                "the program is {} bytes; the limit is {MAX_PROGRAM_BYTES} bytes",
                code.len()
            ),
        });
    }
    let stack = stack_for(code.len());
    // A panic inside the parser refuses this program instead of failing the caller.
    let stripped = catch_unwind(AssertUnwindSafe(|| {
        stacker::maybe_grow(stack, stack, || strip_with_swc(code))
    }));
    stripped.unwrap_or_else(|_| {
        Err(StripError {
            kind: StripErrorKind::Syntax,
            line: 1,
            column: 1,
            message: "the TypeScript parser failed on this program".into(),
        })
    })
}

/// The program inside its wrapper function.
fn wrap(code: &str) -> String {
    let mut wrapped = String::with_capacity(PREFIX.len() + code.len() + SUFFIX.len());
    wrapped.push_str(PREFIX);
    wrapped.push_str(code);
    wrapped.push_str(SUFFIX);
    wrapped
}

/// The program's part of a stripped wrapper. Blanking never touches the wrapper (it is
/// plain JavaScript), so it is still at both ends.
fn unwrap_body(stripped: &str) -> Option<&str> {
    stripped
        .get(PREFIX.len()..stripped.len().saturating_sub(SUFFIX.len()))
        .filter(|_| stripped.starts_with(PREFIX) && stripped.ends_with(SUFFIX))
}

fn strip_with_swc(code: &str) -> Result<String, StripError> {
    let wrapped = wrap(code);
    let cm: Lrc<SourceMap> = Lrc::default();
    let collected = Collected::default();
    let handler = Handler::with_emitter(true, false, Box::new(collected.clone()));
    let options = Options {
        module: Some(false),
        filename: Some("program.ts".to_owned()),
        mode: Mode::StripOnly,
        ..Options::default()
    };
    let result = GLOBALS
        .set(&Globals::new(), || swc_ts_fast_strip::operate(&cm, &handler, wrapped, options));
    match result {
        Ok(output) => match unwrap_body(&output.code) {
            Some(inner) => Ok(inner.to_owned()),
            None => Err(StripError {
                kind: StripErrorKind::Syntax,
                line: 1,
                column: 1,
                message: "the program is not a function body (unbalanced braces?)".into(),
            }),
        },
        Err(error) => {
            let kind = match error.code {
                ErrorCode::UnsupportedSyntax => StripErrorKind::Unsupported,
                _ => StripErrorKind::Syntax,
            };
            let list = collected.0.lock().unwrap_or_else(PoisonError::into_inner).clone();
            let first = list.iter().find(|(span, _)| span.is_some()).or(list.first());
            let (line, column, message) = match first {
                Some((Some(span), message)) => {
                    let loc = cm.lookup_char_pos(span.lo);
                    let line = u32::try_from(loc.line).unwrap_or(u32::MAX);
                    let column = u32::try_from(loc.col.0 + 1).unwrap_or(u32::MAX);
                    (line, column, message.clone())
                }
                Some((None, message)) => (2, 1, message.clone()),
                None => (2, 1, error.message.clone()),
            };
            // Line 1 is the wrapper; the model's code starts on line 2. An error found
            // at the closing wrapper line is reported at the end of the code.
            let code_lines = u32::try_from(code.split('\n').count()).unwrap_or(u32::MAX);
            let line = line.saturating_sub(1).clamp(1, code_lines.max(1));
            let message = if message.is_empty() { error.message } else { message };
            Err(StripError { kind, line, column, message })
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn types_are_blanked_and_positions_kept() {
        let code = "const x: number = 1;\ninterface A { b: string }\nreturn x as number;";
        let out = strip_types(code).unwrap();
        assert_eq!(out.len(), code.len());
        assert_eq!(out.lines().count(), code.lines().count());
        assert!(out.starts_with("const x         = 1;"));
        assert!(!out.contains("number"));
    }

    #[test]
    fn top_level_await_and_return_parse() {
        let code = "const r = await Promise.resolve(1);\nreturn r;";
        assert_eq!(strip_types(code).unwrap(), code);
    }

    #[test]
    fn syntax_errors_carry_line_and_column() {
        let error = strip_types("const a = 1;\nconst b = ;\n").unwrap_err();
        assert_eq!(error.kind, StripErrorKind::Syntax);
        assert_eq!((error.line, error.column), (2, 11), "{error}");
    }

    #[test]
    fn enums_and_parameter_properties_are_refused_with_positions() {
        let error = strip_types("let a = 1;\n  enum Color { Red }\nreturn a;").unwrap_err();
        assert_eq!(error.kind, StripErrorKind::Unsupported, "{error}");
        assert_eq!((error.line, error.column), (2, 3), "{error}");
        let error = strip_types("class P {\n  constructor(private x: number) {}\n}").unwrap_err();
        assert_eq!(error.kind, StripErrorKind::Unsupported, "{error}");
        assert_eq!(error.line, 2, "{error}");
        let error = strip_types("namespace N { export const a = 1; }").unwrap_err();
        assert_eq!((error.kind, error.line), (StripErrorKind::Unsupported, 1), "{error}");
    }

    /// On a thread with a tokio worker's stack (2 MiB), nesting thousands deep must not
    /// overflow it: that would abort the whole process, not fail one program.
    #[test]
    fn deep_nesting_cannot_overflow_the_callers_stack() {
        let deep = format!("return {}1{};", "(".repeat(50_000), ")".repeat(50_000));
        let nested_blocks = format!("{}{}", "{".repeat(20_000), "}".repeat(20_000));
        let outcome = std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || (strip_types(&deep), strip_types(&nested_blocks)))
            .unwrap()
            .join()
            .unwrap();
        let expected = format!("return {}1{};", "(".repeat(50_000), ")".repeat(50_000));
        assert_eq!(outcome.0, Ok(expected));
        assert_eq!(outcome.1.unwrap().len(), 40_000);
    }

    #[test]
    fn programs_up_to_the_limit_are_stripped_and_longer_ones_refused() {
        let line = "let a: number = 1;\n";
        let fine = line.repeat(MAX_PROGRAM_BYTES / line.len());
        assert_eq!(strip_types(&fine).unwrap(), fine.replace(": number", "        "));
        let over = line.repeat(MAX_PROGRAM_BYTES / line.len() + 1);
        let error = strip_types(&over).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "ProgramTooLarge at line 1, column 1: the program is {} bytes; the limit is \
                 524288 bytes",
                over.len()
            )
        );
    }
}
