//! dsh-pty: the terminal engine. This module set is the backend-independent text
//! handling: strict UTF-8 decoding across chunks, a control-sequence filter that
//! reports prompt markers, a capped scrollback with stable line numbers, and the
//! screen model for the viewport.

pub mod engine;
pub mod filter;
pub mod screen;
pub mod scrollback;
pub mod session;
pub mod utf8;
