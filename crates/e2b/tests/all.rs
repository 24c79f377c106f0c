//! dsh-e2b against a real dsh-envd on loopback (and, for faults a real envd cannot
//! produce, a deliberately lying peer named as such).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
