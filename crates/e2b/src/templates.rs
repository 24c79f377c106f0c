//! Template builds through the control plane (E2B's Template SDK calls, as its
//! `template_sync/build_api.py` makes them): request a build, upload a `COPY` step's
//! files to the link the API hands out, start the build, poll its status and logs; list,
//! tag and delete templates.

use serde::{Deserialize, Serialize};

use crate::control::{ControlPlane, urlencoding_path};
use crate::error::{Error, Result};

/// `POST /v3/templates`'s answer.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct BuildRequested {
    #[serde(rename = "templateID")]
    pub template_id: String,
    #[serde(rename = "buildID")]
    pub build_id: String,
    #[serde(default)]
    pub names: Vec<String>,
    #[serde(default)]
    pub tags: Vec<String>,
}

/// One step of a build, as the SDK serializes it (`TemplateStep`).
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct BuildStep {
    #[serde(rename = "type")]
    pub kind: String,
    pub args: Vec<String>,
    pub force: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files_hash: Option<String>,
}

/// A build's definition (`TemplateBuildStartV2`).
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct BuildDefinition {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_template: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_image: Option<String>,
    pub force: bool,
    pub steps: Vec<BuildStep>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_cmd: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ready_cmd: Option<String>,
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq, Eq)]
pub struct BuildLogEntry {
    pub timestamp: String,
    pub level: String,
    pub message: String,
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq, Eq)]
pub struct BuildReason {
    pub message: String,
    #[serde(default)]
    pub step: Option<String>,
}

/// `GET .../status`'s answer.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct BuildStatus {
    /// `waiting`, `building`, `ready` or `error`.
    pub status: String,
    #[serde(default)]
    pub log_entries: Vec<BuildLogEntry>,
    #[serde(default)]
    pub reason: Option<BuildReason>,
}

/// A template as `GET /templates` lists it.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct TemplateInfo {
    #[serde(rename = "templateID")]
    pub template_id: String,
    #[serde(rename = "buildID", default)]
    pub build_id: Option<String>,
    #[serde(default)]
    pub aliases: Vec<String>,
    #[serde(default)]
    pub names: Vec<String>,
    #[serde(default)]
    pub build_status: Option<String>,
}

#[derive(Debug, Deserialize)]
struct UploadLink {
    present: bool,
    url: Option<String>,
}

impl ControlPlane {
    /// Asks for a build of `name` (`name` or `name:tag`).
    pub async fn request_build(
        &self,
        name: &str,
        cpu_count: Option<u64>,
        memory_mb: Option<u64>,
        runtime: Option<&str>,
    ) -> Result<BuildRequested> {
        let mut body = serde_json::json!({ "name": name });
        if let Some(runtime) = runtime {
            body["runtime"] = runtime.into();
        }
        if let Some(cpus) = cpu_count {
            body["cpuCount"] = cpus.into();
        }
        if let Some(memory) = memory_mb {
            body["memoryMB"] = memory.into();
        }
        let request = self.request(reqwest::Method::POST, "/v3/templates").json(&body);
        let (status, body) = self.send(request).await?;
        Self::parse(status, &body)
    }

    /// Uploads `archive` (a tar, gzipped or not) as the files of `files_hash`, unless the
    /// daemon has them already; `true` when it uploaded.
    pub async fn upload_build_files(
        &self,
        template_id: &str,
        files_hash: &str,
        archive: Vec<u8>,
    ) -> Result<bool> {
        let path = format!("/templates/{}/files/{files_hash}", urlencoding_path(template_id));
        let (status, body) = self.send(self.request(reqwest::Method::GET, &path)).await?;
        let link: UploadLink = Self::parse(status, &body)?;
        if link.present {
            return Ok(false);
        }
        let url = link
            .url
            .ok_or_else(|| Error::Protocol(format!("no upload link for the files {files_hash}")))?;
        // The link is signed: no API key goes with it (as to E2B's presigned URLs).
        let response = self.http_client().put(url).body(archive).send().await?;
        let status = response.status().as_u16();
        if !(200..300).contains(&status) {
            let body = response.bytes().await?;
            return Err(crate::envd::http_error(status, &body));
        }
        Ok(true)
    }

    /// Starts a requested build.
    pub async fn start_build(
        &self,
        requested: &BuildRequested,
        definition: &BuildDefinition,
    ) -> Result<()> {
        let path = format!(
            "/v2/templates/{}/builds/{}",
            urlencoding_path(&requested.template_id),
            urlencoding_path(&requested.build_id)
        );
        let request = self.request(reqwest::Method::POST, &path).json(definition);
        let (status, body) = self.send(request).await?;
        if !(200..300).contains(&status) {
            return Err(crate::envd::http_error(status, &body));
        }
        Ok(())
    }

    /// A build's status and its log entries from `logs_offset` on.
    pub async fn build_status(
        &self,
        requested: &BuildRequested,
        logs_offset: usize,
    ) -> Result<BuildStatus> {
        let path = format!(
            "/templates/{}/builds/{}/status?logsOffset={logs_offset}",
            urlencoding_path(&requested.template_id),
            urlencoding_path(&requested.build_id)
        );
        let (status, body) = self.send(self.request(reqwest::Method::GET, &path)).await?;
        Self::parse(status, &body)
    }

    pub async fn list_templates(&self) -> Result<Vec<TemplateInfo>> {
        let (status, body) = self.send(self.request(reqwest::Method::GET, "/templates")).await?;
        Self::parse(status, &body)
    }

    /// Deletes a template (by id or name) or a snapshot; `false` when there is none.
    pub async fn delete_template(&self, template: &str) -> Result<bool> {
        self.delete(&format!("/templates/{}", urlencoding_path(template))).await
    }
}
