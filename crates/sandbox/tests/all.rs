//! Integration tests of the isolation layer on the real kernel (they need root, as on
//! this machine and CI): cgroup limits against real processes, and the seccomp filter
//! and capability drop on real processes. One test binary; the launch suite (real
//! sandboxes with their pid 1) is `dsh-sandboxd`'s, which builds `dsh-sandbox-init`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cgroups;
mod seccomp;
