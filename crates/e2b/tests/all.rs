//! dsh-e2b against a real dsh-envd on loopback (and, for faults a real envd cannot
//! produce, a deliberately lying peer named as such); the seams' contract from
//! `dsh_core::testkit` runs against the e2b backend here: over a bare envd, inside a local
//! sandbox, and as E2B cloud is reached (TLS and HTTP/2 through a stand-in of E2B's edge,
//! the sandbox's envd E2B-strict: commands in envd's own process group, as E2B starts
//! them), once by each of the edge's routes (`<port>-<id>.<domain>`, and
//! `sandbox.<domain>` with the routing headers).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;

dsh_core::backend_contract!(envd => crate::suite::backend::envd_backend().await);
dsh_core::backend_contract!(sandbox => crate::suite::sandbox::sandbox_backend().await);
dsh_core::backend_contract!(cloud => crate::suite::sandbox::cloud_backend().await);
dsh_core::backend_contract!(cloud_shared_host => crate::suite::sandbox::cloud_shared_host_backend().await);
