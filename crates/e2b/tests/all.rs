//! dsh-e2b against a real dsh-envd on loopback (and, for faults a real envd cannot
//! produce, a deliberately lying peer named as such); the seams' contract from
//! `dsh_core::testkit` runs against the e2b backend here.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;

dsh_core::backend_contract!(envd => crate::suite::backend::envd_backend().await);
dsh_core::backend_contract!(sandbox => crate::suite::sandbox::sandbox_backend().await);
