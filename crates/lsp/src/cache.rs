//! Where a missing server can come from before the engine installs it in the sandbox: a
//! cache outside the sandbox that makes the server's npm packages appear inside it
//! (dsh's local sandbox daemon builds them once per machine and mounts them read-only
//! into every sandbox), so only the first sandbox on a machine pays for the install.

use std::path::PathBuf;

use dsh_core::{BoxFuture, Progress};

/// A server's packages as the cache made them available.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CachedServer {
    /// The directory holding the packages' programs, as the sandbox sees it.
    pub bin: PathBuf,
    /// The cache had them already (nothing was installed for this request).
    pub cached: bool,
}

/// A source of language servers shared beyond one sandbox (see the module docs).
pub trait ServerCache: Send + Sync + std::fmt::Debug {
    /// Makes `packages` (npm specs, as in [`crate::ServerConfig::install`]) available in
    /// the sandbox. `Ok(None)`: this cache cannot serve here (the engine installs in the
    /// sandbox instead); `Err`: it tried and failed, with a message for the user. It may
    /// say what it is doing through `progress`; the engine reports the wait itself.
    fn provide<'a>(
        &'a self,
        packages: &'a [String],
        progress: Option<&'a Progress>,
    ) -> BoxFuture<'a, Result<Option<CachedServer>, String>>;
}
