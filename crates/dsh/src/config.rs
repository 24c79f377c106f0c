//! dsh's configuration: a base file (`dsh.toml`) plus an optional overlay
//! (`dsh.e2b.toml`, the seed's idea) that switches the backend to a sandbox, plus
//! environment variables that override single keys. Unknown keys are errors that name
//! the key, so a typo never silently does nothing.
//!
//! The file's shape lives here, in the program that reads it; the crates that act on a
//! section define it (`[sandbox]`: `dsh-e2b`'s [`SandboxConfig`]).

use std::path::{Path, PathBuf};

use dsh_e2b::SandboxConfig;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub backend: BackendConfig,
    pub sandbox: SandboxConfig,
    pub lsp: LspSection,
    pub sandboxd: SandboxdConfig,
}

/// `[sandboxd]`: dsh's own local sandbox daemon (`dsh sandbox serve`, and the one `dsh`
/// embeds when no control plane is configured).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SandboxdConfig {
    /// How far sandboxes are separated from the host. A host that cannot give the level
    /// makes the daemon fail to start, saying what is missing: never a silent fallback.
    pub isolation: IsolationSetting,
    /// `private` (default): a network namespace per sandbox, egress through pasta, the
    /// host and its LAN out of reach, ports reached through the daemon. `none`: loopback
    /// only. `host`: the host's network — unsafe, the host and its LAN are reachable.
    pub net: NetSetting,
    /// Sandboxes kept started ahead of demand per template: a number (0: none), or
    /// `"auto"` (the default: sized to demand and to the machine; a daemon embedded in a
    /// dsh command keeps none). Each is handed out once, never reused.
    #[serde(deserialize_with = "pool_setting")]
    pub pool: Option<u32>,
    /// Default CPU bandwidth of a sandbox, in whole CPUs (a create request may ask for
    /// another).
    pub cpu_count: u64,
    /// Default memory limit of a sandbox in MiB (no swap on top of it).
    pub memory_mb: u64,
    /// Processes (and threads) a sandbox may have at once.
    pub max_processes: u64,
    /// Where read-only layers (language servers installed once per machine) are kept;
    /// every daemon of this user (embedded or `dsh sandbox serve`) shares it. Default:
    /// [`crate::connect::default_layer_store`].
    pub layer_store: Option<std::path::PathBuf>,
    /// What a sandbox may write to its files, in MiB (0: no quota). Quotas need
    /// `mkfs.btrfs` (package btrfs-progs) and root; see docs/sandboxes.md.
    pub disk_mb: u64,
    /// Size in MiB of the image holding every sandbox's files, when it is first made
    /// (default: half the free space under the state directory).
    pub disk_image_mb: Option<u64>,
    /// What a volume may hold when its create request names no `sizeMB`, in MiB
    /// (default: `disk_mb`; at most the image).
    pub volume_mb: Option<u64>,
    /// What runs sandboxes whose create names no `runtime`: `native` (the daemon's own
    /// launcher, the default) or `gvisor` (gVisor's runsc, 2024-07-29 or newer: memory
    /// that outlives the daemon, forks with processes; see docs/gvisor.md).
    pub runtime: dsh_sandboxd::gvisor::Runtime,
    /// A hosts(5) file of names the egress path resolves itself for header rules
    /// (`[sandbox.network.rules]`) over plain HTTP, before the host's resolver: names the
    /// host's DNS does not know.
    pub egress_hosts: Option<PathBuf>,
    /// PEM certificates trusted, besides the host's store, for the destinations of header
    /// rules over HTTPS (a company's CA).
    pub egress_trust: Option<PathBuf>,
}

impl Default for SandboxdConfig {
    fn default() -> Self {
        Self {
            isolation: IsolationSetting::Strict,
            net: NetSetting::Private,
            pool: None,
            cpu_count: 2,
            memory_mb: 4096,
            max_processes: 4096,
            layer_store: None,
            disk_mb: 10 * 1024,
            disk_image_mb: None,
            volume_mb: None,
            runtime: dsh_sandboxd::gvisor::Runtime::Native,
            egress_hosts: None,
            egress_trust: None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NetSetting {
    Private,
    None,
    Host,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IsolationSetting {
    /// A user namespace per sandbox (root inside is an unprivileged uid on the host),
    /// Docker's capabilities, `no_new_privs`, a seccomp filter and cgroup limits.
    Strict,
    /// Namespaces only: root inside is root on the host. Only for code you trust.
    Namespaces,
}

/// `[lsp.servers.<name>]` tables: language servers added to (or replacing) the built-in
/// ones. Their keys are checked by the language-server engine, which owns their meaning.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LspSection {
    /// `auto` (default): a missing server with packages to install (`install`) is
    /// installed into the sandbox on its first use; `never`: the error says how instead.
    pub provision: Provision,
    pub servers: std::collections::BTreeMap<String, toml::Table>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Provision {
    #[default]
    Auto,
    Never,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BackendConfig {
    /// `sandbox` (default: E2B cloud, or dsh's local sandboxes) or `host` (the host OS,
    /// no isolation).
    pub kind: BackendKind,
    /// The working directory for the `host` backend (default: the current directory).
    #[serde(alias = "local_cwd")]
    pub host_cwd: Option<PathBuf>,
}

impl Default for BackendConfig {
    fn default() -> Self {
        Self { kind: BackendKind::Sandbox, host_cwd: None }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BackendKind {
    /// The host OS itself, unisolated (`local` before it was renamed, still accepted).
    #[serde(alias = "local")]
    Host,
    /// A sandbox: dsh's local sandboxes, or E2B's.
    Sandbox,
}

/// A configuration problem; the message names the file and key.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ConfigError {
    /// The file could not be read. Check the path.
    #[error("cannot read {path}: {message}")]
    Read { path: PathBuf, message: String },
    /// The TOML is malformed, a key is unknown or a value has the wrong type; `message`
    /// names the key.
    #[error("{source_name}: {message}")]
    Invalid { source_name: String, message: String },
    /// Two settings contradict each other.
    #[error("conflicting settings: {0}")]
    Conflict(String),
}

/// Environment variables that override single keys.
pub const ENV_OVERRIDES: &[(&str, &str)] = &[
    ("DSH_BACKEND", "backend.kind"),
    ("DSH_SANDBOXD_ISOLATION", "sandboxd.isolation"),
    ("DSH_SANDBOXD_NET", "sandboxd.net"),
    ("DSH_SANDBOXD_RUNTIME", "sandboxd.runtime"),
    ("DSH_LAYER_STORE", "sandboxd.layer_store"),
    ("DSH_SANDBOX_TEMPLATE", "sandbox.template"),
    ("DSH_SANDBOX_ID", "sandbox.sandbox_id"),
    ("DSH_SANDBOX_CWD", "sandbox.cwd"),
    ("E2B_API_KEY", "sandbox.api_key"),
    ("E2B_API_URL", "sandbox.api_url"),
    ("E2B_DOMAIN", "sandbox.domain"),
    ("E2B_SANDBOX_URL", "sandbox.envd_url"),
];

impl Config {
    /// Parses one TOML document.
    pub fn from_toml(text: &str, source_name: &str) -> Result<Self, ConfigError> {
        let config: Config = toml::from_str(text).map_err(|err| ConfigError::Invalid {
            source_name: source_name.to_owned(),
            message: err.message().to_owned() + &key_hint(&err),
        })?;
        config.validate()?;
        Ok(config)
    }

    /// Loads `base` (missing is fine: defaults), then deep-merges `overlay` over it, then
    /// applies the environment overrides from `env`.
    pub fn load(
        base: &Path,
        overlay: Option<&Path>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, ConfigError> {
        let mut merged = read_table(base, true)?;
        if let Some(overlay) = overlay {
            let overlay = read_table(overlay, false)?;
            // A secret's source is one key (`env` or `file`): the overlay's replaces the
            // base's rather than joining it.
            if let (Some(toml::Value::Table(secrets)), Some(toml::Value::Table(sandbox))) = (
                overlay.get("sandbox").and_then(|sandbox| sandbox.get("secrets")),
                merged.get_mut("sandbox"),
            ) && let Some(toml::Value::Table(base_secrets)) = sandbox.get_mut("secrets")
            {
                for name in secrets.keys() {
                    base_secrets.remove(name);
                }
            }
            merge(&mut merged, overlay);
        }
        for (variable, key) in ENV_OVERRIDES {
            if let Some(value) = env(variable).filter(|v| !v.is_empty()) {
                set_key(&mut merged, key, value);
            }
        }
        let text = toml::to_string(&merged).map_err(|err| ConfigError::Invalid {
            source_name: base.display().to_string(),
            message: err.to_string(),
        })?;
        let name = match overlay {
            Some(overlay) => format!("{} + {}", base.display(), overlay.display()),
            None => base.display().to_string(),
        };
        Self::from_toml(&text, &name)
    }

    fn validate(&self) -> Result<(), ConfigError> {
        if self.sandbox.template.is_some() && self.sandbox.sandbox_id.is_some() {
            return Err(ConfigError::Conflict(
                "sandbox.template and sandbox.sandbox_id exclude each other: create from a template, or reconnect by id"
                    .into(),
            ));
        }
        let sandboxd = &self.sandboxd;
        if sandboxd.cpu_count == 0 || sandboxd.memory_mb < 128 || sandboxd.max_processes < 16 {
            return Err(ConfigError::Conflict(format!(
                "sandboxd limits too small to run a sandbox: cpu_count {} (at least 1), memory_mb {} (at least 128), max_processes {} (at least 16)",
                sandboxd.cpu_count, sandboxd.memory_mb, sandboxd.max_processes
            )));
        }
        if !self.sandbox.cwd.is_absolute() {
            return Err(ConfigError::Conflict(format!(
                "sandbox.cwd must be absolute, got {}",
                self.sandbox.cwd.display()
            )));
        }
        Ok(())
    }
}

fn key_hint(err: &toml::de::Error) -> String {
    match err.span() {
        Some(span) => format!(" (at bytes {}..{})", span.start, span.end),
        None => String::new(),
    }
}

fn read_table(path: &Path, missing_ok: bool) -> Result<toml::Table, ConfigError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(err) if missing_ok && err.kind() == std::io::ErrorKind::NotFound => {
            return Ok(toml::Table::new());
        }
        Err(err) => {
            return Err(ConfigError::Read { path: path.to_path_buf(), message: err.to_string() });
        }
    };
    let table: toml::Table = text.parse().map_err(|err: toml::de::Error| ConfigError::Invalid {
        source_name: path.display().to_string(),
        message: err.message().to_owned(),
    })?;
    // Check the keys per file so the error names the file the typo is in.
    Config::from_toml(&text, &path.display().to_string()).map(|_| ()).or_else(|err| match err {
        ConfigError::Conflict(_) => Ok(()),
        other => Err(other),
    })?;
    Ok(table)
}

fn merge(base: &mut toml::Table, overlay: toml::Table) {
    for (key, value) in overlay {
        match (base.get_mut(&key), value) {
            (Some(toml::Value::Table(existing)), toml::Value::Table(incoming)) => {
                merge(existing, incoming)
            }
            (_, value) => {
                base.insert(key, value);
            }
        }
    }
}

fn set_key(table: &mut toml::Table, dotted: &str, value: String) {
    let mut parts: Vec<&str> = dotted.split('.').collect();
    let Some(last) = parts.pop() else { return };
    let mut current = table;
    for part in parts {
        let entry = current
            .entry(part.to_owned())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        let toml::Value::Table(next) = entry else { return };
        current = next;
    }
    current.insert(last.to_owned(), toml::Value::String(value));
}

/// `pool`: a number of sandboxes, or `"auto"` (`None`).
fn pool_setting<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<u32>, D::Error> {
    match toml::Value::deserialize(deserializer)? {
        toml::Value::String(word) if word == "auto" => Ok(None),
        toml::Value::Integer(n) if (0..=i64::from(u32::MAX)).contains(&n) => {
            Ok(u32::try_from(n).ok())
        }
        toml::Value::String(other) => Err(serde::de::Error::custom(format!(
            "pool: a number of sandboxes or \"auto\", not {other:?}"
        ))),
        other => Err(serde::de::Error::custom(format!(
            "pool: a number of sandboxes or \"auto\", not {other}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use dsh_e2b::{OnDispose, OnTimeout};

    fn no_env(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn defaults_are_a_sandbox_with_the_seed_workspace() {
        let config = Config::from_toml("", "empty").unwrap();
        assert_eq!(config.backend.kind, BackendKind::Sandbox);
        assert_eq!(config.sandbox.cwd, PathBuf::from("/home/user/workspace"));
        assert_eq!(
            (config.sandbox.on_dispose, config.sandbox.on_timeout),
            (OnDispose::Kill, OnTimeout::Kill)
        );
    }

    #[test]
    fn unknown_keys_are_named() {
        let err = Config::from_toml("[sandbox]\ntemplte = \"base\"\n", "dsh.toml").unwrap_err();
        let ConfigError::Invalid { source_name, message } = err else { panic!("{err:?}") };
        assert_eq!(source_name, "dsh.toml");
        assert!(message.contains("unknown field `templte`"), "{message}");
        let err = Config::from_toml("[sandbx]\n", "dsh.toml").unwrap_err();
        assert!(err.to_string().contains("unknown field `sandbx`"), "{err}");
        let err = Config::from_toml("[sandbox]\non_dispose = \"explode\"\n", "x").unwrap_err();
        assert!(err.to_string().contains("explode"), "{err}");
    }

    #[test]
    fn the_overlay_switches_the_backend_and_env_overrides_win() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("dsh.toml");
        let overlay = dir.path().join("dsh.e2b.toml");
        std::fs::write(&base, "[backend]\nkind = \"local\"\n[sandbox]\ntimeout_secs = 60\n")
            .unwrap();
        std::fs::write(&overlay, "[backend]\nkind = \"sandbox\"\n[sandbox]\ntemplate = \"base\"\non_dispose = \"pause\"\n").unwrap();
        let config = Config::load(&base, Some(&overlay), &no_env).unwrap();
        assert_eq!(config.backend.kind, BackendKind::Sandbox);
        assert_eq!(
            (config.sandbox.timeout_secs, config.sandbox.on_dispose),
            (60, OnDispose::Pause)
        );
        assert_eq!(config.sandbox.template.as_deref(), Some("base"));
        let env = |name: &str| match name {
            "E2B_API_KEY" => Some("key-from-env".to_owned()),
            "DSH_BACKEND" => Some("local".to_owned()),
            _ => None,
        };
        let config = Config::load(&base, Some(&overlay), &env).unwrap();
        assert_eq!(config.sandbox.api_key.as_deref(), Some("key-from-env"));
        assert_eq!(config.backend.kind, BackendKind::Host);
        let missing = Config::load(&dir.path().join("none.toml"), None, &no_env).unwrap();
        assert_eq!(missing, Config::default());
        std::fs::write(&overlay, "[sandbox]\nsandbox_idd = \"x\"\n").unwrap();
        let err = Config::load(&base, Some(&overlay), &no_env).unwrap_err();
        assert!(
            err.to_string()
                .starts_with(&format!("{}: unknown field `sandbox_idd`", overlay.display())),
            "{err}"
        );
    }

    #[test]
    fn language_servers_are_tables_under_lsp_servers() {
        let config = Config::from_toml(
            "[lsp.servers.gopls]\ncommand = [\"gopls\"]\nextensions = [\"go\"]\n",
            "dsh.toml",
        )
        .unwrap();
        let gopls = &config.lsp.servers["gopls"];
        assert_eq!(gopls["extensions"], toml::Value::Array(vec![toml::Value::String("go".into())]));
        let err = Config::from_toml("[lsp]\nserver = {}\n", "dsh.toml").unwrap_err();
        assert!(err.to_string().contains("unknown field `server`"), "{err}");
    }

    #[test]
    fn the_pool_is_a_number_or_auto() {
        let pool = |text: &str| Config::from_toml(text, "dsh.toml").map(|c| c.sandboxd.pool);
        assert_eq!(pool("").unwrap(), None);
        assert_eq!(pool("[sandboxd]\npool = \"auto\"\n").unwrap(), None);
        assert_eq!(pool("[sandboxd]\npool = 0\n").unwrap(), Some(0));
        let err = pool("[sandboxd]\npool = \"many\"\n").unwrap_err();
        assert!(
            err.to_string().contains("pool: a number of sandboxes or \"auto\", not \"many\""),
            "{err}"
        );
        let err = pool("[sandboxd]\npool = -1\n").unwrap_err();
        assert!(
            err.to_string().contains("pool: a number of sandboxes or \"auto\", not -1"),
            "{err}"
        );
    }

    #[test]
    fn the_sandboxd_section_names_isolation_pool_and_limits() {
        let config = Config::from_toml("", "empty").unwrap();
        assert_eq!(config.sandboxd, SandboxdConfig::default());
        assert_eq!(config.sandboxd.isolation, IsolationSetting::Strict);
        let config = Config::from_toml(
            "[sandboxd]\nisolation = \"namespaces\"\npool = 3\nmemory_mb = 512\ncpu_count = 1\nlayer_store = \"/srv/layers\"\ndisk_mb = 2048\ndisk_image_mb = 65536\nvolume_mb = 512\nruntime = \"gvisor\"\n",
            "dsh.toml",
        )
        .unwrap();
        assert_eq!(
            config.sandboxd,
            SandboxdConfig {
                isolation: IsolationSetting::Namespaces,
                net: NetSetting::Private,
                pool: Some(3),
                cpu_count: 1,
                memory_mb: 512,
                max_processes: 4096,
                layer_store: Some("/srv/layers".into()),
                disk_mb: 2048,
                disk_image_mb: Some(65536),
                volume_mb: Some(512),
                runtime: dsh_sandboxd::gvisor::Runtime::Gvisor,
                egress_hosts: None,
                egress_trust: None,
            }
        );
        let err = Config::from_toml("[sandboxd]\nisolation = \"none\"\n", "dsh.toml").unwrap_err();
        assert!(err.to_string().contains("unknown variant `none`"), "{err}");
        let err = Config::from_toml("[sandboxd]\nmemory_mb = 16\n", "dsh.toml").unwrap_err();
        assert_eq!(
            err.to_string(),
            "conflicting settings: sandboxd limits too small to run a sandbox: cpu_count 2 (at least 1), memory_mb 16 (at least 128), max_processes 4096 (at least 16)"
        );
        let dir = tempfile::tempdir().unwrap();
        let env = |name: &str| match name {
            "DSH_SANDBOXD_ISOLATION" => Some("namespaces".to_owned()),
            "DSH_LAYER_STORE" => Some("/tmp/store".to_owned()),
            "DSH_SANDBOXD_RUNTIME" => Some("gvisor".to_owned()),
            _ => None,
        };
        let config = Config::load(&dir.path().join("missing.toml"), None, &env).unwrap();
        assert_eq!(config.sandboxd.isolation, IsolationSetting::Namespaces);
        assert_eq!(config.sandboxd.runtime, dsh_sandboxd::gvisor::Runtime::Gvisor);
        assert_eq!(config.sandboxd.layer_store, Some("/tmp/store".into()));
    }

    const CREDENTIALS: &str = r#"
[sandbox]
template = "base"

[sandbox.network]
allow_out = ["api.github.com", "10.1.2.3/32"]
deny_out = ["0.0.0.0/0"]
allow_internet_access = false

[sandbox.network.rules."api.github.com".headers]
Authorization = "Bearer ${e2b.secrets.github}"
X-Team = "dsh"

[sandbox.network.rules."registry.example.test".headers]
Authorization = "Basic ${e2b.secrets.registry}"

[sandbox.network.egress_proxy]
address = "proxy.example.test:1080"
username = "dsh"
password = "proxy-password"

[sandbox.secrets]
github = { env = "GITHUB_TOKEN" }
registry = { file = "~/.config/registry/token" }

[sandboxd]
egress_hosts = "/etc/dsh/egress-hosts"
egress_trust = "/etc/dsh/company-ca.pem"
"#;

    #[test]
    fn network_rules_secrets_and_the_egress_settings_parse() {
        use dsh_e2b::{EgressProxyConfig, NetworkConfig, RuleConfig, SecretSource};
        use std::collections::BTreeMap;
        let config = Config::from_toml(CREDENTIALS, "dsh.toml").unwrap();
        let headers = |pairs: &[(&str, &str)]| RuleConfig {
            headers: pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect(),
        };
        assert_eq!(
            config.sandbox.network,
            NetworkConfig {
                allow_out: vec!["api.github.com".into(), "10.1.2.3/32".into()],
                deny_out: vec!["0.0.0.0/0".into()],
                allow_internet_access: Some(false),
                rules: BTreeMap::from([
                    (
                        "api.github.com".to_owned(),
                        headers(&[
                            ("Authorization", "Bearer ${e2b.secrets.github}"),
                            ("X-Team", "dsh"),
                        ]),
                    ),
                    (
                        "registry.example.test".to_owned(),
                        headers(&[("Authorization", "Basic ${e2b.secrets.registry}")]),
                    ),
                ]),
                egress_proxy: Some(EgressProxyConfig {
                    address: "proxy.example.test:1080".into(),
                    username: Some("dsh".into()),
                    password: Some("proxy-password".into()),
                }),
            }
        );
        assert_eq!(
            config.sandbox.secrets,
            BTreeMap::from([
                ("github".to_owned(), SecretSource::Env("GITHUB_TOKEN".into())),
                ("registry".to_owned(), SecretSource::File("~/.config/registry/token".into())),
            ])
        );
        assert_eq!(
            (config.sandboxd.egress_hosts, config.sandboxd.egress_trust),
            (Some("/etc/dsh/egress-hosts".into()), Some("/etc/dsh/company-ca.pem".into()))
        );
        // The same through a file, an overlay and the merge that goes with them.
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("dsh.toml");
        let overlay = dir.path().join("dsh.e2b.toml");
        std::fs::write(&base, CREDENTIALS).unwrap();
        std::fs::write(&overlay, "[sandbox.secrets]\ngithub = { file = \"/run/gh\" }\n").unwrap();
        let loaded = Config::load(&base, Some(&overlay), &no_env).unwrap();
        assert_eq!(
            loaded.sandbox.network,
            Config::from_toml(CREDENTIALS, "x").unwrap().sandbox.network
        );
        assert_eq!(loaded.sandbox.secrets["github"], SecretSource::File("/run/gh".into()));
        assert_eq!(
            loaded.sandbox.secrets["registry"],
            SecretSource::File("~/.config/registry/token".into())
        );
        // The proxy's password never shows in a debug print.
        let printed = format!("{:?}", config.sandbox);
        assert!(!printed.contains("proxy-password"), "{printed}");
        assert!(printed.contains("<hidden>"), "{printed}");
    }

    #[test]
    fn unknown_keys_of_the_network_and_secrets_tables_are_named() {
        let error = |text: &str| Config::from_toml(text, "dsh.toml").unwrap_err().to_string();
        assert_eq!(
            error("[sandbox.network]\nallow_outt = []\n"),
            "dsh.toml: unknown field `allow_outt`, expected one of `allow_out`, `deny_out`, `allow_internet_access`, `rules`, `egress_proxy` (at bytes 18..28)"
        );
        assert_eq!(
            error("[sandbox.network.rules.\"a.test\"]\nheader = {}\n"),
            "dsh.toml: unknown field `header`, expected `headers` (at bytes 33..39)"
        );
        assert_eq!(
            error("[sandbox.network.egress_proxy]\naddress = \"p:1080\"\nuser = \"x\"\n"),
            "dsh.toml: unknown field `user`, expected one of `address`, `username`, `password` (at bytes 50..54)"
        );
        assert_eq!(
            error("[sandbox.secrets]\ngh = { envv = \"X\" }\n"),
            "dsh.toml: unknown field `envv`, expected `env` or `file` (at bytes 25..29)"
        );
        assert_eq!(
            error("[sandbox.secrets]\ngh = { env = \"X\", file = \"/x\" }\n"),
            "dsh.toml: a secret comes from { env = \"VARIABLE\" } or { file = \"PATH\" }: one of the two (at bytes 23..49)"
        );
        assert_eq!(
            error("[sandboxd]\negress_host = \"/x\"\n"),
            "dsh.toml: unknown field `egress_host`, expected one of `isolation`, `net`, `pool`, `cpu_count`, `memory_mb`, `max_processes`, `layer_store`, `disk_mb`, `disk_image_mb`, `volume_mb`, `runtime`, `egress_hosts`, `egress_trust` (at bytes 11..22)"
        );
    }

    #[test]
    fn template_and_sandbox_id_conflict() {
        let err = Config::from_toml("[sandbox]\ntemplate = \"base\"\nsandbox_id = \"abc\"\n", "x")
            .unwrap_err();
        assert!(matches!(err, ConfigError::Conflict(_)));
    }
}
