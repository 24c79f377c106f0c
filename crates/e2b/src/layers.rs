//! The layer API of a local dsh-sandboxd: read-only, content-addressed directories the
//! daemon builds once per machine (npm packages, for now) and mounts into every sandbox.
//! Same control plane and `X-API-Key` as `/sandboxes`; E2B cloud and older daemons have
//! no such API and answer 404, which is [`LayerError::Unsupported`].

use std::time::Duration;

use serde::Deserialize;

use crate::control::ControlPlane;
use crate::error::Error;
use crate::sandbox::Connection;

/// How long `POST /layers` may take: the daemon builds within 10 minutes, plus margin
/// for the answer to arrive.
pub const PROVIDE_TIMEOUT: Duration = Duration::from_secs(11 * 60);

/// How long listing may take (the daemon answers from memory).
const LIST_TIMEOUT: Duration = Duration::from_secs(60);

pub use dsh_proto::control::{Layer, LayerRecipe as Recipe};

/// The answer to [`Layers::provide_npm`]: the layer, and whether it had to be built.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ProvidedLayer {
    #[serde(flatten)]
    pub layer: Layer,
    /// It existed already (no build ran for this request).
    pub cached: bool,
}

/// Why a layer could not be had. Only [`LayerError::Unsupported`] means "do it another
/// way"; the others are the daemon's answer about this recipe.
#[derive(Debug, thiserror::Error)]
pub enum LayerError {
    /// The control plane has no layer API (E2B cloud, a daemon older than layers).
    #[error("the control plane has no layer API")]
    Unsupported,
    /// The daemon refused the recipe (400): it takes exact versions of registry packages
    /// only, where npm itself takes more (ranges, local paths).
    #[error("the daemon refused the layer recipe: {0}")]
    BadRecipe(String),
    /// This daemon cannot build layers (503); the message says why.
    #[error("layers are unavailable on this daemon: {0}")]
    Unavailable(String),
    /// The build ran and failed (500; 504 when it ran out of time); the message carries
    /// npm's stderr tail.
    #[error("building the layer failed: {0}")]
    BuildFailed(String),
    /// Anything else: another status, the connection, an unreadable answer.
    #[error(transparent)]
    Client(#[from] Error),
}

/// A client of one control plane's layer API.
#[derive(Debug, Clone)]
pub struct Layers {
    plane: ControlPlane,
}

impl Layers {
    pub fn new(
        http: reqwest::Client,
        api_url: impl Into<String>,
        api_key: impl Into<String>,
    ) -> Self {
        Self { plane: ControlPlane::new(http, api_url, api_key) }
    }

    /// The layer API of the control plane `connection` names.
    pub fn for_connection(http: reqwest::Client, connection: &Connection) -> Self {
        Self::new(http, &connection.api_url, &connection.api_key)
    }

    pub fn api_url(&self) -> &str {
        self.plane.api_url()
    }

    /// A layer holding the npm packages `specs` (as `npm install` takes them, e.g.
    /// `pyright@1.1.414`), built by the daemon unless it has it. Blocks while it builds
    /// (up to [`PROVIDE_TIMEOUT`]); once it answers, the layer is mounted in every sandbox.
    pub async fn provide_npm(&self, specs: &[String]) -> Result<ProvidedLayer, LayerError> {
        let request = self
            .plane
            .request(reqwest::Method::POST, "/layers")
            .timeout(PROVIDE_TIMEOUT)
            .json(&serde_json::json!({ "npm": specs }));
        let (status, body) = self.plane.send(request).await?;
        answer(status, &body)
    }

    /// Every layer the daemon has.
    pub async fn list(&self) -> Result<Vec<Layer>, LayerError> {
        let request = self.plane.request(reqwest::Method::GET, "/layers").timeout(LIST_TIMEOUT);
        let (status, body) = self.plane.send(request).await?;
        answer(status, &body)
    }
}

/// The typed answer, or the error its status means.
fn answer<T: for<'de> Deserialize<'de>>(status: u16, body: &[u8]) -> Result<T, LayerError> {
    if (200..300).contains(&status) {
        return serde_json::from_slice(body).map_err(|err| {
            LayerError::Client(Error::Protocol(format!("unreadable layer answer: {err}")))
        });
    }
    let message = || match crate::envd::http_error(status, body) {
        Error::Http { message, .. } => message,
        other => other.to_string(),
    };
    Err(match status {
        404 => LayerError::Unsupported,
        400 => LayerError::BadRecipe(message()),
        // The daemon's message repeats what the variant says.
        503 => LayerError::Unavailable(
            message()
                .strip_prefix("layers are unavailable on this daemon: ")
                .map_or_else(message, str::to_owned),
        ),
        500 | 504 => LayerError::BuildFailed(message()),
        _ => LayerError::Client(crate::envd::http_error(status, body)),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::path::PathBuf;

    const ID: &str = "sha256-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn answers_parse_into_layers_and_statuses_into_typed_errors() {
        let body = format!(
            r#"{{"layerID":"{ID}","path":"/.dsh/layers/{ID}","bin":"/.dsh/layers/{ID}/node_modules/.bin","cached":false,"buildMs":23456,"bytes":1048576,"files":412}}"#
        );
        let provided: ProvidedLayer = answer(200, body.as_bytes()).unwrap();
        assert_eq!(
            provided,
            ProvidedLayer {
                layer: Layer {
                    layer_id: ID.into(),
                    path: PathBuf::from(format!("/.dsh/layers/{ID}")),
                    bin: PathBuf::from(format!("/.dsh/layers/{ID}/node_modules/.bin")),
                    bytes: 1_048_576,
                    files: 412,
                    build_ms: 23456,
                    recipe: None,
                },
                cached: false,
            }
        );
        let listed: Vec<Layer> = answer(
            200,
            format!(r#"[{{"layerID":"{ID}","path":"/p","bin":"/p/b","recipe":{{"npm":["a@1.0.0"]}},"bytes":1,"files":2,"buildMs":3}}]"#)
                .as_bytes(),
        )
        .unwrap();
        assert_eq!(
            (listed.len(), listed[0].bin.to_str(), listed[0].build_ms),
            (1, Some("/p/b"), 3)
        );
        assert_eq!(listed[0].recipe, Some(Recipe { npm: vec!["a@1.0.0".into()] }));

        let error = |status: u16, body: &str| answer::<ProvidedLayer>(status, body.as_bytes());
        assert!(matches!(error(404, "404 page not found"), Err(LayerError::Unsupported)));
        let bad = error(400, r#"{"code":400,"message":"npm: \"x y\" is not a package spec"}"#);
        assert!(
            matches!(bad, Err(LayerError::BadRecipe(m)) if m == "npm: \"x y\" is not a package spec")
        );
        let off = error(
            503,
            r#"{"code":503,"message":"layers are unavailable on this daemon: no npm on the host"}"#,
        );
        assert!(matches!(off, Err(LayerError::Unavailable(m)) if m == "no npm on the host"));
        let late =
            error(504, r#"{"code":504,"message":"building the layer took longer than 600s"}"#);
        assert!(
            matches!(late, Err(LayerError::BuildFailed(m)) if m == "building the layer took longer than 600s")
        );
        let failed = error(500, r#"{"code":500,"message":"npm ERR! 404 Not Found - nope"}"#);
        assert_eq!(
            failed.unwrap_err().to_string(),
            "building the layer failed: npm ERR! 404 Not Found - nope"
        );
        assert!(matches!(
            error(401, r#"{"code":401,"message":"bad key"}"#),
            Err(LayerError::Client(Error::Http { status: 401, .. }))
        ));
        assert!(matches!(
            error(200, "{}"),
            Err(LayerError::Client(Error::Protocol(m))) if m.starts_with("unreadable layer answer")
        ));
    }
}
