//! What the control layer's operations share: the sandbox layer's context, and what only
//! the control layer keeps (the template builds asked for, the lock under which a name
//! is checked and then taken).

use std::ops::Deref;
use std::sync::Arc;

use crate::server::build_progress::Builds;
use crate::server::shared::Shared;

/// The control layer's context; it derefs to the sandbox layer's ([`Shared`]).
pub(crate) struct Control {
    pub(crate) shared: Arc<Shared>,
    /// Template builds asked for since the start.
    pub(crate) builds: Builds,
    /// Held while a snapshot, volume or template is made or deleted, or a template's tags
    /// change: a name is checked, then taken.
    pub(crate) names_lock: tokio::sync::Mutex<()>,
}

impl Control {
    pub(crate) fn new(shared: Arc<Shared>) -> Control {
        Control { shared, builds: Builds::default(), names_lock: tokio::sync::Mutex::new(()) }
    }
}

impl Deref for Control {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.shared
    }
}
