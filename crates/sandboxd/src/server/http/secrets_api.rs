//! The REST routes of secrets (E2B's `/secrets`, spec/openapi.yml:4166-4370); the checks
//! and the work are `control/secrets.rs`'s, the store `store/secrets.rs`. This is the
//! wire: statuses, headers, bodies. No answer carries a secret's value.
//!
//! | route | success | E2B |
//! |---|---|---|
//! | `GET /secrets?limit=&nextToken=` | 200 `[Secret]`, `X-Next-Token` when more | handlers/secrets.go:117-166 |
//! | `POST /secrets` `{name, value, metadata?}` | 201 `Secret` | handlers/secrets.go:69-115 |
//! | `GET /secrets/{secretID or name}` | 200 `Secret` | handlers/secrets.go:168-203 |
//! | `POST /secrets/{secretID or name}` `{value, metadata?}` | 200 `Secret` | handlers/secrets.go:205-258 |
//! | `DELETE /secrets/{secretID or name}` | 204 | handlers/secrets.go:260-287 |
//!
//! Every answer, an error's too, is `Cache-Control: no-store`, as E2B marks its whole
//! `/secrets` path family (packages/api/main.go:114-116,
//! packages/api/internal/middleware/secrets.go:43-56).

use std::collections::HashMap;
use std::sync::Arc;

use axum::Json;
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::map_response;
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, get};
use serde_json::Value;

use crate::server::ApiError;
use crate::server::api_body::{ApiResult, JsonBody, detached};
use crate::server::context::Control;
use crate::server::secret_ops::{self, NOT_FOUND};
use crate::server::secrets::{SecretInfo, Selector};

type S = State<Arc<Control>>;

/// `/secrets`: list and create.
pub(crate) fn collection() -> MethodRouter<Arc<Control>> {
    get(list).post(create).layer(map_response(no_store))
}

/// `/secrets/{id}`: get, update and delete, by secretID or name.
pub(crate) fn one() -> MethodRouter<Arc<Control>> {
    get(get_one).post(update).delete(delete).layer(map_response(no_store))
}

async fn no_store(mut response: Response) -> Response {
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

fn not_found() -> ApiError {
    // E2B: handlers/secrets.go:356-357 (NOT_FOUND is a 404 "Secret not found").
    ApiError::new(StatusCode::NOT_FOUND, NOT_FOUND)
}

fn answer(status: StatusCode, secret: &SecretInfo) -> Response {
    (status, Json(secret.wire())).into_response()
}

/// The path's secret, an id or a name (a segment that is not text is a 400 quoting
/// nothing of it).
fn selector(segment: Result<Path<String>, PathRejection>) -> ApiResult<Selector> {
    let Path(segment) = segment.map_err(|_| {
        ApiError::bad_request("the path does not name a secret: send its secretID or its name")
    })?;
    Ok(secret_ops::selector(&segment)?)
}

/// `GET /secrets`: a page of secrets, oldest first; `X-Next-Token` (the token for the
/// next page's `nextToken`) only when there are more (handlers/secrets.go:161-163).
async fn list(
    State(control): S,
    query: Result<Query<HashMap<String, String>>, QueryRejection>,
) -> ApiResult<Response> {
    let Query(query) =
        query.map_err(|_| ApiError::bad_request("the query string could not be read"))?;
    let page = secret_ops::page(
        query.get("limit").map(String::as_str),
        query.get("nextToken").map(String::as_str),
    )?;
    let (secrets, next) = secret_ops::list(&control, &page);
    let secrets: Vec<_> = secrets.iter().map(SecretInfo::wire).collect();
    let mut response = Json(secrets).into_response();
    if let Some(next) = next.and_then(|n| HeaderValue::from_str(&n).ok()) {
        response.headers_mut().insert("x-next-token", next);
    }
    Ok(response)
}

/// `POST /secrets` `{name, value, metadata?}`: 201 `Secret` (handlers/secrets.go:114);
/// 409 when the name is taken.
async fn create(State(control): S, JsonBody(body): JsonBody<Value>) -> ApiResult<Response> {
    let new = secret_ops::parse_new(body)?;
    detached(async move {
        let made = secret_ops::create(&control, new).await?;
        Ok(answer(StatusCode::CREATED, &made))
    })
    .await
}

/// `GET /secrets/{secretID or name}`: 200 `Secret`.
async fn get_one(
    State(control): S,
    segment: Result<Path<String>, PathRejection>,
) -> ApiResult<Response> {
    let selector = selector(segment)?;
    let secret = secret_ops::get(&control, &selector).ok_or_else(not_found)?;
    Ok(answer(StatusCode::OK, &secret))
}

/// `POST /secrets/{secretID or name}` `{value, metadata?}`: 200 `Secret`, its version one
/// more. The path is checked before the body, as E2B does (handlers/secrets.go:212-224).
async fn update(
    State(control): S,
    segment: Result<Path<String>, PathRejection>,
    body: Result<JsonBody<Value>, ApiError>,
) -> ApiResult<Response> {
    let selector = selector(segment)?;
    let JsonBody(body) = body?;
    let update = secret_ops::parse_update(body)?;
    detached(async move {
        let updated =
            secret_ops::update(&control, selector, update).await?.ok_or_else(not_found)?;
        Ok(answer(StatusCode::OK, &updated))
    })
    .await
}

/// `DELETE /secrets/{secretID or name}`: 204 (handlers/secrets.go:286).
async fn delete(
    State(control): S,
    segment: Result<Path<String>, PathRejection>,
) -> ApiResult<StatusCode> {
    let selector = selector(segment)?;
    detached(async move {
        match secret_ops::delete(&control, selector).await? {
            true => Ok(StatusCode::NO_CONTENT),
            false => Err(not_found()),
        }
    })
    .await
}
