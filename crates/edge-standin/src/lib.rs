//! A stand-in for E2B's edge, for tests only: E2B cloud cannot be reached from CI, and
//! nothing may leave the machine. It listens on 127.0.0.1 with TLS (a test CA made with
//! `openssl` at start), offers ALPN `h2` and `http/1.1`, and routes by authority as E2B's
//! edge does:
//! - `api.<domain>`: the control plane, forwarded to a local `dsh-sandboxd` (which
//!   checks `X-API-Key`; the edge refuses a request without one first);
//! - `sandbox.<domain>`: envd, picked by `E2b-Sandbox-Id` / `E2b-Sandbox-Port` (both
//!   required);
//! - `<port>-<id>.<domain>`: the port of a sandbox, by name.
//!
//! A sandbox the daemon does not know (killed, never made) gets E2B's 502 JSON (from the
//! daemon's router, which answers as E2B does). Every request's authority, headers and
//! HTTP version is recorded. [`Edge::reset_connections`] ends every open connection (an
//! h2 one with GOAWAY first), as an edge restart would.
//!
//! Clients reach it with `DSH_E2B_RESOLVE=<domain>=127.0.0.1` and
//! `DSH_E2B_CA_FILE=<ca.pem>` (see dsh-e2b), and `E2B_DOMAIN=<domain>:<port>`.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use axum::body::Body;
use futures_util::TryStreamExt as _;
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

struct Shared {
    domain: String,
    upstream: String,
    forward: reqwest::Client,
    recorded: Mutex<Vec<Recorded>>,
    stop_connections: tokio::sync::watch::Sender<u64>,
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

    /// Every request so far, oldest first.
    pub fn recorded(&self) -> Vec<Recorded> {
        self.shared.recorded.lock().unwrap_or_else(|p| p.into_inner()).clone()
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
    shared.recorded.lock().unwrap_or_else(|p| p.into_inner()).push(Recorded {
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
    let host =
        authority.rsplit_once(':').map_or(authority.as_str(), |(h, _)| h).to_ascii_lowercase();
    let Some(label) = host.strip_suffix(&format!(".{}", shared.domain)) else {
        return json(
            StatusCode::MISDIRECTED_REQUEST,
            serde_json::json!({"code": 421, "message": format!("unknown host {host}")}),
        );
    };
    let mut sandbox: Option<(String, String)> = None;
    match label {
        "api" => {
            if !request.headers().contains_key("x-api-key") {
                return json(
                    StatusCode::UNAUTHORIZED,
                    serde_json::json!({"code": 401, "message": "missing X-API-Key"}),
                );
            }
        }
        "sandbox" => {
            let header = |name: &str| {
                request.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_owned)
            };
            match (header("e2b-sandbox-id"), header("e2b-sandbox-port")) {
                (Some(id), Some(port)) => sandbox = Some((id, port)),
                _ => {
                    return json(
                        StatusCode::BAD_REQUEST,
                        serde_json::json!({"code": 400, "message": "E2b-Sandbox-Id and E2b-Sandbox-Port are required on sandbox.<domain>"}),
                    );
                }
            }
        }
        other => match other.split_once('-') {
            Some((port, id)) if port.parse::<u16>().is_ok() && !id.is_empty() => {
                sandbox = Some((id.to_owned(), port.to_owned()));
            }
            _ => {
                return json(
                    StatusCode::BAD_GATEWAY,
                    serde_json::json!({"code": 502, "message": format!("The sandbox was not found: {other}"), "sandboxId": other}),
                );
            }
        },
    }
    let api = sandbox.is_none();
    let response = forward(shared, request, sandbox).await;
    if api { without_daemon_domain(response).await } else { response }
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
    request: Request<hyper::body::Incoming>,
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
    let stream = body.into_data_stream().map_err(std::io::Error::other);
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
