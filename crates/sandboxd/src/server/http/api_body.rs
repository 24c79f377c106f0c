//! What the control plane's handlers share about requests: JSON bodies read and checked
//! (415 for what is not JSON, errors that name the field), limits and runtimes checked,
//! the API key compared in constant time, and operations a hang-up cannot cut short.

use std::future::Future;

use axum::body::Bytes;
use axum::extract::Request;
use axum::http::{HeaderMap, StatusCode};
use serde::de::DeserializeOwned;

use crate::server::ApiError;
use crate::server::context::Control;

pub(crate) type ApiResult<T> = Result<T, ApiError>;

/// Bounds of the create request's cpuCount and memoryMB.
pub(crate) const MAX_CPU_COUNT: u64 = 256;
pub(crate) const MIN_MEMORY_MB: u64 = 128;
pub(crate) const MAX_MEMORY_MB: u64 = 1 << 20;

pub(crate) fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    subtle::ConstantTimeEq::ct_eq(a, b).into()
}

/// JSON body; an empty body is the type's default. A body sent as something else than
/// JSON (a form, text) is refused (415) rather than guessed at; a body without a
/// Content-Type is read as JSON, as E2B's API does. Errors name the field
/// (`metadata.team: invalid type: ...`).
pub(crate) fn parse_body<T: DeserializeOwned + Default>(
    content_type: Option<&str>,
    body: &[u8],
) -> ApiResult<T> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(T::default());
    }
    if let Some(content_type) = content_type {
        let essence = content_type.split(';').next().unwrap_or_default().trim();
        let json = essence.eq_ignore_ascii_case("application/json")
            || essence.to_ascii_lowercase().ends_with("+json");
        if !json {
            return Err(ApiError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                format!("the body must be JSON (Content-Type: application/json), not {essence:?}"),
            ));
        }
    }
    let mut deserializer = serde_json::Deserializer::from_slice(body);
    let value: T = serde_path_to_error::deserialize(&mut deserializer).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        match path.as_str() {
            "." | "" => ApiError::bad_request(format!("invalid request body: {inner}")),
            field => ApiError::bad_request(format!("invalid request body: {field}: {inner}")),
        }
    })?;
    deserializer.end().map_err(|e| ApiError::bad_request(format!("invalid request body: {e}")))?;
    Ok(value)
}

pub(crate) fn content_type(headers: &HeaderMap) -> Option<&str> {
    headers.get(axum::http::header::CONTENT_TYPE).map(|v| v.to_str().unwrap_or("(not text)"))
}

/// A handler's JSON body, read and checked by [`parse_body`].
pub(crate) struct JsonBody<T>(pub T);

impl<T: DeserializeOwned + Default, St: Send + Sync> axum::extract::FromRequest<St>
    for JsonBody<T>
{
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &St) -> Result<Self, ApiError> {
        let content_type = content_type(request.headers()).map(str::to_owned);
        let bytes = Bytes::from_request(request, state)
            .await
            .map_err(|e| ApiError::new(e.status(), e.body_text()))?;
        parse_body(content_type.as_deref(), &bytes).map(JsonBody)
    }
}

/// Runs a lifecycle operation in its own task, so a client that hangs up mid-request
/// cannot leave a sandbox half-created or half-stopped.
pub(crate) async fn detached<T: Send + 'static>(
    operation: impl Future<Output = ApiResult<T>> + Send + 'static,
) -> ApiResult<T> {
    tokio::spawn(operation)
        .await
        .unwrap_or_else(|e| Err(ApiError::internal(&anyhow::anyhow!("operation panicked: {e}"))))
}

/// The runtime a create asks for, checked: a typed 400 for an unknown one, or gVisor
/// on a host without runsc.
pub(crate) fn runtime_for(
    shared: &Control,
    asked: Option<&str>,
) -> ApiResult<crate::gvisor::Runtime> {
    let runtime = match asked {
        None => shared.config.runtime,
        Some(name) => name
            .parse::<crate::gvisor::Runtime>()
            .map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, e))?,
    };
    if let (crate::gvisor::Runtime::Gvisor, Err(why)) = (runtime, &shared.runsc) {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            format!("runtime \"gvisor\" is not available on this host: {why}"),
        ));
    }
    Ok(runtime)
}

/// Checks a request's `cpuCount` and `memoryMB`.
pub(crate) fn check_limits(cpu_count: Option<u64>, memory_mb: Option<u64>) -> ApiResult<()> {
    if let Some(cpus) = cpu_count
        && !(1..=MAX_CPU_COUNT).contains(&cpus)
    {
        return Err(ApiError::bad_request(format!(
            "cpuCount must be 1 to {MAX_CPU_COUNT}, not {cpus}"
        )));
    }
    if let Some(memory) = memory_mb
        && !(MIN_MEMORY_MB..=MAX_MEMORY_MB).contains(&memory)
    {
        return Err(ApiError::bad_request(format!(
            "memoryMB must be {MIN_MEMORY_MB} to {MAX_MEMORY_MB}, not {memory}"
        )));
    }
    Ok(())
}
