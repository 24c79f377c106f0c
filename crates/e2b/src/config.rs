//! `[sandbox]` of `dsh.toml`: which sandbox to open (or reconnect to), where its
//! control plane is, and what to do with it at the end.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

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
    /// `[sandbox.network]`: the created sandbox's egress (E2B's `network` of a create).
    pub network: NetworkConfig,
    /// `[sandbox.secrets]`: secrets put into the control plane's `/secrets` before the
    /// sandbox is opened, each read on the host (an environment variable or a file), so
    /// `network.rules` can name them (`${e2b.secrets.NAME}`) and no value is in the file.
    pub secrets: BTreeMap<String, SecretSource>,
}

/// `[sandbox.network]`: what a created sandbox may reach and what its requests get, as
/// E2B's create request says it (`network.allowOut`, `denyOut`, `rules`, `egressProxy`,
/// and `allow_internet_access`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NetworkConfig {
    /// Addresses, CIDR blocks or domain names (`*.example.com`) allowed out, over
    /// `deny_out` and `allow_internet_access = false`.
    pub allow_out: Vec<String>,
    /// Addresses or CIDR blocks refused.
    pub deny_out: Vec<String>,
    /// `false`: nothing goes out but `allow_out`. Unset: the control plane's default
    /// (allowed).
    pub allow_internet_access: Option<bool>,
    /// Domain → the headers every HTTP and HTTPS request to it gets from the egress path
    /// (set outside the sandbox; a value may name a secret, `${e2b.secrets.NAME}`). A
    /// domain here is not thereby allowed out.
    pub rules: BTreeMap<String, RuleConfig>,
    /// A SOCKS5 proxy every outbound TCP connection goes through.
    pub egress_proxy: Option<EgressProxyConfig>,
}

/// One domain's rule: `[sandbox.network.rules."api.github.com".headers]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RuleConfig {
    /// Header name → value (an existing header of that name is replaced).
    pub headers: BTreeMap<String, String>,
}

/// `[sandbox.network.egress_proxy]`: E2B's `egressProxy`.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EgressProxyConfig {
    /// `host:port`.
    pub address: String,
    #[serde(default)]
    pub username: Option<String>,
    #[serde(default)]
    pub password: Option<String>,
}

impl std::fmt::Debug for EgressProxyConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EgressProxyConfig")
            .field("address", &self.address)
            .field("username", &self.username)
            .field("password", &self.password.as_ref().map(|_| "<hidden>"))
            .finish()
    }
}

/// Where a secret's value comes from on the host: `{ env = "GITHUB_TOKEN" }` or
/// `{ file = "~/.config/gh/token" }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", try_from = "SourceTable")]
pub enum SecretSource {
    /// The value of this environment variable of dsh's.
    Env(String),
    /// The bytes of this file (UTF-8 text; one trailing newline dropped). `~/` is the
    /// home directory; a relative path is from the current directory.
    File(PathBuf),
}

/// A secret's source as written: exactly one of its keys.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SourceTable {
    env: Option<String>,
    file: Option<PathBuf>,
}

impl TryFrom<SourceTable> for SecretSource {
    type Error = String;

    fn try_from(table: SourceTable) -> std::result::Result<Self, String> {
        match (table.env, table.file) {
            (Some(variable), None) => Ok(SecretSource::Env(variable)),
            (None, Some(path)) => Ok(SecretSource::File(path)),
            _ => Err(
                "a secret comes from { env = \"VARIABLE\" } or { file = \"PATH\" }: one of the two"
                    .to_owned(),
            ),
        }
    }
}

impl SecretSource {
    /// The value of secret `name`, read now through `env` (a variable's value) and the
    /// file system. The error names the secret and the variable or file, never a value.
    pub fn read(&self, name: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<String> {
        match self {
            SecretSource::Env(variable) => match env(variable) {
                Some(value) if !value.is_empty() => Ok(value),
                Some(_) => Err(Error::Invalid(format!(
                    "secret {name} (sandbox.secrets): the environment variable {variable} is empty"
                ))),
                None => Err(Error::Invalid(format!(
                    "secret {name} (sandbox.secrets): the environment variable {variable} is not set"
                ))),
            },
            SecretSource::File(path) => {
                let path = expand_home(path, env);
                let bytes = std::fs::read(&path).map_err(|err| {
                    Error::Invalid(format!(
                        "secret {name} (sandbox.secrets): cannot read {}: {err}",
                        path.display()
                    ))
                })?;
                let mut value = String::from_utf8(bytes).map_err(|_| {
                    Error::Invalid(format!(
                        "secret {name} (sandbox.secrets): {} is not UTF-8 text",
                        path.display()
                    ))
                })?;
                if value.ends_with('\n') {
                    value.pop();
                    if value.ends_with('\r') {
                        value.pop();
                    }
                }
                if value.is_empty() {
                    return Err(Error::Invalid(format!(
                        "secret {name} (sandbox.secrets): {} is empty",
                        path.display()
                    )));
                }
                Ok(value)
            }
        }
    }
}

/// `path` with a leading `~/` (or a lone `~`) as `$HOME`.
fn expand_home(path: &Path, env: &dyn Fn(&str) -> Option<String>) -> PathBuf {
    let home = || env("HOME").filter(|home| !home.is_empty()).map(PathBuf::from);
    match path.strip_prefix("~") {
        Ok(rest) => match home() {
            Some(home) => home.join(rest),
            None => path.to_path_buf(),
        },
        Err(_) => path.to_path_buf(),
    }
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
            network: NetworkConfig::default(),
            secrets: BTreeMap::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_secret_is_read_from_a_variable_or_a_file_and_errors_name_only_the_source() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().to_str().unwrap().to_owned();
        std::fs::create_dir_all(dir.path().join(".config/gh")).unwrap();
        std::fs::write(dir.path().join(".config/gh/token"), "file-value-1\n").unwrap();
        std::fs::write(dir.path().join("crlf"), "file-value-2\r\n").unwrap();
        std::fs::write(dir.path().join("two"), "file-value-3\n\n").unwrap();
        std::fs::write(dir.path().join("empty"), "\n").unwrap();
        std::fs::write(dir.path().join("binary"), [0xff, 0xfe]).unwrap();
        let env = |name: &str| match name {
            "HOME" => Some(home.clone()),
            "GITHUB_TOKEN" => Some("env-value".to_owned()),
            "EMPTY" => Some(String::new()),
            _ => None,
        };
        let read = |source: SecretSource| source.read("gh", &env);
        assert_eq!(read(SecretSource::Env("GITHUB_TOKEN".into())).unwrap(), "env-value");
        assert_eq!(read(SecretSource::File("~/.config/gh/token".into())).unwrap(), "file-value-1");
        assert_eq!(read(SecretSource::File(dir.path().join("crlf"))).unwrap(), "file-value-2");
        assert_eq!(read(SecretSource::File(dir.path().join("two"))).unwrap(), "file-value-3\n");
        let error = |source: SecretSource| read(source).unwrap_err().to_string();
        assert_eq!(
            error(SecretSource::Env("NO_SUCH_TOKEN".into())),
            "invalid request: secret gh (sandbox.secrets): the environment variable NO_SUCH_TOKEN is not set"
        );
        assert_eq!(
            error(SecretSource::Env("EMPTY".into())),
            "invalid request: secret gh (sandbox.secrets): the environment variable EMPTY is empty"
        );
        assert_eq!(
            error(SecretSource::File("~/missing".into())),
            format!(
                "invalid request: secret gh (sandbox.secrets): cannot read {home}/missing: No such file or directory (os error 2)"
            )
        );
        assert_eq!(
            error(SecretSource::File(dir.path().join("empty"))),
            format!("invalid request: secret gh (sandbox.secrets): {home}/empty is empty")
        );
        assert_eq!(
            error(SecretSource::File(dir.path().join("binary"))),
            format!(
                "invalid request: secret gh (sandbox.secrets): {home}/binary is not UTF-8 text"
            )
        );
    }
}
