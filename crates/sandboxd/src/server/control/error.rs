//! What an operation of the control layer can fail with, by kind: the HTTP layer turns
//! each kind into its status (`http/api_error.rs`), nothing below it knows HTTP.

/// A failed operation; its text is the message the client gets.
#[derive(Debug, thiserror::Error)]
pub enum ControlError {
    /// The request asks for something that cannot be (a bad name, a size out of range).
    #[error("{0}")]
    Invalid(String),
    /// It conflicts with what exists (a name taken, a volume still mounted).
    #[error("{0}")]
    Conflict(String),
    /// This daemon cannot do it now or here (no disk image; a build still running).
    #[error("{0}")]
    Unavailable(String),
    /// What was sent is larger than allowed.
    #[error("{0}")]
    TooLarge(String),
    /// It was tried and failed, as the message says (not the daemon's fault to log).
    #[error("{0}")]
    Failed(String),
    /// The daemon failed: the error and its causes are the message, and it is logged.
    #[error(transparent)]
    Internal(anyhow::Error),
}

pub type ControlResult<T> = Result<T, ControlError>;
