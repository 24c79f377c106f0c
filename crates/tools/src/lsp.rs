//! `lsp`: language intelligence from servers running in the sandbox, positions in
//! 1-based lines and 1-based UTF-16 columns.

use std::path::Path;
use std::sync::Arc;

use dsh_core::BoxFuture;
use dsh_lsp::{LspEngine, LspError, Operation};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use crate::{Invocation, ToolError, ToolHandler, ToolOutput, ToolRegistry};

pub fn register_lsp_tool(registry: &mut ToolRegistry, engine: Arc<LspEngine>) {
    registry.register(LspTool { engine });
}

pub(crate) struct LspTool {
    engine: Arc<LspEngine>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct LspArgs {
    /// One of goToDefinition, findReferences, goToImplementation, hover, diagnostics,
    /// documentSymbols, workspaceSymbols, rename.
    operation: String,
    /// The source file: absolute sandbox path, or relative to the workspace.
    file_path: String,
    /// 1-based line of the symbol (ignored by diagnostics, documentSymbols, workspaceSymbols).
    #[serde(default)]
    line: Option<u32>,
    /// 1-based column in UTF-16 code units (what editors show).
    #[serde(default)]
    character: Option<u32>,
    /// workspaceSymbols: the name (or part of it) to look for.
    #[serde(default)]
    query: Option<String>,
    /// rename: the new name (the result is a preview; nothing is changed).
    #[serde(rename = "newName", default)]
    new_name: Option<String>,
}

fn lsp_error(err: LspError) -> ToolError {
    if err.is_unavailable() {
        return ToolError::Unavailable(err.to_string());
    }
    match err {
        LspError::InvalidPosition { .. }
        | LspError::UnknownLanguage { .. }
        | LspError::OutsideWorkspace { .. } => {
            ToolError::invalid("lsp", "file_path", err.to_string())
        }
        LspError::Timeout { .. } => ToolError::Failed(err.to_string()),
        other => ToolError::Failed(other.to_string()),
    }
}

impl ToolHandler for LspTool {
    const NAME: &'static str = "lsp";
    const DESCRIPTION: &'static str = "Ask the language server (pyright for Python, typescript-language-server for \
         TypeScript/JavaScript, rust-analyzer when installed) about the sandbox's code: \
         goToDefinition, findReferences (declaration included), goToImplementation, hover (type \
         and docs), diagnostics (errors and warnings for the file's current content), \
         documentSymbols, workspaceSymbols (needs `query`), rename (needs `newName`; returns a \
         preview of the edits, nothing is applied). Positions are 1-based lines and 1-based \
         UTF-16 columns; results come back the same way as `path:line:col` with the line's text.";
    type Args = LspArgs;

    fn handle<'a>(
        &'a self,
        call: Invocation<'a>,
        args: LspArgs,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        let ctx = call.ctx;
        Box::pin(async move {
            let operation = match args.operation.as_str() {
                "hover" => Operation::Hover,
                "goToDefinition" => Operation::GoToDefinition,
                "findReferences" => Operation::FindReferences,
                "goToImplementation" => Operation::GoToImplementation,
                "diagnostics" => Operation::Diagnostics,
                "documentSymbols" => Operation::DocumentSymbols,
                "workspaceSymbols" => Operation::WorkspaceSymbols {
                    query: args.query.clone().ok_or_else(|| {
                        ToolError::invalid("lsp", "query", "workspaceSymbols needs a query")
                    })?,
                },
                "rename" => Operation::Rename {
                    new_name: args.new_name.clone().ok_or_else(|| {
                        ToolError::invalid("lsp", "newName", "rename needs newName")
                    })?,
                },
                other => {
                    return Err(ToolError::invalid(
                        "lsp",
                        "operation",
                        format!(
                            "unknown operation {other:?}; use goToDefinition, findReferences, goToImplementation, hover, diagnostics, documentSymbols, workspaceSymbols or rename"
                        ),
                    ));
                }
            };
            let needs_position = matches!(
                operation,
                Operation::Hover
                    | Operation::GoToDefinition
                    | Operation::FindReferences
                    | Operation::GoToImplementation
                    | Operation::Rename { .. }
            );
            let (line, character) = match (args.line, args.character) {
                (Some(line), Some(character)) => (line, character),
                _ if needs_position => {
                    return Err(ToolError::invalid(
                        "lsp",
                        "line",
                        format!("{} needs line and character (1-based)", operation.name()),
                    ));
                }
                _ => (1, 1),
            };
            let path = ctx.resolve("lsp", "file_path", &args.file_path).await?;
            let result = self
                .engine
                .request_with_progress(operation, Path::new(&path), line, character, call.progress)
                .await
                .map_err(lsp_error)?;
            let value =
                serde_json::to_value(&result).unwrap_or_else(|_| json!({"server": result.server}));
            Ok(ToolOutput { text: result.to_string(), value, truncated: false })
        })
    }
}
