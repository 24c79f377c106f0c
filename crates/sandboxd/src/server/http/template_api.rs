//! The REST routes of templates built from steps (E2B's Template SDK): build requests,
//! upload links and uploads, build starts and status, tags, listing and deletion. The
//! work is `builds.rs`'s and `templates.rs`'s; this is the wire.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use dsh_proto::control as wire;
use serde::Deserialize;

use crate::server::api_body::{JsonBody, check_limits, constant_time_eq, detached, runtime_for};
use crate::server::builds::{self, Definition, Progress, Status};
use crate::server::context::Control;
use crate::server::files::{now_ms, random_hex, rfc3339};
use crate::server::templates::{self, BuiltTemplate, DEFAULT_TAG, Reference, Tag};
use crate::server::{ApiError, ENVD_VERSION};

type ApiResult<T> = Result<T, ApiError>;
type S = State<Arc<Control>>;

/// The routes behind the API key.
pub(crate) fn router() -> Router<Arc<Control>> {
    Router::new()
        .route("/v3/templates", post(request_build))
        .route("/templates", get(list))
        .route("/templates/{id}/files/{hash}", get(upload_link))
        .route("/v2/templates/{id}/builds/{build}", post(start_build))
        .route("/templates/{id}/builds/{build}/status", get(build_status))
        .route("/templates/tags", post(assign_tags).delete(remove_tags))
        .route("/templates/{id}/tags", get(list_tags))
        .route("/gc", post(collect_garbage))
}

/// Runs [`templates::collect`] off the async threads.
async fn collect(shared: &Arc<Control>) -> ApiResult<builds::Collected> {
    let owner = shared.clone();
    tokio::task::spawn_blocking(move || templates::collect(&owner))
        .await
        .map_err(|e| ApiError::internal(&anyhow::anyhow!("the cleanup task panicked: {e}")))
}

/// `POST /gc` (dsh's own): collects now what nothing uses any more (the daemon does it
/// by itself at start and when a template is deleted; a sandbox killed after its
/// template was deleted leaves its image until then) and says what went.
async fn collect_garbage(State(shared): S) -> ApiResult<Response> {
    let _names = shared.names_lock.lock().await;
    let collected = collect(&shared).await?;
    Ok(axum::Json(collected).into_response())
}

/// The upload route: the SDK puts the archive to the link it was given without the API
/// key (as to a presigned URL), so the link carries a signature instead.
pub(crate) fn uploads() -> Router<Arc<Control>> {
    Router::new().route("/template-files/{hash}", put(upload))
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct BuildRequest {
    name: Option<String>,
    /// The SDK's deprecated spelling of `name`.
    alias: Option<String>,
    tags: Option<Vec<String>>,
    cpu_count: Option<u64>,
    #[serde(rename = "memoryMB")]
    memory_mb: Option<u64>,
    /// dsh extension: the runtime the template's sandboxes get unless their create asks
    /// for one (`native` or `gvisor`; the daemon's default when absent). The build itself
    /// runs natively: both runtimes keep a sandbox's files in the same layout.
    runtime: Option<String>,
}

fn conflict(message: String) -> ApiError {
    ApiError::new(StatusCode::CONFLICT, message)
}

fn not_found(message: String) -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, message)
}

/// `POST /v3/templates` `{name, tags?, cpuCount?, memoryMB?}`: 202 with the template's
/// id (made on the first build of a name) and a new build's id.
async fn request_build(
    State(shared): S,
    JsonBody(body): JsonBody<BuildRequest>,
) -> ApiResult<Response> {
    let text = body.name.or(body.alias).ok_or_else(|| {
        ApiError::bad_request("name is required (\"my-template\" or \"my-template:tag\")")
    })?;
    let reference = Reference::parse(&text).map_err(ApiError::bad_request)?;
    if shared.config.templates.get(&reference.name).is_ok() {
        return Err(conflict(format!(
            "'{}' is one of this daemon's own templates: build under another name",
            reference.name
        )));
    }
    let mut tags: Vec<String> = reference.tag.clone().into_iter().collect();
    for tag in body.tags.unwrap_or_default() {
        tags.push(plain_tag(&reference.name, &tag)?);
    }
    if tags.is_empty() {
        tags.push(DEFAULT_TAG.to_owned());
    }
    tags.dedup();
    check_limits(body.cpu_count, body.memory_mb)?;
    let runtime = match body.runtime.as_deref() {
        Some(asked) => Some(runtime_for(&shared, Some(asked))?),
        None => None,
    };
    let _names = shared.names_lock.lock().await;
    let index = templates::index(&shared);
    let mut all = index.all();
    let template_id = match all.iter().find(|t| t.name == reference.name) {
        Some(template) => template.template_id.clone(),
        None => {
            let now = now_ms();
            let template = BuiltTemplate {
                template_id: random_hex(10),
                name: reference.name.clone(),
                tags: BTreeMap::new(),
                files: Default::default(),
                created_at_ms: now,
                updated_at_ms: now,
            };
            let id = template.template_id.clone();
            all.push(template);
            index.save(&all).map_err(|e| ApiError::internal(&e))?;
            id
        }
    };
    let build_id = crate::exec::random_uuid();
    shared.builds.request(
        &build_id,
        Progress {
            template_id: template_id.clone(),
            tags: tags.clone(),
            cpu_count: body.cpu_count,
            memory_mb: body.memory_mb,
            runtime,
            status: Status::Waiting,
            logs: Vec::new(),
            reason: None,
            requested_at: std::time::Instant::now(),
        },
    );
    let names: Vec<String> = tags.iter().map(|tag| format!("{}:{tag}", reference.name)).collect();
    Ok((
        StatusCode::ACCEPTED,
        axum::Json(wire::BuildRequested {
            aliases: vec![reference.name],
            build_id,
            names,
            public: false,
            tags,
            template_id,
        }),
    )
        .into_response())
}

/// A tag as a request names it: `tag`, or `name:tag` of the template it is for.
fn plain_tag(name: &str, text: &str) -> ApiResult<String> {
    let tag = match text.split_once(':') {
        Some((prefix, tag)) if prefix == name => tag,
        Some(_) => {
            return Err(ApiError::bad_request(format!(
                "invalid tag {text:?}: use 'tag' or '{name}:tag'"
            )));
        }
        None => text,
    };
    if !templates::valid_tag(tag) {
        return Err(ApiError::bad_request(format!(
            "invalid tag {text:?}: a tag is 1 to 128 letters, digits, '.', '_' or '-'"
        )));
    }
    Ok(tag.to_owned())
}

/// `GET /templates/{id}/files/{hash}`: whether the files of a `COPY` are here already,
/// and where to upload them.
async fn upload_link(
    State(shared): S,
    Path((id, hash)): Path<(String, String)>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    if !builds::valid_hash(&hash) {
        return Err(ApiError::bad_request(format!("invalid files hash {hash:?}: 64 hex digits")));
    }
    {
        let _names = shared.names_lock.lock().await;
        let index = templates::index(&shared);
        let mut all = index.all();
        let template = all
            .iter_mut()
            .find(|t| t.template_id == id)
            .ok_or_else(|| not_found(format!("template '{id}' not found")))?;
        // Kept while a template names them (they go with the last one).
        if template.files.insert(hash.clone()) {
            index.save(&all).map_err(|e| ApiError::internal(&e))?;
        }
    }
    let present = builds::archive_path(&shared, &hash).is_file();
    let host = headers
        .get(axum::http::header::HOST)
        .and_then(|h| h.to_str().ok())
        .map_or_else(|| shared.config.listen.to_string(), str::to_owned);
    let signature = builds::upload_signature(&shared.api_key, &hash);
    let url = format!("http://{host}/template-files/{hash}?signature={signature}");
    Ok((StatusCode::CREATED, axum::Json(wire::UploadLink { present, url: Some(url) }))
        .into_response())
}

/// `PUT /template-files/{hash}?signature=…`: the archive of a `COPY`'s files.
async fn upload(
    State(shared): S,
    Path(hash): Path<String>,
    Query(query): Query<BTreeMap<String, String>>,
    body: axum::body::Body,
) -> ApiResult<Response> {
    let expected = builds::upload_signature(&shared.api_key, &hash);
    let given = query.get("signature").map(String::as_str).unwrap_or_default();
    if !builds::valid_hash(&hash) || !constant_time_eq(given.as_bytes(), expected.as_bytes()) {
        return Err(ApiError::new(StatusCode::FORBIDDEN, "invalid or missing upload signature"));
    }
    let chunks = futures_util::StreamExt::map(body.into_data_stream(), |chunk| {
        chunk.map_err(std::io::Error::other)
    });
    let size = builds::receive_upload(&shared, &hash, chunks).await?;
    tracing::info!(hash, size, "template files uploaded");
    Ok(StatusCode::OK.into_response())
}

/// `POST /v2/templates/{id}/builds/{buildID}` with the template's definition: 202, the
/// build runs in the background.
async fn start_build(
    State(shared): S,
    Path((id, build_id)): Path<(String, String)>,
    JsonBody(definition): JsonBody<Definition>,
) -> ApiResult<StatusCode> {
    let progress = shared
        .builds
        .get(&build_id)
        .filter(|p| p.lock().map(|p| p.template_id == id).unwrap_or(false))
        .ok_or_else(|| not_found(format!("build '{build_id}' of template '{id}' not found")))?;
    let steps = builds::check_steps(&definition).map_err(ApiError::bad_request)?;
    builds::origin(&shared, &definition).map_err(ApiError::bad_request)?;
    {
        let progress = progress.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if progress.status != Status::Waiting {
            return Err(conflict(format!("build '{build_id}' was already started")));
        }
    }
    builds::start(&shared, build_id, definition, steps);
    Ok(StatusCode::ACCEPTED)
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct StatusQuery {
    logs_offset: Option<usize>,
    limit: Option<usize>,
}

/// `GET /templates/{id}/builds/{buildID}/status?logsOffset=N`: the build's state and up
/// to 100 log entries from `logsOffset` on.
async fn build_status(
    State(shared): S,
    Path((id, build_id)): Path<(String, String)>,
    Query(query): Query<StatusQuery>,
) -> ApiResult<Response> {
    let offset = query.logs_offset.unwrap_or(0);
    let limit = query.limit.unwrap_or(builds::LOGS_PER_PAGE).clamp(1, builds::LOGS_PER_PAGE);
    let Some(progress) = shared.builds.get(&build_id) else {
        // A build from before the daemon started: finished, its logs gone.
        return match templates::index(&shared).build(&build_id) {
            Some(build) if build.template_id == id => Ok(axum::Json(wire::BuildStatus {
                build_id,
                log_entries: Vec::new(),
                logs: Vec::new(),
                reason: None,
                status: "ready".to_owned(),
                template_id: id,
            })
            .into_response()),
            _ => Err(not_found(format!("build '{build_id}' of template '{id}' not found"))),
        };
    };
    let progress = progress.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if progress.template_id != id {
        return Err(not_found(format!("build '{build_id}' of template '{id}' not found")));
    }
    let entries: Vec<&builds::LogEntry> = progress.logs.iter().skip(offset).take(limit).collect();
    let status = wire::BuildStatus {
        build_id,
        log_entries: entries.iter().map(|&e| e.clone()).collect(),
        logs: entries.iter().map(|e| format!("[{}] {}", e.timestamp, e.message)).collect(),
        reason: progress.reason.as_ref().map(|reason| wire::BuildReason {
            log_entries: Vec::new(),
            message: reason.message.clone(),
            step: reason.step.clone(),
        }),
        status: progress.status.name().to_owned(),
        template_id: id,
    };
    Ok(axum::Json(status).into_response())
}

#[derive(Debug, Default, Deserialize)]
struct AssignTags {
    target: String,
    tags: Vec<String>,
}

/// `POST /templates/tags` `{target: "name:tag", tags}`: the target's build gets the tags.
async fn assign_tags(
    State(shared): S,
    JsonBody(body): JsonBody<AssignTags>,
) -> ApiResult<Response> {
    let target = Reference::parse(&body.target).map_err(ApiError::bad_request)?;
    if body.tags.is_empty() {
        return Err(ApiError::bad_request("tags: name at least one tag"));
    }
    let tags =
        body.tags.iter().map(|tag| plain_tag(&target.name, tag)).collect::<ApiResult<Vec<_>>>()?;
    let _names = shared.names_lock.lock().await;
    let index = templates::index(&shared);
    let (template, build) = index
        .resolve(&body.target)
        .ok_or_else(|| not_found(format!("template '{}' not found", body.target)))?;
    // The template was just resolved under the same lock: it is there.
    index
        .tag_build(&template.template_id, &build.build_id, &tags)
        .map_err(|e| ApiError::internal(&e))?;
    Ok((StatusCode::CREATED, axum::Json(wire::TagsAssigned { build_id: build.build_id, tags }))
        .into_response())
}

#[derive(Debug, Default, Deserialize)]
struct RemoveTags {
    name: String,
    tags: Vec<String>,
}

/// `DELETE /templates/tags` `{name, tags}`: 204; a build left without a tag is removed.
async fn remove_tags(
    State(shared): S,
    JsonBody(body): JsonBody<RemoveTags>,
) -> ApiResult<StatusCode> {
    let reference = Reference::parse(&body.name).map_err(ApiError::bad_request)?;
    let tags = body
        .tags
        .iter()
        .map(|tag| plain_tag(&reference.name, tag))
        .collect::<ApiResult<Vec<_>>>()?;
    let _names = shared.names_lock.lock().await;
    let index = templates::index(&shared);
    let mut all = index.all();
    let template = all
        .iter_mut()
        .find(|t| t.name == reference.name || t.template_id == reference.name)
        .ok_or_else(|| not_found(format!("template '{}' not found", body.name)))?;
    if let Some(missing) = tags.iter().find(|tag| !template.tags.contains_key(*tag)) {
        return Err(not_found(format!("template '{}' has no tag '{missing}'", reference.name)));
    }
    for tag in &tags {
        template.tags.remove(tag);
    }
    templates::touch(template);
    index.save(&all).map_err(|e| ApiError::internal(&e))?;
    index.remove_unreferenced_builds(&all);
    Ok(StatusCode::NO_CONTENT)
}

/// `GET /templates/{id}/tags`: `[{tag, buildID, createdAt}]`, oldest first.
async fn list_tags(State(shared): S, Path(id): Path<String>) -> ApiResult<Response> {
    let template = templates::index(&shared)
        .find(&id)
        .ok_or_else(|| not_found(format!("template '{id}' not found")))?;
    let mut tags: Vec<(&String, &Tag)> = template.tags.iter().collect();
    tags.sort_by_key(|(name, tag)| (tag.assigned_at_ms, (*name).clone()));
    let listed: Vec<wire::TemplateTag> = tags
        .into_iter()
        .map(|(name, tag)| wire::TemplateTag {
            build_id: tag.build_id.clone(),
            created_at: rfc3339(tag.assigned_at_ms),
            tag: name.clone(),
        })
        .collect();
    Ok(axum::Json(listed).into_response())
}

/// One template as E2B lists it.
fn template_of(shared: &Control, template: &BuiltTemplate) -> wire::Template {
    let index = templates::index(shared);
    let latest = template.tags.values().max_by_key(|t| t.assigned_at_ms);
    let build = latest.and_then(|tag| index.build(&tag.build_id));
    let names: Vec<String> =
        template.tags.keys().map(|tag| format!("{}:{tag}", template.name)).collect();
    let runtime = build.as_ref().and_then(|b| b.runtime).unwrap_or(shared.config.runtime);
    wire::Template {
        aliases: vec![template.name.clone()],
        build_count: index.builds().iter().filter(|b| b.template_id == template.template_id).count()
            as u64,
        build_id: latest.map(|t| t.build_id.clone()),
        build_status: Some(if build.is_some() { "ready" } else { "error" }.to_owned()),
        cpu_count: build
            .as_ref()
            .and_then(|b| b.cpu_count)
            .unwrap_or(shared.config.defaults.cpu_count),
        created_at: Some(rfc3339(template.created_at_ms)),
        created_by: None,
        disk_size_mb: shared.disk.sandbox_mb(),
        envd_version: ENVD_VERSION.to_owned(),
        last_spawned_at: None,
        memory_mb: build
            .as_ref()
            .and_then(|b| b.memory_mb)
            .unwrap_or(shared.config.defaults.memory_mb),
        names,
        public: false,
        runtime: Some(runtime.to_string()),
        spawn_count: 0,
        tags: template.tags.keys().cloned().collect(),
        template_id: template.template_id.clone(),
        updated_at: Some(rfc3339(template.updated_at_ms)),
    }
}

/// `GET /templates`: the templates built here (the daemon's own are not listed: E2B
/// lists a team's templates, not the public ones).
async fn list(State(shared): S) -> Response {
    let listed: Vec<wire::Template> =
        templates::index(&shared).all().iter().map(|t| template_of(&shared, t)).collect();
    axum::Json(listed).into_response()
}

/// A built template by id or name, for `GET /templates/aliases/{alias}`.
pub(crate) fn alias(shared: &Control, alias: &str) -> Option<wire::TemplateAlias> {
    let template = templates::index(shared).find(alias)?;
    Some(wire::TemplateAlias { public: false, template_id: template.template_id })
}

/// `DELETE /templates/{id}` of a built template (by id or name): it, its builds, and the
/// cache entries and uploads no other template uses. `false` when there is none.
pub(crate) async fn delete(shared: &Arc<Control>, reference: &str) -> ApiResult<bool> {
    let shared = shared.clone();
    let reference = reference.to_owned();
    detached(async move {
        let _names = shared.names_lock.lock().await;
        let index = templates::index(&shared);
        let mut all = index.all();
        let name = reference.split_once(':').map_or(reference.as_str(), |(n, _)| n);
        let Some(at) = all.iter().position(|t| t.template_id == reference || t.name == name) else {
            return Ok(false);
        };
        let removed = all.remove(at);
        index.save(&all).map_err(|e| ApiError::internal(&e))?;
        collect(&shared).await?;
        tracing::info!(template = %removed.template_id, name = %removed.name, "template deleted");
        Ok(true)
    })
    .await
}
