//! dsh-e2b against a real dsh-envd on loopback (and, for faults a real envd cannot
//! produce, a deliberately lying peer named as such); the seams' contract from
//! `dsh_core::testkit` runs against the e2b backend here: over a bare envd, inside a local
//! sandbox, and as E2B cloud is reached (TLS and HTTP/2 through a stand-in of E2B's edge,
//! the sandbox's envd E2B-strict).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;

dsh_core::backend_contract!(envd => crate::suite::backend::envd_backend().await);
dsh_core::backend_contract!(sandbox => crate::suite::sandbox::sandbox_backend().await);
dsh_core::backend_contract!(cloud => crate::suite::sandbox::cloud_backend().await);
