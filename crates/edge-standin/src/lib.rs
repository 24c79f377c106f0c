//! A stand-in for E2B's edge, for tests only: E2B cloud cannot be reached from CI, and
//! nothing may leave the machine. It listens on 127.0.0.1 with TLS (a test CA made with
//! `openssl` at start), offers ALPN `h2` and `http/1.1`, and answers as E2B's edge does,
//! each behaviour following the Go source named beside it (e2b-dev/infra at 54693ff):
//! - `api.<domain>`: the control plane, forwarded to a local `dsh-sandboxd` (which
//!   checks `X-API-Key`; the edge refuses a request without one first), with what E2B's
//!   API refuses that the daemon allows: a timeout of 0 on create (`timeout_helper.go`),
//!   an extension past the team's maximum length and the timeout of a paused sandbox
//!   (`keep_alive.go`);
//! - any other host is the sandbox proxy (`packages/shared/pkg/proxy/host.go`,
//!   `GetTargetFromRequest`): `sandbox.<domain>` (or an IP or `localhost`) routed by
//!   `E2b-Sandbox-Id` / `E2b-Sandbox-Port`, else `<port>-<id>.<domain>`, with Go's
//!   `http.Error` texts for what cannot be routed (`handler.go`), E2B's 502 JSON for a
//!   sandbox it does not have (`template/sandbox_not_found.go`) and a closed port
//!   (`template/port_closed.go`), and on demand ([`Edge::fail_next`]) its 409, 403, 429
//!   and its plain-text 502 (`pool/client.go`).
//!
//! Every request's authority, headers and HTTP version is recorded.
//! [`Edge::reset_connections`] ends every open connection (an h2 one with GOAWAY first),
//! as an edge restart would.
//!
//! Clients reach it with `DSH_E2B_RESOLVE=<domain>=127.0.0.1` and
//! `DSH_E2B_CA_FILE=<ca.pem>` (see dsh-e2b), and `E2B_DOMAIN=<domain>:<port>`.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use axum::body::Body;
use futures_util::TryStreamExt;
use http_body_util::BodyExt as _;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio_rustls::rustls;

/// One request as the edge saw it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub authority: String,
    pub method: String,
    pub path: String,
    /// `HTTP/2.0` or `HTTP/1.1`.
    pub version: String,
    /// Lowercase names.
    pub headers: Vec<(String, String)>,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// An answer E2B's sandbox proxy gives for itself, to be given to the next sandbox
/// request ([`Edge::fail_next`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// 502 `{"sandboxId","message":"The sandbox was not found","code":502}`
    /// (`template/sandbox_not_found.go`).
    SandboxNotFound,
    /// 502 `{"sandboxId","message":"The sandbox is running but port is not open","port",
    /// "code":502}` (`template/port_closed.go`).
    PortClosed,
    /// 502 text/plain "Failed to route request to sandbox" (`pool/client.go`,
    /// `ErrorHandler`, when the proxy cannot reach the sandbox for now).
    RouteFailed,
    /// 409 (`template/sandbox_still_transitioning.go`).
    StillTransitioning,
    /// 403 (`template/sandbox_resume_permission_denied.go`).
    ResumeDenied,
    /// 429 with the connection limit (`template/sandbox_too_many_connections.go`).
    TooManyConnections(u32),
    /// 429 (`template/team_sandbox_limit.go`).
    TeamSandboxLimit,
}

impl Fault {
    fn answer(&self, id: &str, port: u64) -> Response<Body> {
        let (status, message, extra): (StatusCode, String, Option<(&str, serde_json::Value)>) =
            match self {
                Fault::SandboxNotFound => return sandbox_not_found(id),
                Fault::RouteFailed => {
                    return go_http_error(
                        StatusCode::BAD_GATEWAY,
                        "Failed to route request to sandbox",
                    );
                }
                Fault::PortClosed => {
                    // portClosedError: sandboxId, message, port, code.
                    return proxy_json(
                        StatusCode::BAD_GATEWAY,
                        &[
                            ("sandboxId", id.into()),
                            ("message", "The sandbox is running but port is not open".into()),
                            ("port", port.into()),
                            ("code", 502.into()),
                        ],
                    );
                }
                Fault::StillTransitioning => (
                    StatusCode::CONFLICT,
                    "The sandbox is still transitioning. Try again in a moment.".into(),
                    None,
                ),
                Fault::ResumeDenied => (
                    StatusCode::FORBIDDEN,
                    "This sandbox can't be resumed with the credentials provided. Check your access token and try again.".into(),
                    None,
                ),
                Fault::TooManyConnections(limit) => (
                    StatusCode::TOO_MANY_REQUESTS,
                    format!(
                        "The sandbox has too many concurrent incoming connections (limit: {limit})"
                    ),
                    Some(("connectionLimit", (*limit).into())),
                ),
                Fault::TeamSandboxLimit => {
                    (StatusCode::TOO_MANY_REQUESTS, "Sandbox limit reached".into(), None)
                }
            };
        // The data structs: sandboxId, message, code (and connectionLimit after code).
        let mut fields = vec![
            ("sandboxId", id.into()),
            ("message", message.into()),
            ("code", status.as_u16().into()),
        ];
        fields.extend(extra);
        proxy_json(status, &fields)
    }
}

/// A control-plane answer given instead of forwarding ([`Edge::answer_next_api`]).
#[derive(Debug, Clone)]
struct ApiAnswer {
    method: String,
    path: String,
    status: StatusCode,
    message: String,
}

struct Shared {
    domain: String,
    upstream: String,
    forward: reqwest::Client,
    recorded: Mutex<Vec<Recorded>>,
    stop_connections: tokio::sync::watch::Sender<u64>,
    faults: Mutex<std::collections::VecDeque<Fault>>,
    api_answers: Mutex<Vec<ApiAnswer>>,
    /// The team's maximum sandbox length (`None`: unbounded) and when each sandbox made
    /// through the edge started.
    max_length: Mutex<Option<std::time::Duration>>,
    started: Mutex<std::collections::HashMap<String, std::time::Instant>>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

/// A running stand-in. Dropping it stops it.
pub struct Edge {
    /// `127.0.0.1:<port>`.
    pub address: SocketAddr,
    /// The test CA's certificate (PEM): what `DSH_E2B_CA_FILE` names.
    pub ca_file: PathBuf,
    pub domain: String,
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
    _dir: tempfile::TempDir,
}

impl Drop for Edge {
    fn drop(&mut self) {
        self.task.abort();
    }
}

pub type Error = Box<dyn std::error::Error + Send + Sync>;

impl Edge {
    /// Starts the edge for `domain` (e.g. `e2b.test`) in front of the daemon at
    /// `upstream` (`http://127.0.0.1:<port>`).
    pub async fn start(domain: &str, upstream: &str) -> Result<Self, Error> {
        let dir = tempfile::tempdir()?;
        let (ca_file, cert_file, key_file) = make_certificates(dir.path(), domain)?;
        use rustls::pki_types::pem::PemObject as _;
        let certs = rustls::pki_types::CertificateDer::pem_file_iter(&cert_file)?
            .collect::<Result<Vec<_>, _>>()?;
        let key = rustls::pki_types::PrivateKeyDer::from_pem_file(&key_file)?;
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()?
            .with_no_client_auth()
            .with_single_cert(certs, key)?;
        config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let address = listener.local_addr()?;
        let (stop_connections, _) = tokio::sync::watch::channel(0);
        let shared = Arc::new(Shared {
            domain: domain.to_owned(),
            upstream: upstream.trim_end_matches('/').to_owned(),
            forward: reqwest::Client::builder().build()?,
            recorded: Mutex::new(Vec::new()),
            stop_connections,
            faults: Mutex::new(std::collections::VecDeque::new()),
            api_answers: Mutex::new(Vec::new()),
            max_length: Mutex::new(None),
            started: Mutex::new(std::collections::HashMap::new()),
        });
        let served = Arc::clone(&shared);
        let task = tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let (acceptor, shared) = (acceptor.clone(), Arc::clone(&served));
                tokio::spawn(async move {
                    let _ = socket.set_nodelay(true);
                    if let Ok(tls) = acceptor.accept(socket).await {
                        serve_connection(tls, shared).await;
                    }
                });
            }
        });
        Ok(Self { address, ca_file, domain: domain.to_owned(), shared, task, _dir: dir })
    }

    /// What `DSH_E2B_RESOLVE` must say.
    pub fn resolve_rule(&self) -> String {
        format!("{}={}", self.domain, self.address.ip())
    }

    /// `E2B_DOMAIN` for clients: the domain with the edge's port.
    pub fn client_domain(&self) -> String {
        format!("{}:{}", self.domain, self.address.port())
    }

    /// `https://api.<domain>:<port>`.
    pub fn api_url(&self) -> String {
        format!("https://api.{}", self.client_domain())
    }

    /// `https://sandbox.<domain>:<port>`: E2B's shared sandbox host, where the routing
    /// headers pick the sandbox (what clients use on E2B's own domains).
    pub fn sandbox_url(&self) -> String {
        format!("https://sandbox.{}", self.client_domain())
    }

    /// Every request so far, oldest first.
    pub fn recorded(&self) -> Vec<Recorded> {
        lock(&self.shared.recorded).clone()
    }

    /// The next sandbox request (one that routes) is answered with `fault`, as E2B's
    /// proxy answers it; queued faults are used in order.
    pub fn fail_next(&self, fault: Fault) {
        lock(&self.shared.faults).push_back(fault);
    }

    /// The next control-plane request `method path` is answered `status` with E2B's API
    /// error body `{"code": status, "message": message}` (`apierrors.SendAPIStoreError`),
    /// without reaching the daemon.
    pub fn answer_next_api(&self, method: &str, path: &str, status: u16, message: &str) {
        lock(&self.shared.api_answers).push(ApiAnswer {
            method: method.to_owned(),
            path: path.to_owned(),
            status: StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            message: message.to_owned(),
        });
    }

    /// The team's maximum sandbox length: extending a sandbox made through the edge that
    /// has run longer is refused as E2B's API refuses it.
    pub fn set_max_instance_length(&self, length: std::time::Duration) {
        *lock(&self.shared.max_length) = Some(length);
    }

    /// Ends every open connection: h2 ones with GOAWAY, then the socket closes (streams
    /// still open are reset), as when the edge restarts.
    pub fn reset_connections(&self) {
        self.shared.stop_connections.send_modify(|n| *n += 1);
    }
}

async fn serve_connection(
    tls: tokio_rustls::server::TlsStream<tokio::net::TcpStream>,
    shared: Arc<Shared>,
) {
    let h2 = tls.get_ref().1.alpn_protocol() == Some(b"h2");
    let mut stop = shared.stop_connections.subscribe();
    let io = TokioIo::new(tls);
    let service = hyper::service::service_fn(move |request| {
        let shared = Arc::clone(&shared);
        async move { Ok::<_, Infallible>(route(&shared, request).await) }
    });
    if h2 {
        let connection = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
            .serve_connection(io, service);
        tokio::pin!(connection);
        tokio::select! {
            _ = &mut connection => {}
            _ = stop.changed() => {
                // GOAWAY, then a short grace before the socket is dropped.
                connection.as_mut().graceful_shutdown();
                let _ = tokio::time::timeout(std::time::Duration::from_millis(100), connection).await;
            }
        }
    } else {
        let connection = hyper::server::conn::http1::Builder::new()
            .serve_connection(io, service)
            .with_upgrades();
        tokio::select! {
            _ = connection => {}
            _ = stop.changed() => {}
        }
    }
}

fn json(status: StatusCode, body: serde_json::Value) -> Response<Body> {
    let mut response = Response::new(Body::from(body.to_string()));
    *response.status_mut() = status;
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    response
}

/// The JSON of the proxy's templated errors: `TemplatedError.HandleError` writes
/// `application/json; charset=utf-8` and the `json.Marshal` of the data, fields in the
/// order of the Go struct (packages/shared/pkg/proxy/template/template.go).
fn proxy_json(status: StatusCode, fields: &[(&str, serde_json::Value)]) -> Response<Body> {
    let members: Vec<String> = fields
        .iter()
        .map(|(name, value)| format!("{}:{value}", serde_json::Value::from(*name)))
        .collect();
    let mut response = Response::new(Body::from(format!("{{{}}}", members.join(","))));
    *response.status_mut() = status;
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json; charset=utf-8"),
    );
    response
}

/// Go's `http.Error(w, text, status)`: text/plain, `nosniff`, the text and a newline.
fn go_http_error(status: StatusCode, text: &str) -> Response<Body> {
    let mut response = Response::new(Body::from(format!("{text}\n")));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    headers.insert(
        hyper::header::X_CONTENT_TYPE_OPTIONS,
        hyper::header::HeaderValue::from_static("nosniff"),
    );
    response
}

/// template/sandbox_not_found.go, `NewSandboxNotFoundError`: 502.
fn sandbox_not_found(id: &str) -> Response<Body> {
    proxy_json(
        StatusCode::BAD_GATEWAY,
        &[
            ("sandboxId", id.into()),
            ("message", "The sandbox was not found".into()),
            ("code", 502.into()),
        ],
    )
}

/// E2B's API error body (`apierrors.SendAPIStoreError`: `{"code", "message"}`).
/// The paths of E2B's API (spec/openapi.yml at e2b-dev/infra 54693ff, `paths:`), each
/// segment in braces a parameter.
const E2B_API_PATHS: &[&str] = &[
    "/health",
    "/teams",
    "/teams/{teamID}/metrics",
    "/teams/{teamID}/metrics/max",
    "/sandboxes",
    "/v2/sandboxes",
    "/sandboxes/metrics",
    "/sandboxes/{sandboxID}/logs",
    "/v2/sandboxes/{sandboxID}/logs",
    "/sandboxes/{sandboxID}",
    "/sandboxes/{sandboxID}/metrics",
    "/sandboxes/{sandboxID}/pause",
    "/sandboxes/{sandboxID}/resume",
    "/sandboxes/{sandboxID}/fork",
    "/sandboxes/{sandboxID}/connect",
    "/sandboxes/{sandboxID}/timeout",
    "/sandboxes/{sandboxID}/network",
    "/sandboxes/{sandboxID}/refreshes",
    "/sandboxes/{sandboxID}/snapshots",
    "/snapshots",
    "/v3/templates",
    "/v2/templates",
    "/templates/{templateID}/files/{hash}",
    "/templates",
    "/templates/{templateID}",
    "/templates/{templateID}/builds/{buildID}",
    "/v2/templates/{templateID}/builds/{buildID}",
    "/v2/templates/{templateID}",
    "/templates/{templateID}/builds/{buildID}/status",
    "/templates/{templateID}/builds/{buildID}/logs",
    "/templates/tags",
    "/templates/{templateID}/tags",
    "/templates/aliases/{alias}",
    "/nodes",
    "/nodes/{nodeID}",
    "/admin/teams/{teamID}/sandboxes/kill",
    "/admin/sandboxes/running-counts",
    "/admin/teams/{teamID}/builds/cancel",
    "/admin/teams/{teamID}/api-keys",
    "/admin/teams/{teamID}/api-keys/{apiKeyID}",
    "/access-tokens",
    "/access-tokens/{accessTokenID}",
    "/api-keys",
    "/api-keys/{apiKeyID}",
    "/volumes",
    "/volumes/{volumeID}",
    "/secrets",
    "/secrets/{secretID}",
];

/// Whether a request path's `segments` match a path of E2B's API.
fn in_e2b_api(segments: &[&str]) -> bool {
    E2B_API_PATHS.iter().any(|template| {
        let parts: Vec<&str> = template.trim_matches('/').split('/').collect();
        parts.len() == segments.len()
            && parts.iter().zip(segments).all(|(part, segment)| {
                (part.starts_with('{') && !segment.is_empty()) || part == segment
            })
    })
}

fn api_error(status: StatusCode, message: &str) -> Response<Body> {
    json(status, serde_json::json!({"code": status.as_u16(), "message": message}))
}

/// Why the proxy cannot route a request: the `http.Error` text of handler.go.
#[derive(Debug, PartialEq, Eq)]
enum Unroutable {
    /// `MissingHeaderError`: "missing header".
    MissingHeader,
    /// `ErrInvalidHost`: "Invalid host".
    InvalidHost,
    /// `ErrInvalidSandboxID`: "Invalid sandbox ID".
    InvalidSandboxId,
    /// `InvalidSandboxPortError`: "Invalid sandbox port".
    InvalidSandboxPort,
}

impl Unroutable {
    fn answer(&self) -> Response<Body> {
        let text = match self {
            Unroutable::MissingHeader => "missing header",
            Unroutable::InvalidHost => "Invalid host",
            Unroutable::InvalidSandboxId => "Invalid sandbox ID",
            Unroutable::InvalidSandboxPort => "Invalid sandbox port",
        };
        go_http_error(StatusCode::BAD_REQUEST, text)
    }
}

/// packages/shared/pkg/id/id.go, `ValidateSandboxID`: `^[a-z0-9]+$`.
fn valid_sandbox_id(id: &str) -> bool {
    !id.is_empty() && id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
}

/// host.go, `GetTargetFromRequest`: the routing headers where the host is the shared
/// `sandbox.` one, an IP or `localhost` (`shouldParseHeaders`) and either header is set
/// (`hasRoutingHeaders`); else the host's left-most label as `<port>-<id>`
/// (`parseHost`). `host` is the request's `Host`, port included, as Go's `r.Host`.
fn target_of(host: &str, headers: &hyper::HeaderMap) -> Result<(String, u64), Unroutable> {
    let header =
        |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
    let hostname = hostname_of(host);
    let shared_host = hostname.strip_prefix("sandbox.").is_some_and(|rest| !rest.is_empty());
    let local_host = hostname == "localhost" || hostname.parse::<std::net::IpAddr>().is_ok();
    let (id, port) = (header("e2b-sandbox-id"), header("e2b-sandbox-port"));
    if (shared_host || local_host) && (!id.is_empty() || !port.is_empty()) {
        // parseHeaders: each header required once either is there.
        if id.is_empty() || port.is_empty() {
            return Err(Unroutable::MissingHeader);
        }
        let port = port.parse::<u64>().map_err(|_| Unroutable::InvalidSandboxPort)?;
        if !valid_sandbox_id(&id) {
            return Err(Unroutable::InvalidSandboxId);
        }
        return Ok((id, port));
    }
    // parseHost: "There must be always domain part used".
    let Some(dot) = host.find('.') else { return Err(Unroutable::InvalidHost) };
    let parts: Vec<&str> = host[..dot].split('-').collect();
    if parts.len() < 2 {
        return Err(Unroutable::InvalidHost);
    }
    let port = parts[0].parse::<u64>().map_err(|_| Unroutable::InvalidSandboxPort)?;
    let id = parts[1];
    if !valid_sandbox_id(id) {
        return Err(Unroutable::InvalidSandboxId);
    }
    Ok((id.to_owned(), port))
}

/// Go's `url.URL{Host: host}.Hostname()`: the host without its port (IPv6 unbracketed).
fn hostname_of(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split(']').next().unwrap_or_default();
    }
    host.rsplit_once(':').map_or(host, |(name, _)| name)
}

async fn route(shared: &Shared, request: Request<hyper::body::Incoming>) -> Response<Body> {
    let authority = request
        .uri()
        .authority()
        .map(|a| a.to_string())
        .or_else(|| {
            request
                .headers()
                .get(hyper::header::HOST)
                .and_then(|h| h.to_str().ok())
                .map(str::to_owned)
        })
        .unwrap_or_default();
    lock(&shared.recorded).push(Recorded {
        authority: authority.clone(),
        method: request.method().to_string(),
        path: request.uri().path().to_owned(),
        version: format!("{:?}", request.version()),
        headers: request
            .headers()
            .iter()
            .map(|(n, v)| {
                (n.as_str().to_owned(), String::from_utf8_lossy(v.as_bytes()).into_owned())
            })
            .collect(),
    });
    let hostname = hostname_of(&authority).to_ascii_lowercase();
    if hostname == format!("api.{}", shared.domain) {
        // packages/auth/pkg/auth/internal/middleware/middleware.go: no key is a 401
        // (`ErrNoAuthHeader`); the body's wording (the OpenAPI validator's) is not
        // reproduced.
        if !request.headers().contains_key("x-api-key") {
            return api_error(StatusCode::UNAUTHORIZED, "authorization header is missing");
        }
        return api(shared, request).await;
    }
    let (id, port) = match target_of(&authority, request.headers()) {
        Ok(target) => target,
        Err(unroutable) => return unroutable.answer(),
    };
    let fault = lock(&shared.faults).pop_front();
    if let Some(fault) = fault {
        return fault.answer(&id, port);
    }
    let request = request.map(Body::new);
    let response = forward(shared, request, Some((id.clone(), port.to_string()))).await;
    as_proxy_answer(response, &id, port).await
}

/// The daemon's router answers its own 502 JSON (`{"code":502,"message"}`) for a sandbox
/// it does not run; E2B's proxy answers "The sandbox was not found" in its own shape
/// (handler.go, `SandboxNotFoundError`), and for a sandbox whose envd it cannot reach the
/// text of pool/client.go's `ErrorHandler`; a closed port's is template/port_closed.go's.
async fn as_proxy_answer(response: Response<Body>, id: &str, port: u64) -> Response<Body> {
    if response.status() != StatusCode::BAD_GATEWAY {
        return response;
    }
    let bytes = response.into_body().collect().await.map(|b| b.to_bytes()).unwrap_or_default();
    let value: serde_json::Value = serde_json::from_slice(&bytes).unwrap_or_default();
    if value.get("port").is_some() {
        return Fault::PortClosed.answer(id, port);
    }
    let message = value.get("message").and_then(|m| m.as_str()).unwrap_or_default();
    if message.starts_with("envd of sandbox") {
        return go_http_error(StatusCode::BAD_GATEWAY, "Failed to route request to sandbox");
    }
    sandbox_not_found(id)
}

/// The control plane: E2B's API's own refusals first, then the daemon.
async fn api(shared: &Shared, request: Request<hyper::body::Incoming>) -> Response<Body> {
    let method = request.method().to_string();
    let path = request.uri().path().to_owned();
    let injected = {
        let mut answers = lock(&shared.api_answers);
        let at = answers.iter().position(|a| a.method == method && a.path == path);
        at.map(|at| answers.remove(at))
    };
    if let Some(answer) = injected {
        return api_error(answer.status, &answer.message);
    }
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    if !in_e2b_api(&segments) {
        // main.go (packages/api): every request passes oapi-codegen's validator against
        // spec/openapi.yml first; a path the spec does not have is its RouteError, which
        // the middleware answers 404 and utils/error.go `ErrorHandler` (its last line)
        // words as "validation error: ...". dsh's own routes (its layer store) are not
        // E2B's: a dsh reaching E2B meets this.
        return api_error(
            StatusCode::NOT_FOUND,
            "validation error: no matching operation was found",
        );
    }
    let checked = matches!(
        (method.as_str(), segments.as_slice()),
        ("POST", ["sandboxes"] | ["sandboxes", _, "timeout" | "resume" | "fork"])
    );
    if !checked {
        let response = forward(shared, request.map(Body::new), None).await;
        return without_daemon_domain(response).await;
    }
    // These bodies are small JSON: read whole, checked, sent on.
    let (parts, body) = request.into_parts();
    let Ok(bytes) = body.collect().await.map(|b| b.to_bytes()) else {
        return api_error(StatusCode::BAD_REQUEST, "Error when parsing request: body broke");
    };
    let timeout = serde_json::from_slice::<serde_json::Value>(&bytes)
        .ok()
        .and_then(|v| v.get("timeout").and_then(serde_json::Value::as_i64));
    if let ["sandboxes", id, "timeout"] = segments.as_slice() {
        if let Some(refused) = refuse_extension(shared, id).await {
            return refused;
        }
    } else if timeout.is_some_and(|t| t <= 0) {
        // timeout_helper.go, `validateAndParseTimeout` (create, resume, fork).
        return api_error(StatusCode::BAD_REQUEST, "Timeout must be greater than 0");
    }
    let request = Request::from_parts(parts, Body::from(bytes));
    let created = segments.as_slice() == ["sandboxes"];
    let response = forward(shared, request, None).await;
    let response = without_daemon_domain(response).await;
    if created && response.status().is_success() {
        return note_start(shared, response).await;
    }
    response
}

/// packages/api/internal/orchestrator/keep_alive.go, `KeepAliveFor`: a sandbox that is
/// not in the store of running ones (paused, gone) is 404 `SandboxNotFoundMsg`; one that
/// has run longer than the team's maximum length is 400 "Max instance length exceeded".
async fn refuse_extension(shared: &Shared, id: &str) -> Option<Response<Body>> {
    let not_found = || {
        api_error(
            StatusCode::NOT_FOUND,
            &format!(
                "Sandbox {} doesn't exist or you don't have access to it",
                serde_json::Value::from(id)
            ),
        )
    };
    let state = shared
        .forward
        .get(format!("{}/sandboxes/{id}", shared.upstream))
        .header("X-API-Key", lookup_key(shared))
        .send()
        .await
        .ok()?;
    if state.status() == StatusCode::NOT_FOUND {
        return Some(not_found());
    }
    let detail: serde_json::Value = state.json().await.ok()?;
    if detail.get("state").and_then(|s| s.as_str()) == Some("paused") {
        return Some(not_found());
    }
    let max = *lock(&shared.max_length);
    let started = lock(&shared.started).get(id).copied();
    if let (Some(max), Some(started)) = (max, started)
        && started.elapsed() > max
    {
        return Some(api_error(StatusCode::BAD_REQUEST, "Max instance length exceeded"));
    }
    None
}

/// The API key the last control-plane request carried (the edge asks the daemon with
/// it, as E2B's API reads its own store).
fn lookup_key(shared: &Shared) -> String {
    lock(&shared.recorded)
        .iter()
        .rev()
        .find_map(|r| r.header("x-api-key").map(str::to_owned))
        .unwrap_or_default()
}

/// Records when a sandbox made through the edge started (for the maximum length).
async fn note_start(shared: &Shared, response: Response<Body>) -> Response<Body> {
    let (parts, body) = response.into_parts();
    let bytes = body.collect().await.map(|b| b.to_bytes()).unwrap_or_default();
    if let Some(id) = serde_json::from_slice::<serde_json::Value>(&bytes)
        .ok()
        .and_then(|v| v.get("sandboxID").and_then(|i| i.as_str()).map(str::to_owned))
    {
        lock(&shared.started).insert(id, std::time::Instant::now());
    }
    Response::from_parts(parts, Body::from(bytes))
}

/// The daemon names its own domain (`localhost`) in create and connect answers; E2B's
/// API answers `domain: null` for its own, so clients use the configured `E2B_DOMAIN`.
async fn without_daemon_domain(response: Response<Body>) -> Response<Body> {
    let json_answer = response
        .headers()
        .get(hyper::header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if !json_answer {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = body.collect().await.map(|b| b.to_bytes()) else {
        return json(
            StatusCode::BAD_GATEWAY,
            serde_json::json!({"code": 502, "message": "upstream body broke"}),
        );
    };
    let bytes = match serde_json::from_slice::<serde_json::Value>(&bytes) {
        Ok(mut value) if value.get("domain").is_some() => {
            value["domain"] = serde_json::Value::Null;
            bytes::Bytes::from(value.to_string())
        }
        _ => bytes,
    };
    parts.headers.remove(hyper::header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(bytes))
}

/// Forwards to the daemon over HTTP/1.1, bodies streamed both ways.
async fn forward(
    shared: &Shared,
    request: Request<Body>,
    sandbox: Option<(String, String)>,
) -> Response<Body> {
    let (parts, body) = request.into_parts();
    let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let url = format!("{}{path}", shared.upstream);
    let mut outgoing = shared.forward.request(parts.method.clone(), url);
    for (name, value) in &parts.headers {
        if name == hyper::header::HOST || name == hyper::header::CONNECTION || name == "te" {
            continue;
        }
        outgoing = outgoing.header(name, value);
    }
    if let Some((id, port)) = sandbox {
        outgoing = outgoing.header("E2b-Sandbox-Id", id).header("E2b-Sandbox-Port", port);
    }
    let stream = TryStreamExt::map_err(body.into_data_stream(), std::io::Error::other);
    let outgoing = outgoing.body(reqwest::Body::wrap_stream(stream));
    match outgoing.send().await {
        Ok(answer) => {
            let mut response = Response::builder().status(answer.status().as_u16());
            for (name, value) in answer.headers() {
                if name == hyper::header::CONNECTION || name == hyper::header::TRANSFER_ENCODING {
                    continue;
                }
                response = response.header(name, value);
            }
            let body = Body::from_stream(answer.bytes_stream());
            response.body(body).unwrap_or_else(|_| {
                json(
                    StatusCode::BAD_GATEWAY,
                    serde_json::json!({"code": 502, "message": "bad upstream answer"}),
                )
            })
        }
        Err(err) => json(
            StatusCode::BAD_GATEWAY,
            serde_json::json!({"code": 502, "message": format!("upstream: {err}")}),
        ),
    }
}

/// A test CA and a certificate for `domain` and `*.domain`, made with `openssl`.
fn make_certificates(dir: &Path, domain: &str) -> Result<(PathBuf, PathBuf, PathBuf), Error> {
    let run = |args: &[&str]| -> Result<(), Error> {
        let output = std::process::Command::new("openssl").args(args).current_dir(dir).output()?;
        if output.status.success() {
            Ok(())
        } else {
            Err(format!("openssl {args:?}: {}", String::from_utf8_lossy(&output.stderr)).into())
        }
    };
    run(&[
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "2",
        "-subj",
        "/CN=dsh edge stand-in test CA",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign",
    ])?;
    run(&[
        "req",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-keyout",
        "edge.key",
        "-out",
        "edge.csr",
        "-subj",
        &format!("/CN=*.{domain}"),
    ])?;
    std::fs::write(
        dir.join("edge.ext"),
        format!(
            "subjectAltName=DNS:{domain},DNS:*.{domain}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
        ),
    )?;
    run(&[
        "x509",
        "-req",
        "-in",
        "edge.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "edge.pem",
        "-days",
        "2",
        "-extfile",
        "edge.ext",
    ])?;
    Ok((dir.join("ca.pem"), dir.join("edge.pem"), dir.join("edge.key")))
}
