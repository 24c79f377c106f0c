//! `[sandbox]` of `dsh.toml`: which sandbox to open (or reconnect to), where its
//! control plane is, and what to do with it at the end.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OnTimeout {
    Kill,
    Pause,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OnDispose {
    Kill,
    Pause,
    Leave,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SandboxConfig {
    /// Template to create the sandbox from (exclusive with `sandbox_id`).
    pub template: Option<String>,
    /// Reconnect to this sandbox instead of creating one (files only come back, never
    /// live processes or terminals).
    pub sandbox_id: Option<String>,
    /// The session workspace inside the sandbox.
    pub cwd: PathBuf,
    /// Seconds until the sandbox times out; while dsh holds the sandbox it keeps moving
    /// that deadline (see `keepalive_secs`), so it is how long the sandbox outlives a dsh
    /// that died without disposing of it.
    pub timeout_secs: u32,
    /// Seconds between extensions of the sandbox's timeout (each sets it to
    /// `timeout_secs` from then) while a runtime holds it. Unset: a third of
    /// `timeout_secs`, so two extensions can fail before it expires; 0: never extended.
    pub keepalive_secs: Option<u32>,
    pub on_timeout: OnTimeout,
    /// What happens to the sandbox when dsh disposes of it.
    pub on_dispose: OnDispose,
    /// Control plane URL. Unset: E2B cloud when an API key is set, else dsh's embedded
    /// local sandbox daemon.
    pub api_url: Option<String>,
    /// Sandbox domain for envd URLs (E2B cloud: `e2b.app`).
    pub domain: Option<String>,
    /// envd URL override (a router that takes `E2b-Sandbox-Id`), like `E2B_SANDBOX_URL`.
    pub envd_url: Option<String>,
    /// The Linux user tools run as (unset: the sandbox's default user).
    pub user: Option<String>,
    /// The API key. Prefer the `E2B_API_KEY` environment variable to a file.
    pub api_key: Option<String>,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        Self {
            template: None,
            sandbox_id: None,
            cwd: PathBuf::from("/home/user/workspace"),
            timeout_secs: 300,
            keepalive_secs: None,
            on_timeout: OnTimeout::Kill,
            on_dispose: OnDispose::Kill,
            api_url: None,
            domain: None,
            envd_url: None,
            user: None,
            api_key: None,
        }
    }
}
