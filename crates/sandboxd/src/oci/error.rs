//! Why an image could not be had, by kind (each maps to what a build reports).

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImageError {
    #[error("bad image reference {0}")]
    BadReference(String),
    #[error("image not found: {0}")]
    NotFound(String),
    #[error("not authorized: {0}")]
    Unauthorized(String),
    #[error("registry error: {0}")]
    Registry(String),
    #[error("unsupported image: {0}")]
    Unsupported(String),
    #[error("timed out: {0}")]
    TimedOut(String),
    #[error("image too large: {0}")]
    TooLarge(String),
    #[error("corrupt image: {0}")]
    Corrupt(String),
    #[error("image store: {0}")]
    Io(String),
}
