//! Integration tests of the host backend, with real processes, files and PTYs: the
//! seams' contract from `dsh_core::testkit`, then what only the host backend does.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;

dsh_core::backend_contract!(host => dsh_core::testkit::BackendUnderTest::host());
