//! Fault injection against the real control plane: the daemon SIGKILLed in the middle of
//! create, pause, resume and kill; a sandbox's envd SIGKILLed mid-stream; a full disk
//! under the state directory. Each test says what the client gets (exact), how fast, what
//! the (restarted) daemon reports afterwards and that nothing is left behind. Real
//! daemons, sandboxes and envd throughout; where a fault cannot be produced on demand
//! with a real part, the stand-in is named as a fake. Needs root and the workspace's
//! binaries (`cargo build --workspace --bins`).

mod common;
mod daemon;
mod disk;
mod envd;
mod start;
