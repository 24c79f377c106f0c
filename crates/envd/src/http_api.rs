//! The plain HTTP endpoints beside the RPCs: `/health`, `/init`, `/envs`, `/metrics`,
//! and the CORS policy every response carries.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use bytes::Bytes;
use serde::Deserialize;

use crate::auth;
use crate::state::Envd;

/// envd's HTTP error body: `{"code": <status>, "message": "..."}`.
pub fn http_error(status: StatusCode, message: &str) -> Response {
    let body = serde_json::json!({ "code": status.as_u16(), "message": message }).to_string();
    (
        status,
        [
            (header::CONTENT_TYPE, "application/json; charset=utf-8"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        body,
    )
        .into_response()
}

pub fn routes() -> Router<Arc<Envd>> {
    Router::new()
        .route("/health", get(health))
        .route("/init", post(init))
        .route("/envs", get(envs))
        .route("/metrics", get(metrics))
}

async fn health() -> Response {
    (StatusCode::NO_CONTENT, [(header::CACHE_CONTROL, "no-store")]).into_response()
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct InitRequest {
    env_vars: Option<std::collections::BTreeMap<String, String>>,
    access_token: Option<String>,
    timestamp: Option<dsh_proto::timestamp::Timestamp>,
    default_user: Option<String>,
    default_workdir: Option<String>,
    /// PEM CA certificates for the system trust bundle (E2B's `spec/envd.yaml:77-79`).
    ca_bundle: Option<String>,
    /// dsh extension: a bundle of its own to put `caBundle` in instead of the system's
    /// (made from the system's the first time), where the system's cannot be written (a
    /// sandbox of an ordinary user's daemon, whose `/etc` is the host's, read-only).
    ca_bundle_path: Option<String>,
}

async fn init(State(envd): State<Arc<Envd>>, headers: HeaderMap, body: Bytes) -> Response {
    let versioned = |mut response: Response| {
        response
            .headers_mut()
            .insert("x-envd-version", HeaderValue::from_static(dsh_proto::ENVD_VERSION));
        response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        response
    };
    let request: InitRequest = if body.iter().all(u8::is_ascii_whitespace) {
        InitRequest::default()
    } else {
        match serde_json::from_slice(&body) {
            Ok(request) => request,
            Err(err) => {
                return versioned(
                    (StatusCode::BAD_REQUEST, format!("invalid init request: {err}"))
                        .into_response(),
                );
            }
        }
    };
    // One /init at a time, from the token check to the settings change (E2B's `initLock`,
    // internal/api/init.go:189-194, taken before its token check too).
    let _one_at_a_time = envd.init_lock.lock().await;
    // A token, once set, must be presented again (in the body or the header) to change anything.
    if let Some(current) = envd.settings().access_token {
        let presented = request.access_token.as_deref() == Some(current.as_str())
            || auth::token_matches(&headers, &current);
        if !presented {
            return versioned((StatusCode::UNAUTHORIZED, "access token mismatch").into_response());
        }
    }
    if let Some(user) = request.default_user.as_deref().filter(|u| !u.is_empty())
        && envd.users.lookup(user).is_none()
    {
        return versioned(
            (StatusCode::BAD_REQUEST, format!("unknown default user '{user}'")).into_response(),
        );
    }
    let stamp = request.timestamp.as_ref().map(|stamp| (stamp.seconds, stamp.nanos));
    if let Some(stamp) = stamp
        && envd.settings().last_init.is_some_and(|newest| stamp < newest)
    {
        // Stale: an older init arriving late changes nothing, its caBundle included
        // (E2B installs it in `SetData`, which a stale request skips: init.go:229-230).
        return versioned(StatusCode::NO_CONTENT.into_response());
    }
    // init.go:296-300: a non-empty caBundle is installed, and a failure fails the /init
    // with the reason. Unlike E2B (which answers 400, init.go:492-496, after applying the
    // other fields), it is installed first, so a failed /init changes nothing, and the
    // answer is a 500: the request was fine, the write failed.
    if let Some(pem) = request.ca_bundle.clone().filter(|pem| !pem.is_empty())
        && envd.config.strict.is_none_or(|version| version.has_ca_bundle())
    {
        let installer = Arc::clone(&envd);
        let target = request.ca_bundle_path.clone().filter(|path| !path.is_empty());
        let outcome = tokio::task::spawn_blocking(move || {
            installer.ca_certs.install_at(&pem, target.as_deref().map(std::path::Path::new))
        })
        .await;
        let failure = match outcome {
            Ok(Ok(installed)) => {
                let bundle = envd.ca_certs.paths().bundle.display().to_string();
                if installed == crate::cacerts::Installed::Unchanged {
                    tracing::debug!(%bundle, "CA bundle already installed");
                } else {
                    tracing::info!(%bundle, ?installed, "CA bundle installed");
                }
                None
            }
            Ok(Err(err)) => Some(err.to_string()),
            Err(err) => Some(err.to_string()),
        };
        if let Some(reason) = failure {
            tracing::error!(%reason, "cannot install the CA bundle");
            return versioned(
                (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    format!("failed to install CA bundle: {reason}"),
                )
                    .into_response(),
            );
        }
    }
    envd.update_settings(|settings| {
        if stamp.is_some() {
            settings.last_init = stamp;
        }
        settings.env_vars = request.env_vars.clone().unwrap_or_default();
        settings.access_token = request.access_token.clone().filter(|t| !t.is_empty());
        if let Some(user) = request.default_user.clone().filter(|u| !u.is_empty()) {
            settings.default_user = user;
        }
        if let Some(workdir) = request.default_workdir.clone().filter(|w| !w.is_empty()) {
            settings.default_workdir = Some(workdir.into());
        }
    });
    versioned(StatusCode::NO_CONTENT.into_response())
}

async fn envs(State(envd): State<Arc<Envd>>) -> Response {
    let body = serde_json::to_string(&envd.global_env()).unwrap_or_else(|_| "{}".to_owned());
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json"), (header::CACHE_CONTROL, "no-store")],
        body,
    )
        .into_response()
}

/// Jiffies from `/proc/stat`, kept between calls to compute CPU use.
#[derive(Debug, Clone, Copy)]
pub struct CpuSample {
    busy: u64,
    total: u64,
}

fn read_cpu() -> Option<CpuSample> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let line = stat.lines().next()?;
    let values: Vec<u64> = line.split_whitespace().skip(1).filter_map(|v| v.parse().ok()).collect();
    let total: u64 = values.iter().sum();
    let idle = values.get(3).copied().unwrap_or(0) + values.get(4).copied().unwrap_or(0);
    Some(CpuSample { busy: total.saturating_sub(idle), total })
}

fn meminfo_kib(key: &str, meminfo: &str) -> Option<u64> {
    meminfo.lines().find_map(|line| {
        let rest = line.strip_prefix(key)?.strip_prefix(':')?;
        rest.split_whitespace().next()?.parse().ok()
    })
}

async fn metrics(State(envd): State<Arc<Envd>>) -> Response {
    let Ok(meminfo) = std::fs::read_to_string("/proc/meminfo") else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    let total = meminfo_kib("MemTotal", &meminfo).unwrap_or(0) * 1024;
    let available = meminfo_kib("MemAvailable", &meminfo).unwrap_or(0) * 1024;
    let cache = meminfo_kib("Cached", &meminfo).unwrap_or(0) * 1024;
    let used = total.saturating_sub(available);
    let now = read_cpu();
    let cpu_used_pct = {
        let mut previous = match envd.cpu_sample.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        let pct = match (*previous, now) {
            (Some(before), Some(after)) if after.total > before.total => {
                (after.busy.saturating_sub(before.busy)) as f64 * 100.0
                    / (after.total - before.total) as f64
            }
            _ => 0.0,
        };
        *previous = now;
        (pct * 100.0).round() / 100.0
    };
    let (disk_used, disk_total) = match rustix::fs::statvfs("/") {
        Ok(stats) => {
            let total = stats.f_blocks * stats.f_frsize;
            (total.saturating_sub(stats.f_bfree * stats.f_frsize), total)
        }
        Err(_) => (0, 0),
    };
    let ts = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let body = serde_json::json!({
        "ts": ts,
        "cpu_count": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        "cpu_used_pct": cpu_used_pct,
        "mem_total": total,
        "mem_used": used,
        "mem_cache": cache,
        "mem_total_mib": total / (1024 * 1024),
        "mem_used_mib": used / (1024 * 1024),
        "disk_used": disk_used,
        "disk_total": disk_total,
    });
    (StatusCode::OK, [(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response()
}

const EXPOSED_HEADERS: &str = "Connect-Protocol-Version, Connect-Content-Encoding, Connect-Accept-Encoding, \
Grpc-Status, Grpc-Message, Grpc-Status-Details-Bin, Location, Cache-Control, X-Content-Type-Options";

/// Any origin may call envd (browsers use the JS SDK directly).
pub async fn cors(request: Request, next: Next) -> Response {
    let preflight = request.method() == Method::OPTIONS;
    let mut response =
        if preflight { StatusCode::NO_CONTENT.into_response() } else { next.run(request).await };
    let headers = response.headers_mut();
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    headers
        .insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, HeaderValue::from_static(EXPOSED_HEADERS));
    if preflight {
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_METHODS,
            HeaderValue::from_static("HEAD, GET, POST, PUT, PATCH, DELETE"),
        );
        headers.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, HeaderValue::from_static("*"));
        headers.insert(header::ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static("7200"));
    }
    response
}
