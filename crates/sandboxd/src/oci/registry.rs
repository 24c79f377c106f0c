//! A small client for the Docker Registry HTTP API v2 / OCI distribution spec: manifests,
//! blobs, and the auth a registry asks for in `WWW-Authenticate` (a Bearer token from its
//! token service, anonymous or with a username and password, or Basic).
//!
//! Written over the workspace's reqwest rather than taken from `oci-client`, whose
//! `oci-spec` dependency brings a tree of proc-macro crates for a few JSON structs.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderValue, WWW_AUTHENTICATE};
use reqwest::{Response, StatusCode, Url};

use super::error::ImageError;
use super::options::{PullOptions, RegistryAuth};
use super::reference::Reference;

pub const OCI_INDEX: &str = "application/vnd.oci.image.index.v1+json";
pub const OCI_MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";
pub const DOCKER_LIST: &str = "application/vnd.docker.distribution.manifest.list.v2+json";
pub const DOCKER_MANIFEST: &str = "application/vnd.docker.distribution.manifest.v2+json";
const MANIFEST_ACCEPT: &str = "application/vnd.oci.image.index.v1+json, application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.list.v2+json, application/vnd.docker.distribution.manifest.v2+json";
/// A token service's answer is a small JSON object.
const MAX_TOKEN_BYTES: usize = 1 << 20;
/// How much of an error body ends up in a message.
const ERROR_BODY: usize = 512;
const MAX_REDIRECTS: usize = 5;

/// Whether `host[:port]` may be spoken to in plain http: loopback, or listed by the operator.
pub fn plain_http_allowed(host_port: &str, listed: &[String]) -> bool {
    if listed.iter().any(|l| l.eq_ignore_ascii_case(host_port)) {
        return true;
    }
    let host = match host_port.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(v6),
        None => host_port.rsplit_once(':').map_or(host_port, |(host, _)| host),
    };
    if host.eq_ignore_ascii_case("localhost") {
        return true;
    }
    host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Whether a URL the registry sent us to (a redirect, a token realm) may be followed: https,
/// or plain http to a host that may be spoken to in plain http.
fn url_allowed(url: &Url, listed: &[String]) -> bool {
    match url.scheme() {
        "https" => true,
        "http" => {
            let host = match (url.host_str(), url.port()) {
                (Some(host), Some(port)) => format!("{host}:{port}"),
                (Some(host), None) => host.to_owned(),
                (None, _) => return false,
            };
            plain_http_allowed(&host, listed)
                || url.host_str().is_some_and(|h| plain_http_allowed(h, listed))
        }
        _ => false,
    }
}

pub fn client(options: &PullOptions) -> Result<reqwest::Client, ImageError> {
    let listed = Arc::new(options.plain_http.clone());
    let policy = reqwest::redirect::Policy::custom(move |attempt| {
        if attempt.previous().len() >= MAX_REDIRECTS {
            attempt.error("too many redirects")
        } else if url_allowed(attempt.url(), &listed) {
            attempt.follow()
        } else {
            attempt.error("redirected to plain http on a host not allowed plain http")
        }
    });
    reqwest::Client::builder()
        .connect_timeout(options.connect_timeout)
        .read_timeout(options.read_timeout)
        .redirect(policy)
        .user_agent(concat!("dsh-sandboxd/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| ImageError::Registry(format!("cannot build the HTTP client: {e}")))
}

/// One pull's conversation with one repository of one registry; remembers the auth the
/// registry asked for so later requests send it up front.
pub struct Session<'a> {
    client: &'a reqwest::Client,
    options: &'a PullOptions,
    base: String,
    /// For messages: the reference as the caller wrote it.
    name: String,
    repository: String,
    auth: Option<&'a RegistryAuth>,
    authorization: Option<HeaderValue>,
}

impl<'a> Session<'a> {
    pub fn new(
        client: &'a reqwest::Client,
        options: &'a PullOptions,
        reference: &Reference,
        name: &str,
        auth: Option<&'a RegistryAuth>,
    ) -> Session<'a> {
        let scheme = if plain_http_allowed(&reference.registry, &options.plain_http) {
            "http"
        } else {
            "https"
        };
        Session {
            client,
            options,
            base: format!("{scheme}://{}/v2/{}", reference.registry, reference.repository),
            name: name.to_owned(),
            repository: reference.repository.clone(),
            auth,
            authorization: None,
        }
    }

    /// GET a manifest by tag or digest: its bytes (at most `max_manifest_bytes`) and the
    /// media type the registry served it as.
    pub async fn manifest(&mut self, manifest_ref: &str) -> Result<(Vec<u8>, String), ImageError> {
        let url = format!("{}/manifests/{manifest_ref}", self.base);
        let response =
            self.get(&url, Some(MANIFEST_ACCEPT), self.options.request_timeout, "manifest").await?;
        let media_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.split(';').next().unwrap_or(v).trim().to_owned())
            .unwrap_or_default();
        let body =
            read_capped(response, self.options.max_manifest_bytes, &self.name, "manifest").await?;
        Ok((body, media_type))
    }

    /// GET a blob; the caller streams its body (`Response::chunk`) and checks its digest.
    pub async fn blob(&mut self, digest: &str, timeout: Duration) -> Result<Response, ImageError> {
        let url = format!("{}/blobs/{digest}", self.base);
        self.get(&url, None, timeout, "blob").await
    }

    /// A small blob read whole (the image config), capped.
    pub async fn small_blob(&mut self, digest: &str, cap: u64) -> Result<Vec<u8>, ImageError> {
        let response = self.blob(digest, self.options.request_timeout).await?;
        read_capped(response, cap, &self.name, "config").await
    }

    async fn get(
        &mut self,
        url: &str,
        accept: Option<&str>,
        timeout: Duration,
        what: &str,
    ) -> Result<Response, ImageError> {
        let mut retried = false;
        loop {
            let mut request = self.client.get(url).timeout(timeout);
            if let Some(accept) = accept {
                request = request.header(ACCEPT, accept);
            }
            if let Some(authorization) = &self.authorization {
                request = request.header(AUTHORIZATION, authorization.clone());
            }
            let response = request.send().await.map_err(|e| self.transport(e, what))?;
            let status = response.status();
            if status.is_success() {
                return Ok(response);
            }
            if status == StatusCode::UNAUTHORIZED && !retried {
                let challenge = response
                    .headers()
                    .get(WWW_AUTHENTICATE)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned);
                if let Some(challenge) = challenge {
                    self.authorization = Some(self.answer(&challenge).await?);
                    retried = true;
                    continue;
                }
            }
            return Err(self.status_error(response, what).await);
        }
    }

    /// The `Authorization` header that answers a `WWW-Authenticate` challenge.
    async fn answer(&self, challenge: &str) -> Result<HeaderValue, ImageError> {
        let (scheme, params) = parse_challenge(challenge);
        if scheme.eq_ignore_ascii_case("basic") {
            let Some(auth) = self.auth else {
                return Err(ImageError::Unauthorized(format!(
                    "{}: the registry requires a username and password",
                    self.name
                )));
            };
            return header(&basic(auth));
        }
        if !scheme.eq_ignore_ascii_case("bearer") {
            return Err(ImageError::Unsupported(format!(
                "{}: the registry asks for {scheme:?} auth (only Bearer and Basic are supported)",
                self.name
            )));
        }
        let realm = params.get("realm").ok_or_else(|| {
            ImageError::Registry(format!("{}: a Bearer challenge without a realm", self.name))
        })?;
        let realm = Url::parse(realm).map_err(|e| {
            ImageError::Registry(format!("{}: bad token realm {realm:?}: {e}", self.name))
        })?;
        if !url_allowed(&realm, &self.options.plain_http) {
            return Err(ImageError::Registry(format!(
                "{}: the token realm {realm} is plain http on a host not allowed plain http",
                self.name
            )));
        }
        let scope = params
            .get("scope")
            .cloned()
            .unwrap_or_else(|| format!("repository:{}:pull", self.repository));
        let mut query = vec![("scope", scope.as_str())];
        if let Some(service) = params.get("service") {
            query.push(("service", service.as_str()));
        }
        let mut request =
            self.client.get(realm).query(&query).timeout(self.options.request_timeout);
        if let Some(auth) = self.auth {
            request = request.basic_auth(&auth.username, Some(&auth.password));
        }
        let response = request.send().await.map_err(|e| self.transport(e, "token"))?;
        let status = response.status();
        if status == StatusCode::UNAUTHORIZED || status == StatusCode::FORBIDDEN {
            return Err(ImageError::Unauthorized(format!(
                "{}: the token service refused {} ({status})",
                self.name,
                if self.auth.is_some() { "these credentials" } else { "an anonymous token" }
            )));
        }
        if !status.is_success() {
            return Err(self.status_error(response, "token").await);
        }
        let body = read_capped(response, MAX_TOKEN_BYTES as u64, &self.name, "token").await?;
        #[derive(serde::Deserialize)]
        struct Token {
            token: Option<String>,
            access_token: Option<String>,
        }
        let token: Token = serde_json::from_slice(&body).map_err(|e| {
            ImageError::Registry(format!(
                "{}: the token service's answer is not JSON: {e}",
                self.name
            ))
        })?;
        let token =
            token.token.or(token.access_token).filter(|t| !t.is_empty()).ok_or_else(|| {
                ImageError::Registry(format!("{}: the token service returned no token", self.name))
            })?;
        header(&format!("Bearer {token}"))
    }

    fn transport(&self, error: reqwest::Error, what: &str) -> ImageError {
        if error.is_timeout() {
            ImageError::TimedOut(format!("{}: the {what} request timed out", self.name))
        } else {
            // Chain the sources: reqwest's top-level message hides "connection refused".
            let mut message = error.to_string();
            let mut source = std::error::Error::source(&error);
            while let Some(inner) = source {
                message.push_str(": ");
                message.push_str(&inner.to_string());
                source = inner.source();
            }
            ImageError::Registry(format!("{}: {what} request failed: {message}", self.name))
        }
    }

    async fn status_error(&self, response: Response, what: &str) -> ImageError {
        let status = response.status();
        let body = read_capped(response, 64 * 1024, &self.name, what).await.unwrap_or_default();
        let detail = registry_errors(&body);
        let name = &self.name;
        match status {
            StatusCode::NOT_FOUND => {
                ImageError::NotFound(format!("{name}: {what} not found{detail}"))
            }
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => ImageError::Unauthorized(format!(
                "{name}: {what} access denied ({status}){detail}{}",
                if self.auth.is_some() {
                    ""
                } else {
                    " (the repository may need credentials, or may not exist)"
                }
            )),
            _ => ImageError::Registry(format!("{name}: {what} request answered {status}{detail}")),
        }
    }
}

fn basic(auth: &RegistryAuth) -> String {
    use base64::Engine;
    let raw = format!("{}:{}", auth.username, auth.password);
    format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(raw))
}

fn header(value: &str) -> Result<HeaderValue, ImageError> {
    let mut value = HeaderValue::from_str(value)
        .map_err(|_| ImageError::Registry("credentials or token are not a valid header".into()))?;
    value.set_sensitive(true);
    Ok(value)
}

/// `{"errors":[{"code":"MANIFEST_UNKNOWN","message":"…"}]}` → `: MANIFEST_UNKNOWN: …`.
fn registry_errors(body: &[u8]) -> String {
    #[derive(serde::Deserialize)]
    struct Errors {
        errors: Vec<Entry>,
    }
    #[derive(serde::Deserialize)]
    struct Entry {
        #[serde(default)]
        code: String,
        #[serde(default)]
        message: String,
    }
    match serde_json::from_slice::<Errors>(body) {
        Ok(errors) if !errors.errors.is_empty() => errors
            .errors
            .iter()
            .map(|e| format!(": {} {}", e.code, e.message))
            .collect::<String>()
            .chars()
            .take(ERROR_BODY)
            .collect(),
        _ => String::new(),
    }
}

/// A body read whole, refused once it passes `cap` bytes.
async fn read_capped(
    mut response: Response,
    cap: u64,
    name: &str,
    what: &str,
) -> Result<Vec<u8>, ImageError> {
    let too_large =
        || ImageError::TooLarge(format!("{name}: the {what} is larger than {cap} bytes"));
    if response.content_length().is_some_and(|len| len > cap) {
        return Err(too_large());
    }
    let mut body = Vec::new();
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                if (body.len() + chunk.len()) as u64 > cap {
                    return Err(too_large());
                }
                body.extend_from_slice(&chunk);
            }
            Ok(None) => return Ok(body),
            Err(e) if e.is_timeout() => {
                return Err(ImageError::TimedOut(format!("{name}: reading the {what} timed out")));
            }
            Err(e) => return Err(ImageError::Registry(format!("{name}: reading the {what}: {e}"))),
        }
    }
}

/// `Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="a,b"`
/// → (`Bearer`, {realm, service, scope}). Quoted values may hold commas.
fn parse_challenge(challenge: &str) -> (String, HashMap<String, String>) {
    let challenge = challenge.trim();
    let (scheme, rest) = challenge.split_once(' ').unwrap_or((challenge, ""));
    let mut params = HashMap::new();
    let mut chars = rest.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| *c == ',' || c.is_whitespace()) {
            chars.next();
        }
        let key: String = chars.by_ref().take_while(|c| *c != '=').collect();
        if key.is_empty() {
            break;
        }
        let mut value = String::new();
        if chars.peek() == Some(&'"') {
            chars.next();
            while let Some(c) = chars.next() {
                match c {
                    '\\' => value.extend(chars.next()),
                    '"' => break,
                    c => value.push(c),
                }
            }
        } else {
            while let Some(c) = chars.next_if(|c| *c != ',') {
                value.push(c);
            }
        }
        params.insert(key.trim().to_ascii_lowercase(), value);
    }
    (scheme.to_owned(), params)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn challenges() {
        let (scheme, params) = parse_challenge(
            r#"Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:a/b:pull,push""#,
        );
        assert_eq!(scheme, "Bearer");
        assert_eq!(params["realm"], "https://auth.docker.io/token");
        assert_eq!(params["service"], "registry.docker.io");
        assert_eq!(params["scope"], "repository:a/b:pull,push");
        let (scheme, params) = parse_challenge(r#"Basic realm="Registry Realm""#);
        assert_eq!(scheme, "Basic");
        assert_eq!(params["realm"], "Registry Realm");
    }

    #[test]
    fn plain_http_only_on_loopback_or_listed() {
        for ok in ["127.0.0.1:5000", "127.9.9.9", "localhost:5000", "[::1]:5000", "LOCALHOST"] {
            assert!(plain_http_allowed(ok, &[]), "{ok}");
        }
        for no in ["registry-1.docker.io", "10.0.0.1:5000", "127.0.0.1.nip.io:80", "[::2]:5000"] {
            assert!(!plain_http_allowed(no, &[]), "{no}");
        }
        assert!(plain_http_allowed("reg.lan:5000", &["reg.lan:5000".to_owned()]));
        let listed = ["reg.lan:5000".to_owned()];
        assert!(url_allowed(&Url::parse("http://reg.lan:5000/x").unwrap(), &listed));
        assert!(!url_allowed(&Url::parse("http://reg.lan/x").unwrap(), &listed));
        assert!(url_allowed(&Url::parse("https://example.com/x").unwrap(), &[]));
        assert!(!url_allowed(&Url::parse("ftp://example.com/x").unwrap(), &[]));
    }
}
