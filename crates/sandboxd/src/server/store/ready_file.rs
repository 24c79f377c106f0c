//! Where envd announces the address it bound (a sandbox on the host's network picks a
//! free port): a file in the sandbox's own `/var`, read by the daemon from the host.

/// Where envd writes its bound address, inside the sandbox (`/var` is the sandbox's own
/// `<state>/var`, so the daemon reads it at `<state>/var/lib/dsh-sandboxd/envd.addr`).
pub const READY_DIR_INSIDE: &str = "/var/lib/dsh-sandboxd";
pub const READY_FILE: &str = "envd.addr";

/// Where, in a sandbox directory, envd announces its address (host network only).
pub fn ready_file(sandbox_dir: &std::path::Path) -> std::path::PathBuf {
    sandbox_dir.join(READY_DIR_INSIDE.trim_start_matches('/')).join(READY_FILE)
}
