//! The escape suite: every known way out of a local sandbox, tried from inside as root
//! and as `user`, each of which must fail; and two sandboxes that must not see, signal
//! or reach each other. Real sandboxes (these need root, as on this machine and CI).
//!
//! Probes are non-destructive: they never write to a device or to `/proc/sys`, open
//! kernel knobs without writing, pass arguments that fail harmlessly even where a call
//! is let through, undo anything that unexpectedly succeeds, and keep memory and process
//! counts bounded. See `escape/probe.rs` for how a probe runs and reports.

mod daemon;
mod gvisor;
mod host;
mod identity;
mod kernel;
mod limits;
mod neighbours;
mod probe;
