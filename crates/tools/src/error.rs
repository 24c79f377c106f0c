//! The typed errors a tool call can end in; each message tells the model what to do.

use std::path::PathBuf;
use std::time::Duration;

use dsh_core::{FsError, ProcessError};

/// Why a tool call failed.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// No tool has this name.
    #[error("unknown tool `{name}`; available tools: {}", known.join(", "))]
    UnknownTool { name: String, known: Vec<String> },
    /// The arguments do not fit the tool's schema (or a value is out of range). `field`
    /// is the JSON path of the offending argument (`$` for the whole object).
    #[error("invalid arguments for `{tool}`: {field}: {message}")]
    InvalidArguments { tool: String, field: String, message: String },
    /// Nothing exists at the path.
    #[error("no such file or directory: {path}")]
    NotFound { path: PathBuf },
    /// The file changed since it was last read in this session.
    #[error(
        "{path} changed since it was last read (read version {expected}, now {actual}); read it again and redo the edit against the new content"
    )]
    StaleVersion { path: PathBuf, expected: String, actual: String },
    /// The file is binary (not valid UTF-8).
    #[error(
        "{path} is not a UTF-8 text file (first invalid byte at offset {offset}); inspect it with a command such as `xxd` or `file` instead"
    )]
    NotUtf8 { path: PathBuf, offset: u64 },
    /// The file is over the size cap.
    #[error(
        "{path} is {size} bytes, over the {limit}-byte limit; look at parts of it with a command (head, tail, sed -n, grep)"
    )]
    TooLarge { path: PathBuf, size: u64, limit: u64 },
    /// `old_string` does not occur in the file.
    #[error(
        "old_string was not found in {path}; read the file again and copy the text exactly (including whitespace)"
    )]
    NoMatch { path: PathBuf },
    /// `old_string` occurs more than once and `replace_all` is false.
    #[error(
        "old_string occurs {count} times in {path}; add surrounding lines to make it unique, or set replace_all to true"
    )]
    AmbiguousMatch { path: PathBuf, count: usize },
    /// The sandbox user may not do this.
    #[error("permission denied: {path}")]
    PermissionDenied { path: PathBuf },
    /// A directory where a file was needed.
    #[error("{path} is a directory, not a file")]
    IsADirectory { path: PathBuf },
    /// A file where a directory was needed.
    #[error("{path} is not a directory")]
    NotADirectory { path: PathBuf },
    /// No background task has this id.
    #[error("unknown task `{task_id}`; known tasks: {}", if known.is_empty() { "none".to_owned() } else { known.join(", ") })]
    UnknownTask { task_id: String, known: Vec<String> },
    /// An internal command (a search) ran out of time and was killed.
    #[error("{what} did not finish within {}s and was stopped; narrow it (a smaller path or a more specific pattern)", .after.as_secs())]
    Timeout { what: String, after: Duration },
    /// The sandbox is gone or unreachable.
    #[error("sandbox unavailable: {0}")]
    Unavailable(String),
    /// Anything else; the message says what happened.
    #[error("{0}")]
    Failed(String),
}

impl ToolError {
    pub(crate) fn invalid(tool: &str, field: &str, message: impl Into<String>) -> Self {
        Self::InvalidArguments {
            tool: tool.to_owned(),
            field: field.to_owned(),
            message: message.into(),
        }
    }

    /// A stable machine-readable code for the error kind.
    pub fn code(&self) -> &'static str {
        match self {
            Self::UnknownTool { .. } => "unknown_tool",
            Self::InvalidArguments { .. } => "invalid_arguments",
            Self::NotFound { .. } => "not_found",
            Self::StaleVersion { .. } => "stale_version",
            Self::NotUtf8 { .. } => "not_utf8",
            Self::TooLarge { .. } => "too_large",
            Self::NoMatch { .. } => "no_match",
            Self::AmbiguousMatch { .. } => "ambiguous_match",
            Self::PermissionDenied { .. } => "permission_denied",
            Self::IsADirectory { .. } => "is_a_directory",
            Self::NotADirectory { .. } => "not_a_directory",
            Self::UnknownTask { .. } => "unknown_task",
            Self::Timeout { .. } => "timeout",
            Self::Unavailable(_) => "unavailable",
            Self::Failed(_) => "failed",
        }
    }
}

pub(crate) fn from_fs(err: FsError) -> ToolError {
    match err {
        FsError::NotFound { path } => ToolError::NotFound { path },
        FsError::StaleVersion { path, expected, actual } => ToolError::StaleVersion {
            path,
            expected: expected.to_string(),
            actual: actual.to_string(),
        },
        FsError::NotUtf8 { path, offset } => ToolError::NotUtf8 { path, offset },
        FsError::TooLarge { path, size, limit } => ToolError::TooLarge { path, size, limit },
        FsError::PermissionDenied { path } => ToolError::PermissionDenied { path },
        FsError::IsADirectory { path } => ToolError::IsADirectory { path },
        FsError::NotADirectory { path } => ToolError::NotADirectory { path },
        FsError::NoMatch { path } => ToolError::NoMatch { path },
        FsError::AmbiguousMatch { path, count } => ToolError::AmbiguousMatch { path, count },
        FsError::Unavailable(message) => ToolError::Unavailable(message),
        other => ToolError::Failed(other.to_string()),
    }
}

pub(crate) fn from_process(err: ProcessError) -> ToolError {
    match err {
        ProcessError::CwdNotFound(path) => ToolError::NotFound { path },
        ProcessError::Unavailable(message) => ToolError::Unavailable(message),
        other => ToolError::Failed(other.to_string()),
    }
}
