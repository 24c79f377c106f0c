//! The control-plane client (E2B's REST API, which `dsh-sandboxd` also serves): create,
//! connect/resume, get, list, kill, pause, set timeout. The API key only ever goes to the
//! control plane, never into a sandbox.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde::{Deserialize, Serialize};

pub use dsh_proto::control::{
    Collected, ListedSandbox as SandboxDetail, Sandbox as SandboxInfo, SandboxMetric,
    Secret as SecretInfo, Snapshot as SnapshotInfo, Volume as VolumeInfo,
};

use crate::config::{NetworkConfig, OnTimeout, SandboxConfig};
use crate::envd::http_error;
use crate::error::{Error, Result};

/// E2B cloud's control plane.
pub const E2B_API_URL: &str = "https://api.e2b.app";

/// What to create.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NewSandbox {
    #[serde(rename = "templateID")]
    pub template_id: String,
    /// Seconds until the sandbox times out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout: Option<u32>,
    /// Pause instead of kill when the timeout passes.
    pub auto_pause: bool,
    #[serde(skip_serializing_if = "HashMap::is_empty")]
    pub metadata: HashMap<String, String>,
    /// Sandbox-wide environment variables (delivered to envd, not to the host).
    #[serde(skip_serializing_if = "HashMap::is_empty")]
    pub env_vars: HashMap<String, String>,
    /// Ask for an envd access token.
    pub secure: bool,
    /// Volumes to mount, by name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub volume_mounts: Vec<VolumeMount>,
    /// dsh's local daemon only: what runs it (`native` or `gvisor`); unset, the daemon's
    /// default. E2B's cloud has no such field (it is not sent unless set).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime: Option<String>,
    /// Egress: what the sandbox may reach and what its requests get.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network: Option<Network>,
    /// `false`: nothing goes out but `network.allowOut` (snake case on E2B's wire too).
    #[serde(rename = "allow_internet_access", skip_serializing_if = "Option::is_none")]
    pub allow_internet_access: Option<bool>,
}

/// E2B's `SandboxNetworkConfig` as a create request sends it (the parts dsh sets).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Network {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub allow_out: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub deny_out: Vec<String>,
    /// Domain → its rules (E2B takes one per domain): `[{transform: {headers}}]`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub rules: BTreeMap<String, Vec<NetworkRule>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub egress_proxy: Option<EgressProxy>,
}

impl Network {
    /// `[sandbox.network]` in E2B's shape; `None` when it says nothing.
    pub fn from_config(config: &NetworkConfig) -> Option<Self> {
        let network = Self {
            allow_out: config.allow_out.clone(),
            deny_out: config.deny_out.clone(),
            rules: config
                .rules
                .iter()
                .map(|(domain, rule)| {
                    let transform = Transform { headers: Some(rule.headers.clone()) };
                    (domain.clone(), vec![NetworkRule { transform: Some(transform) }])
                })
                .collect(),
            egress_proxy: config.egress_proxy.as_ref().map(|proxy| EgressProxy {
                address: proxy.address.clone(),
                username: proxy.username.clone(),
                password: proxy.password.clone(),
            }),
        };
        (network != Self::default()).then_some(network)
    }
}

/// E2B's `SandboxNetworkRule`, `SandboxNetworkTransform` and `SandboxEgressProxyConfig`:
/// the wire's types, which the local daemon reads too.
pub use dsh_proto::control::{
    EgressProxyConfig as EgressProxy, NetworkRule, NetworkTransform as Transform,
};

/// A volume mounted into a new sandbox (E2B's `volumeMounts` entry).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct VolumeMount {
    pub name: String,
    pub path: String,
}

impl NewSandbox {
    pub fn from_template(template_id: impl Into<String>) -> Self {
        Self {
            template_id: template_id.into(),
            timeout: None,
            auto_pause: false,
            metadata: HashMap::new(),
            env_vars: HashMap::new(),
            secure: true,
            volume_mounts: Vec::new(),
            runtime: None,
            network: None,
            allow_internet_access: None,
        }
    }

    /// What `config` (`[sandbox]`) asks a create for: the template (`base` unless set),
    /// the timeout, pause or kill at it, and the network.
    pub fn from_config(config: &SandboxConfig) -> Self {
        let mut new =
            Self::from_template(config.template.clone().unwrap_or_else(|| "base".to_owned()));
        new.timeout = Some(config.timeout_secs);
        new.auto_pause = config.on_timeout == OnTimeout::Pause;
        new.network = Network::from_config(&config.network);
        new.allow_internet_access = config.network.allow_internet_access;
        new
    }
}

/// E2B's API refuses a timeout of 0 with 400 "Timeout must be greater than 0"
/// (packages/api/internal/handlers/timeout_helper.go, `validateAndParseTimeout`): refused
/// here first, saying which setting to change.
fn positive_timeout(timeout_secs: u32) -> Result<()> {
    if timeout_secs == 0 {
        return Err(Error::Invalid(
            "a sandbox's timeout must be greater than 0 seconds (E2B refuses 0): set timeout_secs"
                .into(),
        ));
    }
    Ok(())
}

/// Every byte but unreserved characters (RFC 3986) and `:`.
const ESCAPED_IN_SEGMENTS: &AsciiSet =
    &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~').remove(b':');

/// `text` as one path segment: names may hold `/` and `:`.
pub(crate) fn urlencoding_path(text: &str) -> String {
    utf8_percent_encode(text, ESCAPED_IN_SEGMENTS).to_string()
}

/// A client of one control plane.
#[derive(Debug, Clone)]
pub struct ControlPlane {
    http: reqwest::Client,
    api_url: String,
    api_key: String,
    timeout: Duration,
}

impl ControlPlane {
    pub fn new(
        http: reqwest::Client,
        api_url: impl Into<String>,
        api_key: impl Into<String>,
    ) -> Self {
        Self {
            http,
            api_url: api_url.into().trim_end_matches('/').to_owned(),
            api_key: api_key.into(),
            timeout: Duration::from_secs(60),
        }
    }

    pub fn api_url(&self) -> &str {
        &self.api_url
    }

    /// The HTTP client, for requests that must not carry the API key (signed links).
    pub(crate) fn http_client(&self) -> &reqwest::Client {
        &self.http
    }

    /// A request to `path` with the API key and the default timeout (callers may set
    /// another).
    pub(crate) fn request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.http
            .request(method, format!("{}{path}", self.api_url))
            .header(dsh_proto::control::headers::API_KEY, &self.api_key)
            .timeout(self.timeout)
    }

    pub(crate) async fn send(
        &self,
        request: reqwest::RequestBuilder,
    ) -> Result<(u16, bytes::Bytes)> {
        // Connection setup is retried as the SDKs do; nothing already sent is resent.
        let response = crate::connect::send(request).await?;
        let status = response.status().as_u16();
        Ok((status, response.bytes().await?))
    }

    pub(crate) fn parse<T: for<'de> Deserialize<'de>>(status: u16, body: &[u8]) -> Result<T> {
        if !(200..300).contains(&status) {
            return Err(http_error(status, body));
        }
        serde_json::from_slice(body)
            .map_err(|err| Error::Protocol(format!("unreadable control-plane answer: {err}")))
    }

    pub async fn create(&self, new: &NewSandbox) -> Result<SandboxInfo> {
        if let Some(timeout) = new.timeout {
            positive_timeout(timeout)?;
        }
        let (status, body) =
            self.send(self.request(reqwest::Method::POST, "/sandboxes").json(new)).await?;
        Self::parse(status, &body)
    }

    /// Connects to a sandbox, resuming it if paused, and sets its timeout.
    pub async fn connect(&self, sandbox_id: &str, timeout_secs: u32) -> Result<SandboxInfo> {
        positive_timeout(timeout_secs)?;
        let request = self
            .request(reqwest::Method::POST, &format!("/sandboxes/{sandbox_id}/connect"))
            .json(&serde_json::json!({ "timeout": timeout_secs }));
        let (status, body) = self.send(request).await?;
        Self::parse(status, &body)
    }

    pub async fn get(&self, sandbox_id: &str) -> Result<SandboxDetail> {
        let (status, body) = self
            .send(self.request(reqwest::Method::GET, &format!("/sandboxes/{sandbox_id}")))
            .await?;
        Self::parse(status, &body)
    }

    /// Running and paused sandboxes: every page (E2B answers at most 100 a page and the
    /// next page's token in `x-next-token`, as the SDKs' paginator reads it,
    /// `e2b/sandbox_async/paginator.py`).
    pub async fn list(&self) -> Result<Vec<SandboxDetail>> {
        self.list_paged(100).await
    }

    /// [`Self::list`] with pages of `limit` (1 to 100) sandboxes.
    pub async fn list_paged(&self, limit: u32) -> Result<Vec<SandboxDetail>> {
        let mut sandboxes = Vec::new();
        let mut next: Option<String> = None;
        loop {
            let mut query: Vec<(&str, String)> =
                vec![("state", "running,paused".into()), ("limit", limit.to_string())];
            if let Some(token) = &next {
                query.push(("nextToken", token.clone()));
            }
            let response = crate::connect::send(
                self.request(reqwest::Method::GET, "/v2/sandboxes").query(&query),
            )
            .await?;
            let status = response.status().as_u16();
            next = response
                .headers()
                .get("x-next-token")
                .and_then(|v| v.to_str().ok())
                .filter(|token| !token.is_empty())
                .map(str::to_owned);
            let body = response.bytes().await?;
            sandboxes.extend(Self::parse::<Vec<SandboxDetail>>(status, &body)?);
            if next.is_none() {
                return Ok(sandboxes);
            }
        }
    }

    /// The samples of a sandbox's resource use, oldest first (empty until the first is
    /// taken: E2B and dsh-sandboxd sample every 5 s).
    pub async fn metrics(&self, sandbox_id: &str) -> Result<Vec<SandboxMetric>> {
        let (status, body) = self
            .send(self.request(reqwest::Method::GET, &format!("/sandboxes/{sandbox_id}/metrics")))
            .await?;
        Self::parse(status, &body)
    }

    /// Kills a sandbox; `false` when it did not exist.
    pub async fn kill(&self, sandbox_id: &str) -> Result<bool> {
        self.delete(&format!("/sandboxes/{sandbox_id}")).await
    }

    /// `DELETE path`: `true` when something was deleted, `false` on a 404.
    pub(crate) async fn delete(&self, path: &str) -> Result<bool> {
        let (status, body) = self.send(self.request(reqwest::Method::DELETE, path)).await?;
        match status {
            200..=299 => Ok(true),
            404 => Ok(false),
            _ => Err(http_error(status, &body)),
        }
    }

    /// Pauses a sandbox; `false` when it was already paused. `keep_memory` (E2B's
    /// default): its processes are kept, frozen, and go on after resume; else they stop
    /// and only its files are kept (resume is a reboot).
    ///
    /// E2B answers 409 for two things (packages/api/internal/handlers/sandbox_pause.go):
    /// "Error pausing sandbox - sandbox '<id>' is already paused"
    /// (`pauseHandleNotRunningSandbox`) and "Sandbox '<id>' cannot be paused while in
    /// '<state>' state" (an `InvalidStateTransitionError`: being killed, snapshotted...).
    /// Only the first is `false`; the second is an error.
    pub async fn pause(&self, sandbox_id: &str, keep_memory: bool) -> Result<bool> {
        let request = self
            .request(reqwest::Method::POST, &format!("/sandboxes/{sandbox_id}/pause"))
            .json(&serde_json::json!({ "memory": keep_memory }));
        let (status, body) = self.send(request).await?;
        match status {
            200..=299 => Ok(true),
            409 => match http_error(status, &body) {
                Error::Http { message, .. } if message.ends_with("is already paused") => Ok(false),
                other => Err(other),
            },
            _ => Err(http_error(status, &body)),
        }
    }

    /// Forks a running sandbox `count` times (`POST /sandboxes/{id}/fork`): one result per
    /// fork, each a new sandbox with the parent's files and settings, or why it failed.
    pub async fn fork(
        &self,
        sandbox_id: &str,
        count: u32,
        timeout_secs: u32,
    ) -> Result<Vec<Result<SandboxInfo>>> {
        #[derive(Deserialize)]
        struct ForkResult {
            sandbox: Option<SandboxInfo>,
            error: Option<serde_json::Value>,
        }
        let request = self
            .request(reqwest::Method::POST, &format!("/sandboxes/{sandbox_id}/fork"))
            .json(&serde_json::json!({ "count": count, "timeout": timeout_secs }));
        let (status, body) = self.send(request).await?;
        let results: Vec<ForkResult> = Self::parse(status, &body)?;
        Ok(results
            .into_iter()
            .map(|result| match (result.sandbox, result.error) {
                (Some(sandbox), _) => Ok(sandbox),
                (None, error) => {
                    let error = error.unwrap_or_default();
                    let code = error["code"].as_u64().and_then(|c| u16::try_from(c).ok());
                    Err(http_error(code.unwrap_or(500), error.to_string().as_bytes()))
                }
            })
            .collect())
    }

    /// Keeps a sandbox's files as a snapshot (named `name`, or with a generated id) to
    /// create sandboxes from (`create` with the snapshot's id as the template).
    pub async fn create_snapshot(
        &self,
        sandbox_id: &str,
        name: Option<&str>,
    ) -> Result<SnapshotInfo> {
        let body = match name {
            Some(name) => serde_json::json!({ "name": name }),
            None => serde_json::json!({}),
        };
        let request = self
            .request(reqwest::Method::POST, &format!("/sandboxes/{sandbox_id}/snapshots"))
            .json(&body);
        let (status, body) = self.send(request).await?;
        Self::parse(status, &body)
    }

    /// Snapshots, newest first (of one sandbox, when `sandbox_id` is given); every page.
    pub async fn list_snapshots(&self, sandbox_id: Option<&str>) -> Result<Vec<SnapshotInfo>> {
        let mut snapshots = Vec::new();
        let mut next: Option<String> = None;
        loop {
            let mut query: Vec<(&str, String)> = vec![("limit", "100".into())];
            if let Some(id) = sandbox_id {
                query.push(("sandboxID", id.to_owned()));
            }
            if let Some(token) = &next {
                query.push(("nextToken", token.clone()));
            }
            // As `list_paged`: connection setup retried, an empty token is the last page.
            let response = crate::connect::send(
                self.request(reqwest::Method::GET, "/snapshots").query(&query),
            )
            .await?;
            let status = response.status().as_u16();
            next = response
                .headers()
                .get("x-next-token")
                .and_then(|v| v.to_str().ok())
                .filter(|token| !token.is_empty())
                .map(str::to_owned);
            let body = response.bytes().await?;
            snapshots.extend(Self::parse::<Vec<SnapshotInfo>>(status, &body)?);
            if next.is_none() {
                return Ok(snapshots);
            }
        }
    }

    /// Deletes a snapshot; `false` when there was none by that id or name.
    pub async fn delete_snapshot(&self, snapshot_id: &str) -> Result<bool> {
        self.delete(&format!("/templates/{}", urlencoding_path(snapshot_id))).await
    }

    pub async fn create_volume(&self, name: &str) -> Result<VolumeInfo> {
        let request = self
            .request(reqwest::Method::POST, "/volumes")
            .json(&serde_json::json!({ "name": name }));
        let (status, body) = self.send(request).await?;
        Self::parse(status, &body)
    }

    pub async fn list_volumes(&self) -> Result<Vec<VolumeInfo>> {
        let (status, body) = self.send(self.request(reqwest::Method::GET, "/volumes")).await?;
        Self::parse(status, &body)
    }

    /// Asks a local dsh-sandboxd to remove now what nothing uses any more (it does so by
    /// itself at start and when a template is deleted). E2B has no such call: a 404.
    pub async fn collect_garbage(&self) -> Result<Collected> {
        let (status, body) = self.send(self.request(reqwest::Method::POST, "/gc")).await?;
        Self::parse(status, &body)
    }

    /// Deletes a volume; `false` when there was none by that id.
    pub async fn delete_volume(&self, volume_id: &str) -> Result<bool> {
        self.delete(&format!("/volumes/{}", urlencoding_path(volume_id))).await
    }

    /// Stores a secret (`POST /secrets`, E2B's `NewSecret`): `value` travels in the body
    /// only, and no answer carries it back. The name is lower-cased by the server.
    pub async fn create_secret(&self, name: &str, value: &str) -> Result<SecretInfo> {
        let request = self
            .request(reqwest::Method::POST, "/secrets")
            .json(&serde_json::json!({ "name": name, "value": value }));
        let (status, body) = self.send(request).await?;
        Self::parse(status, &body)
    }

    /// Updates a secret's value by name (`POST /secrets/{name}` with `{value}`); `None`
    /// when there is no secret by that name.
    pub async fn update_secret(&self, name: &str, value: &str) -> Result<Option<SecretInfo>> {
        let request = self
            .request(reqwest::Method::POST, &format!("/secrets/{}", urlencoding_path(name)))
            .json(&serde_json::json!({ "value": value }));
        let (status, body) = self.send(request).await?;
        match status {
            404 => Ok(None),
            _ => Self::parse(status, &body).map(Some),
        }
    }

    /// Sets secret `name` to `value`: updated when it exists, else created (and, when
    /// another client created it meanwhile, updated after all).
    pub async fn put_secret(&self, name: &str, value: &str) -> Result<SecretInfo> {
        if let Some(updated) = self.update_secret(name, value).await? {
            return Ok(updated);
        }
        match self.create_secret(name, value).await {
            Err(Error::Http { status: 409, .. }) => {
                self.update_secret(name, value).await?.ok_or_else(|| {
                    Error::Protocol(format!(
                        "secret {name} was said to exist (409) and then not to (404)"
                    ))
                })
            }
            other => other,
        }
    }

    /// Every secret, oldest first: every page of `GET /secrets` (`X-Next-Token` when more,
    /// as the other lists).
    pub async fn list_secrets(&self) -> Result<Vec<SecretInfo>> {
        let mut secrets = Vec::new();
        let mut next: Option<String> = None;
        loop {
            let mut query: Vec<(&str, String)> = vec![("limit", "100".into())];
            if let Some(token) = &next {
                query.push(("nextToken", token.clone()));
            }
            let response =
                crate::connect::send(self.request(reqwest::Method::GET, "/secrets").query(&query))
                    .await?;
            let status = response.status().as_u16();
            next = response
                .headers()
                .get("x-next-token")
                .and_then(|v| v.to_str().ok())
                .filter(|token| !token.is_empty())
                .map(str::to_owned);
            let body = response.bytes().await?;
            secrets.extend(Self::parse::<Vec<SecretInfo>>(status, &body)?);
            if next.is_none() {
                return Ok(secrets);
            }
        }
    }

    /// Deletes a secret by name or id (`DELETE /secrets/{secretID}`); `false` when there
    /// was none.
    pub async fn delete_secret(&self, secret: &str) -> Result<bool> {
        self.delete(&format!("/secrets/{}", urlencoding_path(secret))).await
    }

    /// Sets the timeout to `timeout_secs` from now.
    pub async fn set_timeout(&self, sandbox_id: &str, timeout_secs: u32) -> Result<()> {
        positive_timeout(timeout_secs)?;
        let request = self
            .request(reqwest::Method::POST, &format!("/sandboxes/{sandbox_id}/timeout"))
            .json(&serde_json::json!({ "timeout": timeout_secs }));
        let (status, body) = self.send(request).await?;
        if (200..300).contains(&status) { Ok(()) } else { Err(http_error(status, &body)) }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::config::{EgressProxyConfig, RuleConfig};

    #[test]
    fn the_create_body_has_e2b_network_shape() {
        let mut config = SandboxConfig {
            template: Some("python".into()),
            timeout_secs: 120,
            on_timeout: OnTimeout::Pause,
            ..SandboxConfig::default()
        };
        // Nothing configured: no network, no allow_internet_access.
        assert_eq!(
            serde_json::to_value(NewSandbox::from_config(&config)).unwrap(),
            serde_json::json!({
                "templateID": "python",
                "timeout": 120,
                "autoPause": true,
                "secure": true,
            })
        );
        config.network.allow_out = vec!["api.github.com".into(), "198.51.100.7".into()];
        config.network.deny_out = vec!["0.0.0.0/0".into()];
        config.network.allow_internet_access = Some(false);
        config.network.rules.insert(
            "api.github.com".into(),
            RuleConfig {
                headers: BTreeMap::from([
                    ("Authorization".into(), "Bearer ${e2b.secrets.github}".into()),
                    ("X-Team".into(), "dsh".into()),
                ]),
            },
        );
        config.network.rules.insert("empty.example.test".into(), RuleConfig::default());
        config.network.egress_proxy = Some(EgressProxyConfig {
            address: "proxy.example.test:1080".into(),
            username: Some("dsh".into()),
            password: Some("pw".into()),
        });
        assert_eq!(
            serde_json::to_value(NewSandbox::from_config(&config)).unwrap(),
            serde_json::json!({
                "templateID": "python",
                "timeout": 120,
                "autoPause": true,
                "secure": true,
                "network": {
                    "allowOut": ["api.github.com", "198.51.100.7"],
                    "denyOut": ["0.0.0.0/0"],
                    "rules": {
                        "api.github.com": [{"transform": {"headers": {
                            "Authorization": "Bearer ${e2b.secrets.github}",
                            "X-Team": "dsh",
                        }}}],
                        "empty.example.test": [{"transform": {"headers": {}}}],
                    },
                    "egressProxy": {
                        "address": "proxy.example.test:1080",
                        "username": "dsh",
                        "password": "pw",
                    },
                },
                "allow_internet_access": false,
            })
        );
        // Only a proxy, without credentials; allow_internet_access alone has no network.
        let mut config = SandboxConfig::default();
        config.network.egress_proxy =
            Some(EgressProxyConfig { address: "10.0.0.1:1080".into(), ..Default::default() });
        assert_eq!(
            serde_json::to_value(NewSandbox::from_config(&config)).unwrap(),
            serde_json::json!({
                "templateID": "base",
                "timeout": 300,
                "autoPause": false,
                "secure": true,
                "network": {"egressProxy": {"address": "10.0.0.1:1080"}},
            })
        );
        let mut config = SandboxConfig::default();
        config.network.allow_internet_access = Some(true);
        let body = serde_json::to_value(NewSandbox::from_config(&config)).unwrap();
        assert_eq!(
            (body.get("network"), &body["allow_internet_access"]),
            (None, &serde_json::json!(true))
        );
        // The proxy's password stays out of debug prints.
        let printed = format!(
            "{:?}",
            Network::from_config(
                &SandboxConfig {
                    network: NetworkConfig {
                        egress_proxy: Some(EgressProxyConfig {
                            address: "p:1".into(),
                            username: Some("u".into()),
                            password: Some("hush".into())
                        }),
                        ..Default::default()
                    },
                    ..SandboxConfig::default()
                }
                .network
            )
        );
        assert!(!printed.contains("hush") && printed.contains("<hidden>"), "{printed}");
    }

    #[test]
    fn a_path_segment_escapes_all_but_unreserved_characters_and_colons() {
        // Spaces, `%`, non-ASCII (UTF-8 bytes, upper-case escapes) and reserved characters
        // (`/` too: a name is one segment) are escaped; unreserved characters and `:` kept.
        assert_eq!(
            urlencoding_path("a b/100%/é/:@!$&'()*+,;=?#[]|^{}\\\"<>`/A-z0_9.~"),
            "a%20b%2F100%25%2F%C3%A9%2F:%40%21%24%26%27%28%29%2A%2B%2C%3B%3D%3F%23%5B%5D\
             %7C%5E%7B%7D%5C%22%3C%3E%60%2FA-z0_9.~"
        );
    }
}
