//! The REST handlers (E2B's control-plane API, the subset the SDKs use for sandboxes).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, Query, Request, State};
use axum::http::{HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use dsh_proto::control as wire;
use serde::Deserialize;
use serde_json::Value;

use crate::server::context::Control;
use crate::server::files::{now_ms, random_hex, rfc3339};
use crate::server::header_rules::{EgressProxy, Rules, checked_proxy};
use crate::server::network::Egress;
use crate::server::pool;
use crate::server::record::{NetworkSettings, Phase, Record, VolumeMountRecord};
use crate::server::slot::Slot;
use crate::server::{
    ApiError, CLIENT_ID, DEFAULT_TIMEOUT_SECS, ENVD_VERSION, MAX_TIMEOUT_SECS, fork, lifecycle,
    proxy, snapshots, volumes,
};

use crate::server::api_body::{
    ApiResult, JsonBody, check_limits, constant_time_eq, detached, parse_body, runtime_for,
};
type S = State<Arc<Control>>;

pub(crate) fn router(shared: Arc<Control>) -> Router {
    let control = Router::new()
        .route("/sandboxes", get(list_v1).post(create))
        .route("/v2/sandboxes", get(list_v2).post(create))
        .route("/sandboxes/{id}", get(get_one).delete(kill))
        .route("/sandboxes/{id}/pause", post(pause))
        .route("/sandboxes/{id}/fork", post(fork))
        .route("/sandboxes/{id}/snapshots", post(take_snapshot))
        .route("/snapshots", get(list_snapshots))
        .route("/templates/{id}", axum::routing::delete(delete_template))
        .route("/volumes", get(list_volumes).post(create_volume))
        .route("/volumes/{id}", get(get_volume).delete(delete_volume))
        .route("/secrets", crate::server::secrets_api::collection())
        .route("/secrets/{id}", crate::server::secrets_api::one())
        .route("/sandboxes/{id}/resume", post(resume))
        .route("/sandboxes/{id}/connect", post(connect))
        .route("/v2/sandboxes/{id}/connect", post(connect))
        .route("/sandboxes/{id}/timeout", post(set_timeout))
        .route("/sandboxes/{id}/network", axum::routing::put(update_network))
        .route("/sandboxes/{id}/metrics", get(metrics))
        .route("/templates/aliases/{alias}", get(template_alias))
        .route("/layers", get(list_layers).post(provide_layer))
        .merge(crate::server::template_api::router())
        .route_layer(middleware::from_fn_with_state(shared.clone(), auth));
    Router::new()
        .merge(control)
        .merge(crate::server::template_api::uploads())
        .merge(crate::server::volume_content::router())
        .fallback(fallback)
        .with_state(shared)
}

async fn auth(State(shared): S, request: Request, next: Next) -> Response {
    match request.headers().get(dsh_proto::control::headers::API_KEY) {
        Some(key) if constant_time_eq(key.as_bytes(), shared.api_key.as_bytes()) => {
            next.run(request).await
        }
        Some(_) => ApiError::new(StatusCode::UNAUTHORIZED, "invalid API key").response(),
        None => ApiError::new(
            StatusCode::UNAUTHORIZED,
            "missing API key: send it in the X-API-Key header",
        )
        .response(),
    }
}

/// Everything that is not a control-plane route: envd traffic for a sandbox, the
/// daemon's own health check, or 404.
async fn fallback(State(shared): S, request: Request) -> Response {
    let target = match proxy::target(request.headers(), request.uri()) {
        Ok(target) => target,
        Err(message) => return ApiError::bad_request(message).response(),
    };
    if let Some(target) = target.or_else(|| {
        let id = proxy::signed_files_target(&shared, request.method(), request.uri())?;
        Some(proxy::Target { id, port: proxy::ENVD_PORT })
    }) {
        // A paused sandbox created with autoResume wakes on traffic, as on E2B.
        let asleep = shared.slot(&target.id).is_some_and(|slot| {
            let inner = slot.lock();
            inner.record.phase == Phase::Paused && inner.record.auto_resume && !inner.gone
        });
        if asleep {
            let resumed = resume_or_extend(
                shared.clone(),
                target.id.clone(),
                DEFAULT_TIMEOUT_SECS,
                None,
                true,
            )
            .await;
            if let Err(e) = resumed {
                tracing::warn!(sandbox = %target.id, error = %e.message, "auto-resume failed");
            }
        }
        return proxy::forward(&shared, &target, request).await;
    }
    if request.uri().path() == "/health" {
        let health = wire::Health { status: "ok".to_owned() };
        return (StatusCode::OK, axum::Json(health)).into_response();
    }
    ApiError::new(
        StatusCode::NOT_FOUND,
        format!("no route for {} {}", request.method(), request.uri().path()),
    )
    .response()
}

/// Parses and checks a control-plane request body the way its route does, with no
/// effect: the fuzzing entry point (and a way to test validation without a daemon).
/// `route` is `"POST /sandboxes"`, `"POST /sandboxes/{id}/timeout"`, `.../connect`,
/// `.../resume`, `"PUT /sandboxes/{id}/network"` or `"POST /layers"`. `Err` holds the
/// status and message the daemon would answer.
pub fn check_body(
    route: &str,
    content_type: Option<&str>,
    body: &[u8],
) -> Result<(), (u16, String)> {
    let checked = match route {
        "POST /sandboxes" | "POST /v2/sandboxes" => {
            let body: CreateBody = parse_body(content_type, body).map_err(into_pair)?;
            new_record(&crate::template::Templates::builtin(), None, body).map(drop)
        }
        "POST /sandboxes/{id}/connect" | "POST /sandboxes/{id}/resume" => {
            parse_body::<TimeoutBody>(content_type, body)
                .and_then(|b| timeout_secs(b.timeout).map(drop))
        }
        "POST /sandboxes/{id}/timeout" => parse_body::<TimeoutBody>(content_type, body)
            .and_then(|b| required_timeout(b.timeout).map(drop)),
        "PUT /sandboxes/{id}/network" => {
            parse_body::<NetworkUpdate>(content_type, body).and_then(|b| {
                let access = b.allow_internet_access;
                egress(b.allow_out, b.deny_out, b.rules, b.egress_proxy, access).map(drop)
            })
        }
        "POST /layers" => parse_body::<crate::server::layers::Recipe>(content_type, body)
            .and_then(|recipe| recipe.validate().map_err(ApiError::bad_request)),
        other => return Err((404, format!("no route {other}"))),
    };
    checked.map_err(into_pair)
}

fn into_pair(error: ApiError) -> (u16, String) {
    (error.status.as_u16(), error.message)
}

fn required_timeout(timeout: Option<i64>) -> ApiResult<u64> {
    match timeout {
        Some(timeout) => timeout_secs(Some(timeout)),
        None => Err(ApiError::bad_request("timeout is required")),
    }
}

/// Entries of `metadata` at most, and bytes of its keys and values together.
const MAX_METADATA_ENTRIES: usize = 64;
const MAX_METADATA_BYTES: usize = 16 * 1024;

/// `envVars` become a process environment in the sandbox: a NUL anywhere, or `=` (or
/// nothing) in a name, cannot be one, and would break every later command.
fn check_env_vars(env_vars: &BTreeMap<String, String>) -> ApiResult<()> {
    for (name, value) in env_vars {
        if name.is_empty() || name.contains(['=', '\0']) {
            return Err(ApiError::bad_request(format!(
                "envVars: {name:?} is not a variable name (it must be non-empty, without '=' or NUL)"
            )));
        }
        if value.contains('\0') {
            return Err(ApiError::bad_request(format!(
                "envVars: the value of {name} contains a NUL byte"
            )));
        }
    }
    Ok(())
}

fn check_metadata(metadata: &BTreeMap<String, String>) -> ApiResult<()> {
    let bytes: usize = metadata.iter().map(|(k, v)| k.len() + v.len()).sum();
    if metadata.len() > MAX_METADATA_ENTRIES || bytes > MAX_METADATA_BYTES {
        return Err(ApiError::bad_request(format!(
            "metadata: {} entries, {bytes} bytes; at most {MAX_METADATA_ENTRIES} entries and {MAX_METADATA_BYTES} bytes",
            metadata.len()
        )));
    }
    Ok(())
}

fn timeout_secs(timeout: Option<i64>) -> ApiResult<u64> {
    match timeout {
        None => Ok(DEFAULT_TIMEOUT_SECS),
        Some(t) if (0..=MAX_TIMEOUT_SECS as i64).contains(&t) => Ok(t as u64),
        Some(t) => Err(ApiError::bad_request(format!(
            "timeout must be between 0 and {MAX_TIMEOUT_SECS} seconds, got {t}"
        ))),
    }
}

fn sandbox_of(shared: &Control, record: &Record) -> wire::Sandbox {
    wire::Sandbox {
        alias: record.alias.clone(),
        client_id: CLIENT_ID.to_owned(),
        domain: shared.config.domain.clone(),
        envd_access_token: record.envd_access_token.clone(),
        envd_version: ENVD_VERSION.to_owned(),
        isolation: Some(isolation_name(record).to_owned()),
        sandbox_id: record.sandbox_id.clone(),
        template_id: template_id(record).to_owned(),
        traffic_access_token: record.network.traffic_access_token.clone(),
    }
}

/// The template a sandbox reports: the built template it was made from, else the
/// daemon's own.
fn template_id(record: &Record) -> &str {
    record.startup.as_ref().map_or(record.template_id.as_str(), |s| s.template_id.as_str())
}

/// E2B's egress fields, checked (the create request's and `PUT .../network`'s alike).
fn egress(
    allow_out: Option<Vec<String>>,
    deny_out: Option<Vec<String>>,
    rules: Option<Rules>,
    egress_proxy: Option<EgressProxy>,
    allow_internet_access: Option<bool>,
) -> ApiResult<Egress> {
    let proxy = egress_proxy
        .map(|proxy| checked_proxy(&proxy))
        .transpose()
        .map_err(ApiError::bad_request)?;
    let egress = Egress {
        allow_out: allow_out.unwrap_or_default(),
        deny_out: deny_out.unwrap_or_default(),
        internet_denied: allow_internet_access == Some(false),
        rules: rules.unwrap_or_default(),
        egress_proxy: proxy,
    };
    egress.validate().map_err(ApiError::bad_request)?;
    Ok(egress)
}

/// What this daemon can do of `egress`: header rules and a proxy act on a private
/// network's egress path only; rules need the daemon's CA.
fn check_egress_support(shared: &Control, egress: &Egress) -> ApiResult<()> {
    let needs_path = !egress.rules.is_empty() || egress.egress_proxy.is_some();
    if needs_path && shared.config.net != crate::spec::Net::Private {
        return Err(ApiError::bad_request(format!(
            "network.rules and network.egressProxy need private sandbox networks; this daemon gives sandboxes net = {:?}",
            shared.config.net
        )));
    }
    if !egress.rules.is_empty() && shared.interception.is_none() {
        return Err(ApiError::bad_request(
            "network.rules: this daemon has no egress CA (its log says why it could not make one)",
        ));
    }
    // A secret named now must exist now (one deleted later makes the requests that need
    // it fail, with an answer that names it).
    for rule in egress.header_rules() {
        for (header, parts) in &rule.headers {
            let named = parts.iter().filter_map(|part| match part {
                crate::server::header_rules::ValuePart::Secret(name) => Some(name),
                crate::server::header_rules::ValuePart::Text(_) => None,
            });
            for secret in named {
                if shared.secrets.resolve(secret).is_none() {
                    return Err(ApiError::bad_request(format!(
                        "Header {header:?} in rule for domain {:?} names secret {secret:?}, which does not exist (POST /secrets makes it).",
                        rule.domain.to_string()
                    )));
                }
            }
        }
    }
    Ok(())
}

fn network_settings(
    body: NetworkBody,
    allow_internet_access: Option<bool>,
) -> ApiResult<NetworkSettings> {
    let egress = egress(
        body.allow_out,
        body.deny_out,
        body.rules,
        body.egress_proxy,
        allow_internet_access,
    )?;
    if let Some(mask) = &body.mask_request_host
        && (mask.is_empty()
            || mask.len() > 253
            || mask.chars().any(|c| c.is_whitespace() || c.is_control()))
    {
        return Err(ApiError::bad_request(format!("invalid maskRequestHost {mask:?}")));
    }
    Ok(NetworkSettings {
        traffic_access_token: (body.allow_public_traffic == Some(false)).then(|| random_hex(32)),
        mask_request_host: body.mask_request_host,
        egress,
    })
}

/// dsh extension: the isolation level the sandbox got (`strict` or `namespaces`).
fn isolation_name(record: &Record) -> &'static str {
    record.isolation.map_or("namespaces", |isolation| isolation.name())
}

fn state_name(phase: Phase) -> &'static str {
    match phase {
        Phase::Paused => "paused",
        Phase::Running | Phase::Creating => "running",
    }
}

fn listed_of(shared: &Control, record: &Record) -> wire::ListedSandbox {
    wire::ListedSandbox {
        alias: record.alias.clone(),
        client_id: CLIENT_ID.to_owned(),
        cpu_count: record.cpu_count.unwrap_or(shared.config.defaults.cpu_count),
        disk_size_mb: shared.disk.sandbox_mb(),
        end_at: Some(rfc3339(record.end_at_ms)),
        envd_version: ENVD_VERSION.to_owned(),
        isolation: Some(isolation_name(record).to_owned()),
        memory_mb: record.memory_mb.unwrap_or(shared.config.defaults.memory_mb),
        metadata: record.metadata.clone(),
        sandbox_id: record.sandbox_id.clone(),
        started_at: Some(rfc3339(record.started_at_ms)),
        state: state_name(record.phase).to_owned(),
        template_id: template_id(record).to_owned(),
    }
}

/// `GET /sandboxes/{id}`: what the list says, its domain and token, and (dsh's) what runs
/// it and what a paused one keeps of its memory.
fn detail_of(shared: &Control, record: &Record, frozen: bool) -> wire::SandboxDetail {
    let listed = listed_of(shared, record);
    wire::SandboxDetail {
        alias: listed.alias,
        client_id: listed.client_id,
        cpu_count: listed.cpu_count,
        disk_size_mb: listed.disk_size_mb,
        domain: shared.config.domain.clone(),
        end_at: listed.end_at,
        envd_access_token: record.envd_access_token.clone(),
        envd_version: listed.envd_version,
        isolation: listed.isolation,
        memory_mb: listed.memory_mb,
        metadata: listed.metadata,
        paused_memory: (record.phase == Phase::Paused)
            .then(|| paused_memory(record, frozen).to_owned()),
        runtime: Some(record.runtime.to_string()),
        sandbox_id: listed.sandbox_id,
        started_at: listed.started_at,
        state: listed.state,
        template_id: listed.template_id,
        network: network_shown(&record.network),
    }
}

/// The network settings as E2B answers them (sandbox_get.go l. 34-90): what was given,
/// the proxy without its password; none when nothing was given.
fn network_shown(network: &NetworkSettings) -> Option<wire::SandboxNetworkConfig> {
    let egress = &network.egress;
    let shown = wire::SandboxNetworkConfig {
        allow_out: (!egress.allow_out.is_empty()).then(|| egress.allow_out.clone()),
        allow_public_traffic: network.traffic_access_token.as_ref().map(|_| false),
        deny_out: (!egress.deny_out.is_empty()).then(|| egress.deny_out.clone()),
        egress_proxy: egress.egress_proxy.as_ref().map(|proxy| wire::EgressProxyShown {
            address: proxy.address.clone(),
            username: proxy.username.clone(),
        }),
        mask_request_host: network.mask_request_host.clone(),
        rules: (!egress.rules.is_empty()).then(|| egress.rules.clone()),
    };
    (shown != wire::SandboxNetworkConfig::default()).then_some(shown)
}

/// The slot of a sandbox that exists (created, not killed).
fn existing(shared: &Control, id: &str) -> ApiResult<Arc<Slot>> {
    shared
        .slot(id)
        .filter(|slot| {
            let inner = slot.lock();
            !inner.gone && inner.record.phase != Phase::Creating
        })
        .ok_or_else(|| ApiError::not_found(id))
}

fn save(shared: &Control, slot: &Slot) -> ApiResult<Record> {
    let record = slot.record();
    shared.store.save(&record).map_err(|e| ApiError::internal(&e.into()))?;
    Ok(record)
}

/// [`save`] without waiting for the disk (`Store::save_unsynced`): a create's records
/// and a moved deadline.
fn save_unsynced(shared: &Control, slot: &Slot) -> ApiResult<Record> {
    let record = slot.record();
    shared.store.save_unsynced(&record).map_err(|e| ApiError::internal(&e.into()))?;
    Ok(record)
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CreateBody {
    #[serde(rename = "templateID")]
    template_id: Option<String>,
    timeout: Option<i64>,
    auto_pause: Option<bool>,
    auto_pause_memory: Option<bool>,
    secure: Option<bool>,
    metadata: Option<BTreeMap<String, String>>,
    env_vars: Option<BTreeMap<String, String>>,
    /// dsh extension (E2B sets these per template): the sandbox's CPU bandwidth in
    /// whole CPUs and its memory limit.
    cpu_count: Option<u64>,
    #[serde(rename = "memoryMB")]
    memory_mb: Option<u64>,
    network: Option<NetworkBody>,
    /// Snake case on E2B's wire too.
    #[serde(rename = "allow_internet_access")]
    allow_internet_access: Option<bool>,
    auto_resume: Option<AutoResume>,
    volume_mounts: Option<Vec<VolumeMountBody>>,
    /// dsh extension: `native` (this daemon's launcher) or `gvisor` (gVisor's runsc);
    /// the daemon's default when absent.
    runtime: Option<String>,
}

/// One of the create request's `volumeMounts`: a volume by name, and where inside.
#[derive(Debug, Default, Deserialize)]
struct VolumeMountBody {
    name: String,
    path: String,
}

/// The create request's volume mounts, each volume found by name and each path checked
/// (`template_paths`: what the template shows from the host).
fn volume_mounts(
    shared: &Control,
    mounts: Vec<VolumeMountBody>,
    template_paths: &[std::path::PathBuf],
) -> ApiResult<Vec<VolumeMountRecord>> {
    let mut resolved: Vec<VolumeMountRecord> = Vec::new();
    for mount in mounts {
        let volume = volumes::by_name(&shared.store, &mount.name).ok_or_else(|| {
            ApiError::bad_request(format!("volumeMounts: volume '{}' not found", mount.name))
        })?;
        crate::spec::validate_volume_path(std::path::Path::new(&mount.path), template_paths)
            .map_err(|e| ApiError::bad_request(format!("volumeMounts: {e}")))?;
        if resolved.iter().any(|r| r.path == mount.path) {
            return Err(ApiError::bad_request(format!(
                "volumeMounts: two volumes at {}",
                mount.path
            )));
        }
        resolved.push(VolumeMountRecord {
            volume_id: volume.volume_id,
            name: volume.name,
            path: mount.path,
        });
    }
    Ok(resolved)
}

#[derive(Debug, Default, Deserialize)]
struct AutoResume {
    #[serde(default)]
    enabled: bool,
}

/// The parts of E2B's `network` the daemon acts on.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct NetworkBody {
    allow_public_traffic: Option<bool>,
    mask_request_host: Option<String>,
    allow_out: Option<Vec<String>>,
    deny_out: Option<Vec<String>>,
    rules: Option<Rules>,
    egress_proxy: Option<EgressProxy>,
}

/// `PUT /sandboxes/{id}/network`: the egress rules, replaced whole (omitted = cleared).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct NetworkUpdate {
    allow_out: Option<Vec<String>>,
    deny_out: Option<Vec<String>>,
    rules: Option<Rules>,
    egress_proxy: Option<EgressProxy>,
    #[serde(rename = "allow_internet_access")]
    allow_internet_access: Option<bool>,
}

/// The record a create request asks for, every field checked, and its timeout.
fn new_record(
    templates: &crate::template::Templates,
    images: Option<&crate::oci::ImageStore>,
    body: CreateBody,
) -> ApiResult<(Record, u64)> {
    let template_id = body.template_id.unwrap_or_else(|| "base".to_owned());
    if crate::server::find_template(templates, images, &template_id).is_err() {
        let known: Vec<&str> = templates.names().collect();
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            format!("template '{template_id}' not found (available: {})", known.join(", ")),
        ));
    }
    let timeout = timeout_secs(body.timeout)?;
    check_limits(body.cpu_count, body.memory_mb)?;
    let env_vars = body.env_vars.unwrap_or_default();
    check_env_vars(&env_vars)?;
    let metadata = body.metadata.unwrap_or_default();
    check_metadata(&metadata)?;
    let now = now_ms();
    let record = Record {
        sandbox_id: String::new(),
        template_id,
        alias: None,
        envd_access_token: (body.secure != Some(false)).then(|| random_hex(32)),
        metadata,
        env_vars,
        auto_pause: body.auto_pause.unwrap_or(false),
        auto_pause_memory: body.auto_pause_memory.unwrap_or(true),
        auto_resume: body.auto_resume.is_some_and(|auto| auto.enabled),
        started_at_ms: now,
        end_at_ms: now + timeout * 1000,
        phase: Phase::Creating,
        isolation: None,
        cpu_count: body.cpu_count,
        memory_mb: body.memory_mb,
        network: network_settings(body.network.unwrap_or_default(), body.allow_internet_access)?,
        volume_mounts: Vec::new(),
        startup: None,
        runtime: Default::default(),
        checkpoint: None,
    };
    Ok((record, timeout))
}

async fn create(State(shared): S, JsonBody(mut body): JsonBody<CreateBody>) -> ApiResult<Response> {
    let asked_runtime = body.runtime.take();
    let runtime = runtime_for(&shared, asked_runtime.as_deref())?;
    // E2B's Code Interpreter template is built here on its first use (and again when
    // its recipe changed): see `code_interpreter.rs`.
    if body.template_id.as_deref() == Some(crate::server::code_interpreter::NAME)
        && shared.config.templates.get(crate::server::code_interpreter::NAME).is_err()
    {
        let owner = shared.clone();
        detached(async move { Ok(crate::server::code_interpreter::ensure(&owner).await?) }).await?;
    }
    // `templateID` may name a template built here: the sandbox then starts from its
    // build's files, with what the template set.
    let built = body
        .template_id
        .as_deref()
        .filter(|id| shared.config.templates.get(id).is_err())
        .and_then(|id| crate::server::templates::index(&shared).resolve(id));
    if let Some((template, build)) = built {
        body.template_id = Some(build.base.clone());
        body.cpu_count = body.cpu_count.or(build.cpu_count);
        body.memory_mb = body.memory_mb.or(build.memory_mb);
        let mounts = body.volume_mounts.take().unwrap_or_default();
        let (mut record, timeout) =
            new_record(&shared.config.templates, Some(&shared.images), body)?;
        check_egress_support(&shared, &record.network.egress)?;
        record.volume_mounts = volume_mounts(&shared, mounts, &template_paths(&shared, &record))?;
        record.alias = Some(template.name.clone());
        // The create's runtime, or the template's, or the daemon's.
        record.runtime = match (&asked_runtime, build.runtime) {
            (None, Some(theirs)) => runtime_for(&shared, Some(&theirs.to_string()))?,
            _ => runtime,
        };
        record.startup = Some(build.startup.clone());
        record.isolation = build.isolation;
        let files = crate::server::templates::index(&shared).files(&build.build_id);
        let what = format!("template {} (build {})", template.name, build.build_id);
        return detached(
            async move { create_from_files(&shared, record, files, &what, timeout).await },
        )
        .await;
    }
    // `templateID` may name a snapshot: the sandbox then starts from its files.
    let snapshot = body
        .template_id
        .as_deref()
        .filter(|id| shared.config.templates.get(id).is_err())
        .and_then(|id| snapshots::find(&shared, id));
    if let Some(snapshot) = &snapshot {
        body.template_id = Some(snapshot.template_id.clone());
        let mut env_vars = snapshot.env_vars.clone();
        env_vars.extend(body.env_vars.take().unwrap_or_default());
        body.env_vars = Some(env_vars);
    }
    let mounts = body.volume_mounts.take().unwrap_or_default();
    let (mut record, timeout) = new_record(&shared.config.templates, Some(&shared.images), body)?;
    check_egress_support(&shared, &record.network.egress)?;
    record.runtime = runtime;
    let template_paths = template_paths(&shared, &record);
    record.volume_mounts = volume_mounts(&shared, mounts, &template_paths)?;
    if let Some(snapshot) = snapshot {
        // A snapshot with memory starts with its processes running, under gVisor, unless
        // the create asks for a runtime (then it boots from the files).
        let (runtime, checkpoint) = match (&snapshot.memory, asked_runtime) {
            (Some(memory), None) => (runtime_for(&shared, Some("gvisor"))?, Some(memory.clone())),
            _ => (record.runtime, None),
        };
        let record = Record { isolation: snapshot.isolation, runtime, checkpoint, ..record };
        let files = snapshots::files(&shared, &snapshot);
        let what = format!("snapshot {}", snapshot.snapshot_id);
        return detached(
            async move { create_from_files(&shared, record, files, &what, timeout).await },
        )
        .await;
    }
    detached(async move {
        // A pooled sandbox has the template's default limits.
        let poolable = record.cpu_count.is_none()
            && record.memory_mb.is_none()
            && record.volume_mounts.is_empty()
            && record.runtime == crate::gvisor::Runtime::Native;
        if poolable && let Some(slot) = pool::take(&shared.shared, &record.template_id) {
            let _ops = slot.ops.lock().await;
            match pool::hand_out(&shared.shared, &slot, &record).await {
                Ok(()) => return created(&shared, &slot, timeout),
                Err(e) => {
                    tracing::warn!(sandbox = %slot.id, error = format!("{e:#}"), "a pooled sandbox failed at hand-out; creating one");
                    pool::discard(&shared.shared, &slot).await;
                }
            }
        }
        let slot = shared.insert_new(&record).map_err(|e| ApiError::internal(&e))?;
        let _ops = slot.ops.lock().await;
        let id = slot.id.clone();
        // Written first: a daemon killed from here on finds a `creating` record on its
        // next start and removes the half-made sandbox.
        if let Err(e) = save_unsynced(&shared, &slot) {
            shared.remove_slot(&id);
            return Err(e);
        }
        if let Err(e) = lifecycle::start(&shared.shared, &slot).await {
            let error = ApiError::internal(&e.context(format!("creating sandbox {id}")));
            if let Err(e) = lifecycle::kill(&shared.shared, &slot).await {
                tracing::error!(sandbox = %id, error = format!("{e:#}"), "cleaning up a failed create");
            }
            return Err(error);
        }
        created(&shared, &slot, timeout)
    })
    .await
}

/// What the record's template shows from the host (volume paths may not be there).
fn template_paths(shared: &Control, record: &Record) -> Vec<std::path::PathBuf> {
    shared.template(&record.template_id).map(|t| t.read_only_paths).unwrap_or_default()
}

/// A sandbox whose files start as a copy of `files` (a snapshot's, a built template's),
/// keeping the record's uid block (they are owned by it); `what` names the source.
async fn create_from_files(
    shared: &Arc<Control>,
    record: Record,
    files: std::path::PathBuf,
    what: &str,
    timeout: u64,
) -> ApiResult<Response> {
    let slot = fork::from_files(&shared.shared, &record, files)
        .await
        .map_err(|e| ApiError::internal(&e.context(format!("creating a sandbox from {what}"))))?;
    let _ops = slot.ops.lock().await;
    let id = slot.id.clone();
    if let Err(e) = lifecycle::start(&shared.shared, &slot).await {
        let error = ApiError::internal(&e.context(format!("creating sandbox {id} from {what}")));
        if let Err(e) = lifecycle::kill(&shared.shared, &slot).await {
            tracing::error!(sandbox = %id, error = format!("{e:#}"), "cleaning up a failed create");
        }
        return Err(error);
    }
    created(shared, &slot, timeout)
}

/// A sandbox just made ready for its owner: its clock starts now, it is saved, and the
/// create answers 201 with it.
fn created(shared: &Control, slot: &Slot, timeout: u64) -> ApiResult<Response> {
    let record = start_clock(shared, slot, timeout)?;
    Ok((StatusCode::CREATED, axum::Json(sandbox_of(shared, &record))).into_response())
}

/// Starts a ready sandbox's clock (`timeout` seconds from now) and saves it.
fn start_clock(shared: &Control, slot: &Slot, timeout: u64) -> ApiResult<Record> {
    {
        let mut inner = slot.lock();
        let now = now_ms();
        inner.record.started_at_ms = now;
        inner.record.end_at_ms = now + timeout * 1000;
    }
    save_unsynced(shared, slot)
}

#[derive(Debug, Default, Deserialize)]
struct SnapshotBody {
    name: Option<String>,
}

/// `POST /sandboxes/{id}/snapshots` `{name?}`: 201 SnapshotInfo.
async fn take_snapshot(
    State(shared): S,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<SnapshotBody>,
) -> ApiResult<Response> {
    detached(async move {
        let slot = existing(&shared, &id)?;
        let _ops = slot.ops.lock().await;
        if slot.lock().gone {
            return Err(ApiError::not_found(&id));
        }
        let snapshot = snapshots::take(&shared, &slot, body.name).await?;
        Ok((StatusCode::CREATED, axum::Json(snapshot.info())).into_response())
    })
    .await
}

/// E2B's paging: `limit` (1 to 100, default 100) and `nextToken` (here: how many items
/// earlier pages held).
fn page(query: &HashMap<String, String>) -> ApiResult<(usize, usize)> {
    let limit = match query.get("limit") {
        None => 100,
        Some(text) => match text.parse::<usize>() {
            Ok(n) if (1..=100).contains(&n) => n,
            _ => return Err(ApiError::bad_request(format!("limit must be 1..100, got '{text}'"))),
        },
    };
    let offset = match query.get("nextToken") {
        None => 0,
        Some(text) => text
            .parse::<usize>()
            .map_err(|_| ApiError::bad_request(format!("invalid nextToken '{text}'")))?,
    };
    Ok((limit, offset))
}

/// `GET /snapshots?sandboxID=&name=&limit=&nextToken=`: newest first, E2B's paging.
async fn list_snapshots(
    State(shared): S,
    Query(query): Query<HashMap<String, String>>,
) -> ApiResult<Response> {
    let (limit, offset) = page(&query)?;
    let matching: Vec<snapshots::Snapshot> = snapshots::list(&shared)
        .into_iter()
        .filter(|s| query.get("sandboxID").is_none_or(|id| s.sandbox_id == *id))
        .filter(|s| query.get("name").is_none_or(|name| !s.names.is_empty() && s.is_named(name)))
        .collect();
    let (page, next) = one_page(&matching, offset, limit);
    let page: Vec<wire::Snapshot> = page.iter().map(snapshots::Snapshot::info).collect();
    let mut response = axum::Json(page).into_response();
    if let Some(next) = next {
        response.headers_mut().insert("x-next-token", HeaderValue::from(next));
    }
    Ok(response)
}

/// `DELETE /templates/{id}`: a snapshot, or a template built here.
async fn delete_template(State(shared): S, Path(id): Path<String>) -> ApiResult<StatusCode> {
    detached(async move {
        if snapshots::delete(&shared, &id).await?
            || crate::server::template_api::delete(&shared, &id).await?
        {
            return Ok(StatusCode::NO_CONTENT);
        }
        Err(ApiError::new(StatusCode::NOT_FOUND, format!("template or snapshot '{id}' not found")))
    })
    .await
}

#[derive(Debug, Default, Deserialize)]
struct NewVolume {
    name: Option<String>,
    /// dsh extension: the volume's size in MiB (checked by `volume_quota::requested_mb`,
    /// which words its 400s, hence the raw value).
    #[serde(rename = "sizeMB")]
    size_mb: Option<Value>,
}

/// `POST /volumes` `{name, sizeMB?}`: 201 VolumeAndToken (with `sizeMB`).
async fn create_volume(
    State(shared): S,
    JsonBody(body): JsonBody<NewVolume>,
) -> ApiResult<Response> {
    let name = body.name.ok_or_else(|| ApiError::bad_request("name: missing"))?;
    detached(async move {
        let volume = volumes::create(&shared, &name, body.size_mb.as_ref()).await?;
        Ok((StatusCode::CREATED, axum::Json(volume.with_token())).into_response())
    })
    .await
}

/// `GET /volumes`: 200 `[Volume]`, oldest first.
async fn list_volumes(State(shared): S) -> Response {
    let volumes: Vec<wire::Volume> =
        volumes::list(&shared.store).iter().map(volumes::Volume::listed).collect();
    axum::Json(volumes).into_response()
}

/// `GET /volumes/{id}`: 200 VolumeAndToken.
async fn get_volume(State(shared): S, Path(id): Path<String>) -> ApiResult<Response> {
    let volume = volumes::by_id(&shared.store, &id)
        .ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, format!("volume {id} not found")))?;
    Ok(axum::Json(volume.with_token()).into_response())
}

/// `DELETE /volumes/{id}`: 204; 409 while a sandbox mounts it.
async fn delete_volume(State(shared): S, Path(id): Path<String>) -> ApiResult<StatusCode> {
    detached(async move {
        match volumes::delete(&shared, &id).await? {
            true => Ok(StatusCode::NO_CONTENT),
            false => Err(ApiError::new(StatusCode::NOT_FOUND, format!("volume {id} not found"))),
        }
    })
    .await
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ForkBody {
    timeout: Option<i64>,
    count: Option<i64>,
}

/// Forks asked for at once, at most.
const MAX_FORKS: i64 = 64;
/// E2B's default timeout of a fork (`SandboxForkRequest.timeout`), in seconds.
const DEFAULT_FORK_TIMEOUT: i64 = 15;

/// `POST /sandboxes/{id}/fork`: `count` new sandboxes from the running sandbox's files
/// (see `fork.rs`). 201 with one entry per fork, `{"sandbox": ...}` or `{"error": ...}`:
/// each succeeds or fails on its own, as E2B's do.
async fn fork(
    State(shared): S,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<ForkBody>,
) -> ApiResult<Response> {
    let count = body.count.unwrap_or(1);
    if !(1..=MAX_FORKS).contains(&count) {
        return Err(ApiError::bad_request(format!("count must be 1 to {MAX_FORKS}, not {count}")));
    }
    let timeout = timeout_secs(Some(body.timeout.unwrap_or(DEFAULT_FORK_TIMEOUT)))?;
    detached(async move {
        let parent = existing(&shared, &id)?;
        let mut starts = tokio::task::JoinSet::new();
        {
            let _ops = parent.ops.lock().await;
            let (gone, record) = {
                let inner = parent.lock();
                (inner.gone, inner.record.clone())
            };
            if gone {
                return Err(ApiError::not_found(&id));
            }
            if record.phase != Phase::Running {
                return Err(ApiError::new(
                    StatusCode::CONFLICT,
                    format!("sandbox {id} is paused: resume it to fork it"),
                ));
            }
            // A gVisor sandbox is forked with its processes: its memory is saved next to
            // its files, the forks get both, and it goes on from the same checkpoint.
            let with_memory = crate::server::runtime::of(record.runtime).memory_kept()
                == crate::server::runtime::MemoryKept::OnDisk;
            let record = if with_memory {
                lifecycle::checkpoint(&shared, &parent, false)
                    .await
                    .map_err(|e| ApiError::internal(&e.context(format!("saving sandbox {id}'s memory to fork it"))))?;
                parent.record()
            } else {
                record
            };
            let mut made = Vec::new();
            for _ in 0..count {
                made.push(fork::make(&shared.shared, &record).await);
            }
            // The forks start side by side, while the parent (still under its lock) is
            // restored, a gVisor one, or is free again.
            for slot in made {
                let shared = shared.clone();
                starts.spawn(async move {
                    let slot = slot.map_err(|e| ApiError::internal(&e))?;
                    let _ops = slot.ops.lock().await;
                    if let Err(e) = lifecycle::start(&shared.shared, &slot).await {
                        let error =
                            ApiError::internal(&e.context(format!("starting fork {}", slot.id)));
                        if let Err(e) = lifecycle::kill(&shared.shared, &slot).await {
                            tracing::error!(sandbox = %slot.id, error = format!("{e:#}"), "cleaning up a failed fork");
                        }
                        return Err(error);
                    }
                    start_clock(&shared, &slot, timeout)
                });
            }
            if with_memory && let Err(e) = lifecycle::start(&shared.shared, &parent).await {
                // Its memory and files are kept: it is paused, and a resume restores it.
                tracing::error!(sandbox = %id, error = format!("{e:#}"), "restoring a forked sandbox");
                parent.lock().record.phase = Phase::Paused;
                let _ = save(&shared, &parent);
            }
        }
        let mut results = Vec::new();
        while let Some(joined) = starts.join_next().await {
            let result = joined.unwrap_or_else(|e| {
                Err(ApiError::internal(&anyhow::anyhow!("a fork panicked: {e}")))
            });
            results.push(match result {
                Ok(record) => wire::ForkEntry::Sandbox(sandbox_of(&shared, &record)),
                Err(error) => wire::ForkEntry::Error(error.body()),
            });
        }
        Ok((StatusCode::CREATED, axum::Json(results)).into_response())
    })
    .await
}

async fn get_one(State(shared): S, Path(id): Path<String>) -> ApiResult<Response> {
    let slot = existing(&shared, &id)?;
    let (record, frozen) = {
        let inner = slot.lock();
        (inner.record.clone(), inner.frozen.is_some())
    };
    Ok(axum::Json(detail_of(&shared, &record, frozen)).into_response())
}

/// What a paused sandbox keeps of its memory: `disk` (a gVisor checkpoint in its
/// directory: it outlives the daemon and the host), `frozen` (its processes frozen in
/// place: lost if this daemon stops, and its resume is then a reboot), or `none` (its
/// files only: its resume is a reboot).
fn paused_memory(record: &Record, frozen: bool) -> &'static str {
    match (&record.checkpoint, frozen) {
        (Some(_), _) => "disk",
        (None, true) => "frozen",
        (None, false) => "none",
    }
}

/// `GET /templates/aliases/{alias}`: a template of this daemon by name (its templates are
/// built in, each named by itself, and public).
async fn template_alias(State(shared): S, Path(alias): Path<String>) -> ApiResult<Response> {
    if shared.config.templates.get(&alias).is_err() {
        return match crate::server::template_api::alias(&shared, &alias) {
            Some(found) => Ok(axum::Json(found).into_response()),
            None => {
                Err(ApiError::new(StatusCode::NOT_FOUND, format!("template '{alias}' not found")))
            }
        };
    }
    Ok(axum::Json(wire::TemplateAlias { public: true, template_id: alias }).into_response())
}

/// `POST /layers` `{"npm": ["pyright@1.1.414"]}`: the layer with those packages, built
/// now if this machine has none (the request waits for the build), mounted read-only in
/// every sandbox when the answer arrives. dsh's own API; E2B has none.
async fn provide_layer(
    State(shared): S,
    JsonBody(recipe): JsonBody<crate::server::layers::Recipe>,
) -> ApiResult<Response> {
    use crate::server::layers::LayerError;
    match shared.layers.provide(recipe).await {
        Ok(provided) => Ok(axum::Json(provided).into_response()),
        Err(err) => {
            let status = match &err {
                LayerError::BadRecipe(_) => StatusCode::BAD_REQUEST,
                LayerError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
                LayerError::BuildFailed(_) => StatusCode::INTERNAL_SERVER_ERROR,
                LayerError::TimedOut(_) => StatusCode::GATEWAY_TIMEOUT,
            };
            Err(ApiError::new(status, err.to_string()))
        }
    }
}

/// `GET /layers`: the layers this machine has.
async fn list_layers(State(shared): S) -> Response {
    let layers = shared.layers.list();
    let listed: Vec<wire::Layer> = layers
        .iter()
        .map(|m| {
            let (path, bin) = m.inside();
            wire::Layer {
                bin: bin.into(),
                build_ms: m.build_ms,
                bytes: m.bytes,
                files: m.files,
                layer_id: m.layer_id.clone(),
                path: path.into(),
                recipe: Some(wire::LayerRecipe { npm: m.recipe.npm.clone() }),
            }
        })
        .collect();
    axum::Json(listed).into_response()
}

/// `GET /sandboxes/{id}/metrics?start=&end=` (unix seconds, both optional): the samples
/// the daemon took while the sandbox ran, oldest first.
async fn metrics(
    State(shared): S,
    Path(id): Path<String>,
    Query(query): Query<HashMap<String, String>>,
) -> ApiResult<Response> {
    let bound = |name: &str| -> ApiResult<Option<u64>> {
        query
            .get(name)
            .map(|text| {
                text.parse::<u64>().map_err(|_| {
                    ApiError::bad_request(format!("{name} must be unix seconds, got {text:?}"))
                })
            })
            .transpose()
    };
    let (start, end) = (bound("start")?, bound("end")?);
    let slot = existing(&shared, &id)?;
    let samples = slot.lock().metrics.between(start, end);
    Ok(axum::Json(samples).into_response())
}

async fn kill(State(shared): S, Path(id): Path<String>) -> ApiResult<StatusCode> {
    detached(async move {
        let slot = existing(&shared, &id)?;
        let _ops = slot.ops.lock().await;
        if slot.lock().gone {
            return Err(ApiError::not_found(&id));
        }
        lifecycle::kill_then_tear_down(&shared.shared, &slot)
            .await
            .map_err(|e| ApiError::internal(&e))?;
        Ok(StatusCode::NO_CONTENT)
    })
    .await
}

#[derive(Debug, Default, Deserialize)]
struct PauseBody {
    /// Keep the processes' memory (E2B's default); `false`: stop them, keep the files.
    memory: Option<bool>,
}

async fn pause(
    State(shared): S,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<PauseBody>,
) -> ApiResult<StatusCode> {
    let keep_memory = body.memory.unwrap_or(true);
    detached(async move {
        let slot = existing(&shared, &id)?;
        let _ops = slot.ops.lock().await;
        let (gone, phase) = {
            let inner = slot.lock();
            (inner.gone, inner.record.phase)
        };
        if gone {
            return Err(ApiError::not_found(&id));
        }
        if phase == Phase::Paused {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                format!("sandbox {id} is already paused"),
            ));
        }
        lifecycle::pause(&shared, &slot, keep_memory).await.map_err(|e| ApiError::internal(&e))?;
        Ok(StatusCode::NO_CONTENT)
    })
    .await
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct TimeoutBody {
    timeout: Option<i64>,
    auto_pause: Option<bool>,
}

/// `connect`: extends a running sandbox's deadline (200) or resumes a paused one (201).
async fn connect(
    State(shared): S,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<TimeoutBody>,
) -> ApiResult<Response> {
    let timeout = timeout_secs(body.timeout)?;
    resume_or_extend(shared, id, timeout, None, true).await
}

/// `resume` (deprecated in E2B): resumes a paused sandbox (201); 409 if it runs.
async fn resume(
    State(shared): S,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<TimeoutBody>,
) -> ApiResult<Response> {
    let timeout = timeout_secs(body.timeout)?;
    resume_or_extend(shared, id, timeout, body.auto_pause, false).await
}

async fn resume_or_extend(
    shared: Arc<Control>,
    id: String,
    timeout: u64,
    auto_pause: Option<bool>,
    extend_running: bool,
) -> ApiResult<Response> {
    detached(async move {
        let slot = existing(&shared, &id)?;
        let _ops = slot.ops.lock().await;
        let (gone, phase) = {
            let inner = slot.lock();
            (inner.gone, inner.record.phase)
        };
        if gone {
            return Err(ApiError::not_found(&id));
        }
        let deadline = now_ms() + timeout * 1000;
        if phase == Phase::Running {
            if !extend_running {
                return Err(ApiError::new(
                    StatusCode::CONFLICT,
                    format!("sandbox {id} is already running"),
                ));
            }
            {
                let mut inner = slot.lock();
                inner.record.end_at_ms = inner.record.end_at_ms.max(deadline);
            }
            let record = save_unsynced(&shared, &slot)?;
            return Ok((StatusCode::OK, axum::Json(sandbox_of(&shared, &record))).into_response());
        }
        if let Err(e) = lifecycle::start(&shared.shared, &slot).await {
            slot.lock().record.phase = Phase::Paused;
            return Err(ApiError::internal(&e.context(format!("resuming sandbox {id}"))));
        }
        {
            let mut inner = slot.lock();
            let now = now_ms();
            inner.record.started_at_ms = now;
            inner.record.end_at_ms = now + timeout * 1000;
            if let Some(auto_pause) = auto_pause {
                inner.record.auto_pause = auto_pause;
            }
        }
        let record = save(&shared, &slot)?;
        Ok((StatusCode::CREATED, axum::Json(sandbox_of(&shared, &record))).into_response())
    })
    .await
}

async fn set_timeout(
    State(shared): S,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<TimeoutBody>,
) -> ApiResult<StatusCode> {
    let timeout = required_timeout(body.timeout)?;
    detached(async move {
        let slot = existing(&shared, &id)?;
        let _ops = slot.ops.lock().await;
        {
            let mut inner = slot.lock();
            if inner.gone {
                return Err(ApiError::not_found(&id));
            }
            inner.record.end_at_ms = now_ms() + timeout * 1000;
        }
        save_unsynced(&shared, &slot)?;
        Ok(StatusCode::NO_CONTENT)
    })
    .await
}

/// Replaces a sandbox's egress rules; a running sandbox's namespace gets them at once
/// (connections already open stay, new ones follow the rules).
async fn update_network(
    State(shared): S,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<NetworkUpdate>,
) -> ApiResult<StatusCode> {
    let access = body.allow_internet_access;
    let egress = egress(body.allow_out, body.deny_out, body.rules, body.egress_proxy, access)?;
    check_egress_support(&shared, &egress)?;
    if shared.config.net != crate::spec::Net::Private {
        return Err(ApiError::bad_request(format!(
            "egress rules need private sandbox networks; this daemon gives sandboxes net = {:?}",
            shared.config.net
        )));
    }
    detached(async move {
        let slot = existing(&shared, &id)?;
        let _ops = slot.ops.lock().await;
        {
            let mut inner = slot.lock();
            if inner.gone {
                return Err(ApiError::not_found(&id));
            }
            inner.record.network.egress = egress.clone();
        }
        if let Err(e) = lifecycle::load_egress(&slot, &egress).await {
            return Err(ApiError::internal(&e.context(format!("updating sandbox {id}'s rules"))));
        }
        save(&shared, &slot)?;
        Ok(StatusCode::NO_CONTENT)
    })
    .await
}

/// `metadata=<urlencoded k=v&k2=v2>` (the query layer decoded it once; keys and values
/// are percent-encoded once more by the SDK).
fn parse_metadata_filter(text: &str) -> ApiResult<Vec<(String, String)>> {
    text.split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').ok_or_else(|| {
                ApiError::bad_request(format!(
                    "invalid metadata filter '{pair}': expected key=value"
                ))
            })?;
            Ok((percent_decode(k), percent_decode(v)))
        })
        .collect()
}

fn percent_decode(text: &str) -> String {
    percent_encoding::percent_decode_str(text).decode_utf8_lossy().into_owned()
}

struct ListQuery {
    states: Vec<Phase>,
    metadata: Vec<(String, String)>,
    template: Option<String>,
    /// Only sandboxes started at or after this time (ms since the epoch).
    started_after_ms: Option<u64>,
    descending: bool,
    limit: usize,
    offset: usize,
}

fn parse_list_query(
    query: &HashMap<String, String>,
    default_states: &[Phase],
) -> ApiResult<ListQuery> {
    let states = match query.get("state") {
        None => default_states.to_vec(),
        Some(text) => text
            .split(',')
            .filter(|s| !s.is_empty())
            .map(|s| match s.trim() {
                "running" => Ok(Phase::Running),
                "paused" => Ok(Phase::Paused),
                other => Err(ApiError::bad_request(format!(
                    "invalid state '{other}': expected running or paused"
                ))),
            })
            .collect::<ApiResult<_>>()?,
    };
    let metadata =
        query.get("metadata").map(|m| parse_metadata_filter(m)).transpose()?.unwrap_or_default();
    // Newest first unless asked otherwise, as E2B's API lists them.
    let descending = match query.get("order").map(String::as_str) {
        Some("asc") => false,
        None | Some("desc") => true,
        Some(other) => return Err(ApiError::bad_request(format!("invalid order '{other}'"))),
    };
    let (limit, offset) = page(query)?;
    let started_after_ms = query
        .get("startedAfter")
        .map(|text| {
            let invalid = || {
                ApiError::bad_request(format!(
                    "startedAfter must be an RFC 3339 time, got '{text}'"
                ))
            };
            let time: prost_types::Timestamp = text.parse().map_err(|_| invalid())?;
            let ms = time.seconds.saturating_mul(1000) + i64::from(time.nanos / 1_000_000);
            Ok::<u64, ApiError>(u64::try_from(ms).unwrap_or(0))
        })
        .transpose()?;
    Ok(ListQuery {
        states,
        metadata,
        template: query.get("template").cloned(),
        started_after_ms,
        descending,
        limit,
        offset,
    })
}

fn list(shared: &Control, query: &ListQuery) -> (Vec<wire::ListedSandbox>, Option<String>, usize) {
    let mut records: Vec<Record> = shared
        .slots()
        .iter()
        .filter(|slot| !slot.lock().gone)
        .map(|slot| slot.record())
        .filter(|r| r.phase != Phase::Creating)
        .collect();
    let running = records.iter().filter(|r| r.phase == Phase::Running).count();
    records.retain(|r| {
        query.states.contains(&r.phase)
            && query.template.as_ref().is_none_or(|t| *t == r.template_id)
            && query.started_after_ms.is_none_or(|after| r.started_at_ms >= after)
            && query.metadata.iter().all(|(k, v)| r.metadata.get(k) == Some(v))
    });
    records.sort_by(|a, b| (a.started_at_ms, &a.sandbox_id).cmp(&(b.started_at_ms, &b.sandbox_id)));
    if query.descending {
        records.reverse();
    }
    let (page, next) = one_page(&records, query.offset, query.limit);
    let page: Vec<wire::ListedSandbox> = page.iter().map(|r| listed_of(shared, r)).collect();
    (page, next.map(|n| n.to_string()), running)
}

/// The items `offset` and `limit` pick, and where the next page starts (E2B's
/// `nextToken`) when there is one.
fn one_page<T>(items: &[T], offset: usize, limit: usize) -> (&[T], Option<usize>) {
    let start = offset.min(items.len());
    let end = start.saturating_add(limit).min(items.len());
    (&items[start..end], (end < items.len()).then_some(end))
}

fn list_response(page: Vec<wire::ListedSandbox>, next: Option<String>, running: usize) -> Response {
    let mut response = axum::Json(page).into_response();
    let headers = response.headers_mut();
    headers.insert("x-total-running", HeaderValue::from(running));
    if let Some(next) = next.and_then(|n| HeaderValue::from_str(&n).ok()) {
        headers.insert("x-next-token", next);
    }
    response
}

async fn list_v2(
    State(shared): S,
    Query(query): Query<HashMap<String, String>>,
) -> ApiResult<Response> {
    let query = parse_list_query(&query, &[Phase::Running, Phase::Paused])?;
    let (page, next, running) = list(&shared, &query);
    Ok(list_response(page, next, running))
}

/// v1 list: running sandboxes only, no paging.
async fn list_v1(
    State(shared): S,
    Query(mut query): Query<HashMap<String, String>>,
) -> ApiResult<Response> {
    query.remove("state");
    query.remove("limit");
    query.remove("nextToken");
    let mut query = parse_list_query(&query, &[Phase::Running])?;
    query.limit = usize::MAX;
    let (page, _, running) = list(&shared, &query);
    Ok(list_response(page, None, running))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn metadata_filters_are_percent_decoded_and_bad_escapes_kept() {
        assert_eq!(percent_decode("a%20b%2Fc%C3%A9"), "a b/cé");
        assert_eq!(percent_decode("50%25%zz%4"), "50%%zz%4");
    }

    #[test]
    fn metadata_filters_are_decoded_twice() {
        assert_eq!(
            parse_metadata_filter("user%20id=a%26b&k=v").unwrap(),
            [("user id".to_owned(), "a&b".to_owned()), ("k".to_owned(), "v".to_owned())]
        );
        assert!(parse_metadata_filter("novalue").is_err());
    }

    #[test]
    fn timeouts_are_bounded() {
        assert_eq!(timeout_secs(None).unwrap(), 300);
        assert_eq!(timeout_secs(Some(86_400)).unwrap(), 86_400);
        assert_eq!(timeout_secs(Some(-1)).unwrap_err().status, StatusCode::BAD_REQUEST);
        assert_eq!(timeout_secs(Some(86_401)).unwrap_err().status, StatusCode::BAD_REQUEST);
    }
}
