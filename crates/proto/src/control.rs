//! E2B's control-plane wire: the REST API `dsh-sandboxd` serves and `dsh-e2b` calls
//! (E2B's own `spec/openapi.yml`, and dsh's extensions, each marked). One type per answer,
//! shared by the server (which serializes it) and the client (which reads E2B's cloud and
//! dsh's daemon alike: what E2B's cloud may leave out has a default).
//!
//! Field order is the JSON's: keys in byte order, as the daemon has always answered
//! (its golden tests, `crates/sandboxd/tests/control/golden/`, pin every byte).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Header names of the control plane and of the routes to a sandbox's ports.
pub mod headers {
    /// The API key of `/sandboxes`, `/templates`, ... (never sent into a sandbox).
    pub const API_KEY: &str = "x-api-key";
    /// envd's access token, on requests to a sandbox's envd.
    pub const ACCESS_TOKEN: &str = "x-access-token";
    /// Which sandbox a request through the edge is for (else its Host names it).
    pub const SANDBOX_ID: &str = "e2b-sandbox-id";
    /// Which port of that sandbox (envd's when absent).
    pub const SANDBOX_PORT: &str = "e2b-sandbox-port";
    /// The token a sandbox created with restricted public traffic asks of its ports.
    pub const TRAFFIC_ACCESS_TOKEN: &str = "e2b-traffic-access-token";
}

/// An error answer: `{"code": <status>, "message": "..."}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorBody {
    pub code: u16,
    pub message: String,
}

/// `GET /health`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Health {
    pub status: String,
}

/// A sandbox as create, connect, resume and fork answer it (E2B's `Sandbox`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Sandbox {
    /// The name of the template it was made from, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alias: Option<String>,
    #[serde(rename = "clientID", default)]
    pub client_id: String,
    #[serde(default)]
    pub domain: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub envd_access_token: Option<String>,
    pub envd_version: String,
    /// dsh extension: the isolation level (`strict` or `namespaces`); E2B's cloud sends
    /// none (its sandboxes are microVMs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub isolation: Option<String>,
    #[serde(rename = "sandboxID")]
    pub sandbox_id: String,
    #[serde(rename = "templateID")]
    pub template_id: String,
    /// What E2B's edge asks for on the sandbox's ports when it was created with
    /// restricted public traffic (`secure: false` here).
    #[serde(default)]
    pub traffic_access_token: Option<String>,
}

/// A sandbox as `GET /sandboxes` and `GET /v2/sandboxes` list it (E2B's `ListedSandbox`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListedSandbox {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alias: Option<String>,
    #[serde(rename = "clientID", default)]
    pub client_id: String,
    #[serde(default)]
    pub cpu_count: u64,
    #[serde(rename = "diskSizeMB", default)]
    pub disk_size_mb: u64,
    #[serde(default)]
    pub end_at: Option<String>,
    #[serde(default)]
    pub envd_version: String,
    /// See [`Sandbox::isolation`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub isolation: Option<String>,
    #[serde(rename = "memoryMB", default)]
    pub memory_mb: u64,
    #[serde(default)]
    pub metadata: BTreeMap<String, String>,
    #[serde(rename = "sandboxID")]
    pub sandbox_id: String,
    #[serde(default)]
    pub started_at: Option<String>,
    /// `running` or `paused`.
    pub state: String,
    #[serde(rename = "templateID")]
    pub template_id: String,
}

/// E2B's `SandboxNetworkConfig` as `GET /sandboxes/{id}` answers it: the egress proxy
/// without its password.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SandboxNetworkConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_out: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_public_traffic: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deny_out: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub egress_proxy: Option<EgressProxyShown>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mask_request_host: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<BTreeMap<String, Vec<NetworkRule>>>,
}

/// E2B's `SandboxNetworkRule`: what one rule of a domain does.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetworkRule {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transform: Option<NetworkTransform>,
}

/// E2B's `SandboxNetworkTransform`: headers set on matching requests (values as given:
/// a secret is named, `${e2b.secrets.NAME}`, never its value).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetworkTransform {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<BTreeMap<String, String>>,
}

/// E2B's `SandboxEgressProxyConfig` as a create or `PUT .../network` sends it: the
/// password's value is never printed (`Debug`).
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EgressProxyConfig {
    /// `host:port`.
    pub address: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub username: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password: Option<String>,
}

impl std::fmt::Debug for EgressProxyConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EgressProxy")
            .field("address", &self.address)
            .field("username", &self.username)
            .field("password", &self.password.as_ref().map(|_| "<hidden>"))
            .finish()
    }
}

/// E2B's `SandboxEgressProxyConfig` as answered: no password.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EgressProxyShown {
    pub address: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub username: Option<String>,
}

/// One sandbox as `GET /sandboxes/{id}` answers (E2B's `SandboxDetail`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SandboxDetail {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alias: Option<String>,
    #[serde(rename = "clientID", default)]
    pub client_id: String,
    #[serde(default)]
    pub cpu_count: u64,
    #[serde(rename = "diskSizeMB", default)]
    pub disk_size_mb: u64,
    #[serde(default)]
    pub domain: Option<String>,
    #[serde(default)]
    pub end_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub envd_access_token: Option<String>,
    #[serde(default)]
    pub envd_version: String,
    /// See [`Sandbox::isolation`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub isolation: Option<String>,
    #[serde(rename = "memoryMB", default)]
    pub memory_mb: u64,
    #[serde(default)]
    pub metadata: BTreeMap<String, String>,
    /// The network settings the create (or `PUT .../network`) gave, as E2B answers them
    /// (its packages/api/internal/handlers/sandbox_get.go l. 34-90): absent when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<SandboxNetworkConfig>,
    /// dsh extension, of a paused sandbox: what it keeps of its memory (`disk`: a gVisor
    /// checkpoint that outlives the daemon; `frozen`: lost if the daemon stops; `none`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paused_memory: Option<String>,
    /// dsh extension: what runs it (`native` or `gvisor`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<String>,
    #[serde(rename = "sandboxID")]
    pub sandbox_id: String,
    #[serde(default)]
    pub started_at: Option<String>,
    /// `running` or `paused`.
    pub state: String,
    #[serde(rename = "templateID")]
    pub template_id: String,
}

/// One entry of a fork's answer: the new sandbox, or why it could not be made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ForkEntry {
    Sandbox(Sandbox),
    Error(ErrorBody),
}

/// A template by name or id (`GET /templates/aliases/{alias}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TemplateAlias {
    pub public: bool,
    #[serde(rename = "templateID")]
    pub template_id: String,
}

/// A snapshot: its id (what a create takes as its template) and names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    #[serde(default)]
    pub names: Vec<String>,
    #[serde(rename = "snapshotID")]
    pub snapshot_id: String,
}

/// A volume (E2B's `Volume`, and `VolumeAndToken` with its token).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Volume {
    pub name: String,
    /// dsh extension: its size in MiB (none for a volume kept without one).
    #[serde(rename = "sizeMB", default, skip_serializing_if = "Option::is_none")]
    pub size_mb: Option<u64>,
    /// The volume content API's token (created and fetched volumes only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    #[serde(rename = "volumeID")]
    pub volume_id: String,
}

/// A secret as `/secrets` answers it (E2B's `Secret`, spec/openapi.yml `Secret`): its
/// metadata only, never its value. Keys in byte order, as E2B's server sends them (its
/// generated struct, packages/api/internal/api/api.gen.go:1090-1108, marshals them so).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Secret {
    /// RFC 3339, UTC.
    pub created_at: String,
    /// The version readers get; 1 at create, one more at each update.
    pub current_version: i64,
    /// Always present, `{}` when unset.
    #[serde(default)]
    pub metadata: BTreeMap<String, String>,
    /// The canonical (lower-case) name.
    pub name: String,
    /// `sec_` and 26 characters (E2B's TypeID of a UUIDv7).
    #[serde(rename = "secretID")]
    pub secret_id: String,
    /// RFC 3339, UTC.
    pub updated_at: String,
}

/// A template as `GET /templates` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Template {
    #[serde(default)]
    pub aliases: Vec<String>,
    #[serde(default)]
    pub build_count: u64,
    #[serde(rename = "buildID", default)]
    pub build_id: Option<String>,
    #[serde(default)]
    pub build_status: Option<String>,
    #[serde(default)]
    pub cpu_count: u64,
    #[serde(default)]
    pub created_at: Option<String>,
    #[serde(default)]
    pub created_by: Option<String>,
    #[serde(rename = "diskSizeMB", default)]
    pub disk_size_mb: u64,
    #[serde(default)]
    pub envd_version: String,
    #[serde(default)]
    pub last_spawned_at: Option<String>,
    #[serde(rename = "memoryMB", default)]
    pub memory_mb: u64,
    #[serde(default)]
    pub names: Vec<String>,
    #[serde(default)]
    pub public: bool,
    /// dsh extension: the runtime its sandboxes get unless their create names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<String>,
    #[serde(default)]
    pub spawn_count: u64,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(rename = "templateID")]
    pub template_id: String,
    #[serde(default)]
    pub updated_at: Option<String>,
}

/// The answer to a build request (`POST /v3/templates`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BuildRequested {
    #[serde(default)]
    pub aliases: Vec<String>,
    #[serde(rename = "buildID")]
    pub build_id: String,
    #[serde(default)]
    pub names: Vec<String>,
    #[serde(default)]
    pub public: bool,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(rename = "templateID")]
    pub template_id: String,
}

/// Where to upload a `COPY` step's files, unless the daemon has them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UploadLink {
    pub present: bool,
    #[serde(default)]
    pub url: Option<String>,
}

/// One line of a build's log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuildLogEntry {
    pub level: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    pub timestamp: String,
}

/// Why a build failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BuildReason {
    #[serde(default)]
    pub log_entries: Vec<BuildLogEntry>,
    pub message: String,
    #[serde(default)]
    pub step: Option<String>,
}

/// A build's status and a page of its log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BuildStatus {
    #[serde(rename = "buildID")]
    pub build_id: String,
    #[serde(default)]
    pub log_entries: Vec<BuildLogEntry>,
    #[serde(default)]
    pub logs: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<BuildReason>,
    /// `waiting`, `building`, `ready` or `error`.
    pub status: String,
    #[serde(rename = "templateID")]
    pub template_id: String,
}

/// A tag of a template and the build it names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TemplateTag {
    #[serde(rename = "buildID")]
    pub build_id: String,
    pub created_at: String,
    pub tag: String,
}

/// The answer to `POST /templates/tags`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TagsAssigned {
    #[serde(rename = "buildID")]
    pub build_id: String,
    pub tags: Vec<String>,
}

/// What a local daemon's garbage collection removed (`POST /gc`, dsh's own). Its keys are
/// in this order, not sorted (as the daemon has answered from the start).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Collected {
    /// Step cache entries of template builds (their keys).
    pub cache_entries: Vec<String>,
    /// Uploaded `COPY` archives (their files hashes).
    pub uploads: Vec<String>,
    /// Images pulled for builds `fromImage` (their manifest digests).
    pub images: Vec<String>,
}

/// One sample of a sandbox's resource use (`GET /sandboxes/{id}/metrics`, E2B's
/// `SandboxMetric`). Its keys are in this order, not sorted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SandboxMetric {
    #[serde(default)]
    pub timestamp: String,
    pub timestamp_unix: u64,
    pub cpu_count: u64,
    /// Of the sandbox's CPUs (100 = all of `cpu_count` busy).
    pub cpu_used_pct: f64,
    /// Bytes.
    pub mem_used: u64,
    /// Bytes: the sandbox's memory limit.
    pub mem_total: u64,
    #[serde(default)]
    pub mem_cache: u64,
    #[serde(default)]
    pub disk_used: u64,
    #[serde(default)]
    pub disk_total: u64,
}

/// A port of a sandbox that nothing listens on (E2B's edge answers 502 with this).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PortClosed {
    pub code: u16,
    pub message: String,
    pub port: u16,
    pub sandbox_id: String,
}

/// An entry of a volume, as its content API answers (E2B's `VolumeEntryStat`): times in
/// RFC 3339, owners as a sandbox sees them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VolumeEntry {
    pub atime: String,
    pub ctime: String,
    pub gid: u32,
    pub mode: u32,
    pub mtime: String,
    pub name: String,
    pub path: String,
    pub size: i64,
    /// A symlink's target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// `file`, `directory`, `symlink` or `unknown`.
    #[serde(rename = "type")]
    pub kind: String,
    pub uid: u32,
}

/// A read-only layer as a local daemon lists it (dsh's layer API, `GET /layers`). `path`
/// and `bin` are paths inside every sandbox of that daemon, not on the host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Layer {
    /// Its programs (`<path>/node_modules/.bin` for npm layers).
    pub bin: std::path::PathBuf,
    /// How long its build took.
    #[serde(default)]
    pub build_ms: u64,
    pub bytes: u64,
    pub files: u64,
    /// `sha256-<64 hex>`: the digest of what the layer holds.
    #[serde(rename = "layerID")]
    pub layer_id: String,
    /// The layer's root in the sandbox (read-only).
    pub path: std::path::PathBuf,
    /// What it was built from (listings carry it; a provide answer does not).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recipe: Option<LayerRecipe>,
}

/// What a layer is built from.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LayerRecipe {
    /// npm package specs, `name@exact-version`.
    #[serde(default)]
    pub npm: Vec<String>,
}
