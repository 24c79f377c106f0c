//! `read`, `write` and `edit`: text files through the `Fs` seam.

use std::fmt::Write as _;

use dsh_core::{BoxFuture, EditRequest, FsError, WriteExpectation, WriteOperation};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use crate::text::{cut_line, cut_to, lines};
use crate::{Invocation, ToolContext, ToolError, ToolHandler, ToolOutput};

/// Arguments of `read`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadArgs {
    /// The file to read: absolute sandbox path, or relative to the workspace.
    pub file_path: String,
    /// 1-based number of the first line to return (default 1).
    #[serde(default)]
    pub offset: Option<u64>,
    /// How many lines to return (default 2000).
    #[serde(default)]
    pub limit: Option<u64>,
}

/// Arguments of `write`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteArgs {
    /// The file to write: absolute sandbox path, or relative to the workspace.
    pub file_path: String,
    /// The complete new content of the file.
    pub content: String,
}

/// Arguments of `edit`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditArgs {
    /// The file to edit: absolute sandbox path, or relative to the workspace.
    pub file_path: String,
    /// The exact text to replace (copied from the file, whitespace included).
    pub old_string: String,
    /// The text to put in its place (must differ from old_string).
    pub new_string: String,
    /// Replace every occurrence (default false: old_string must occur exactly once).
    #[serde(default)]
    pub replace_all: Option<bool>,
}

/// `read`: a text file as numbered lines.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReadTool;

/// `write`: create or replace a file atomically.
#[derive(Debug, Clone, Copy, Default)]
pub struct WriteTool;

/// `edit`: exact search-and-replace in a text file, checked against the last read.
#[derive(Debug, Clone, Copy, Default)]
pub struct EditTool;

impl ToolHandler for ReadTool {
    const NAME: &'static str = "read";
    const DESCRIPTION: &'static str = "Read a UTF-8 text file from the sandbox. Returns the lines numbered like `cat -n` \
         (right-aligned line number, a tab, then the line), starting at `offset` (1-based, \
         default 1) for at most `limit` lines (default 2000). Relative paths are taken from \
         the workspace directory. The line numbers are not part of the file: never copy them \
         into `edit`. For long files read a range, then continue with the offset the result \
         suggests. Binary files are refused (use a command such as `xxd` for those). Reading \
         a file also records its version, so a later `edit` is refused if the file changed \
         in between.";
    type Args = ReadArgs;

    fn handle<'a>(
        &'a self,
        call: Invocation<'a>,
        args: ReadArgs,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        let ctx = call.ctx;
        Box::pin(read(ctx, args))
    }
}

async fn read(ctx: &ToolContext, args: ReadArgs) -> Result<ToolOutput, ToolError> {
    let offset = match args.offset {
        None => 1,
        Some(0) => return Err(ToolError::invalid("read", "offset", "line numbers start at 1")),
        Some(n) => usize::try_from(n).unwrap_or(usize::MAX),
    };
    let limit = match args.limit {
        None => ctx.limits.read_default_lines,
        Some(0) => return Err(ToolError::invalid("read", "limit", "must be at least 1")),
        Some(n) => usize::try_from(n).unwrap_or(usize::MAX),
    };
    let path = ctx.resolve("read", "file_path", &args.file_path).await?;
    let file = ctx.fs.read_text(&path, ctx.limits.read_max_bytes).await?;
    ctx.remember_version(&path, file.version.clone());

    let all = lines(&file.text);
    let total = all.len();
    let budget = ctx.limits.result_cap.saturating_sub(256);
    let mut text = String::new();
    let mut content = String::new();
    let mut last = offset.saturating_sub(1);
    let mut truncated = false;
    for (index, line) in all.iter().enumerate().skip(offset - 1).take(limit) {
        let number = index + 1;
        let shown = cut_line(line, ctx.limits.max_line_chars);
        let entry = format!("{number:>6}\t{shown}\n");
        if text.len() + entry.len() > budget {
            truncated = true;
            break;
        }
        truncated |= shown.len() != line.len();
        text.push_str(&entry);
        content.push_str(line);
        content.push('\n');
        last = number;
    }
    let first = offset.min(total.saturating_add(1));
    if total == 0 {
        text.push_str("(empty file)\n");
    } else if offset > total {
        let _ = writeln!(text, "(offset {offset} is past the end: the file has {total} lines)");
    } else if last < total {
        let _ = writeln!(
            text,
            "(showing lines {first}-{last} of {total}; continue with offset={})",
            last + 1
        );
    }
    let value = json!({
        "path": path,
        "content": content,
        "start_line": first,
        "end_line": last,
        "total_lines": total,
        "version": file.version.as_str(),
    });
    Ok(ToolOutput { text, value, truncated })
}

impl ToolHandler for WriteTool {
    const NAME: &'static str = "write";
    const DESCRIPTION: &'static str = "Write a text file in the sandbox, replacing it whole if it exists. Missing parent \
         directories are created, and the write is atomic (readers see the old or the new \
         file, never a mix). Relative paths are taken from the workspace directory. Prefer \
         `edit` for changing part of an existing file. Returns whether the file was created \
         or replaced.";
    type Args = WriteArgs;

    fn handle<'a>(
        &'a self,
        call: Invocation<'a>,
        args: WriteArgs,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        let ctx = call.ctx;
        Box::pin(write(ctx, args))
    }
}

async fn write(ctx: &ToolContext, args: WriteArgs) -> Result<ToolOutput, ToolError> {
    let path = ctx.resolve("write", "file_path", &args.file_path).await?;
    let outcome = match ctx.fs.write_text(&path, &args.content, WriteExpectation::Any).await {
        Err(FsError::NotFound { .. }) => {
            // A backend that does not create parents itself: create them, then retry.
            if let Some(parent) = path.parent() {
                ctx.fs.make_dir(parent, true).await?;
            }
            ctx.fs.write_text(&path, &args.content, WriteExpectation::Any).await?
        }
        other => other?,
    };
    ctx.remember_version(&path, outcome.version.clone());
    let operation = match outcome.operation {
        WriteOperation::Create => "create",
        WriteOperation::Replace => "replace",
    };
    let line_count = lines(&args.content).len();
    let text = format!(
        "{} {} ({} bytes, {line_count} lines)",
        if operation == "create" { "Created" } else { "Replaced" },
        path.display(),
        args.content.len(),
    );
    let value = json!({
        "path": path,
        "operation": operation,
        "version": outcome.version.as_str(),
        "bytes": args.content.len(),
        "lines": line_count,
    });
    Ok(ToolOutput { text, value, truncated: false })
}

impl ToolHandler for EditTool {
    const NAME: &'static str = "edit";
    const DESCRIPTION: &'static str = "Replace exact text in a text file in the sandbox. `old_string` must match the file \
         byte for byte (whitespace and indentation included; never include the line-number \
         prefix that `read` shows) and, unless `replace_all` is true, occur exactly once: add \
         surrounding lines to make it unique. If the file was read in this session and has \
         changed since, the edit is refused: read it again first. Returns the number of \
         replacements and a unified diff of the change.";
    type Args = EditArgs;

    fn handle<'a>(
        &'a self,
        call: Invocation<'a>,
        args: EditArgs,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        let ctx = call.ctx;
        Box::pin(edit(ctx, args))
    }
}

async fn edit(ctx: &ToolContext, args: EditArgs) -> Result<ToolOutput, ToolError> {
    if args.old_string.is_empty() {
        return Err(ToolError::invalid(
            "edit",
            "old_string",
            "must not be empty (to create a file use `write`)",
        ));
    }
    if args.old_string == args.new_string {
        return Err(ToolError::invalid("edit", "new_string", "is identical to old_string"));
    }
    let path = ctx.resolve("edit", "file_path", &args.file_path).await?;
    let request = EditRequest {
        old: args.old_string,
        new: args.new_string,
        replace_all: args.replace_all.unwrap_or(false),
        expected_version: ctx.known_version(&path),
        max_bytes: ctx.limits.read_max_bytes,
    };
    let outcome = ctx.fs.edit_text(&path, &request).await?;
    ctx.remember_version(&path, outcome.version.clone());

    let label = path.display().to_string();
    let diff = similar::TextDiff::from_lines(&outcome.before, &outcome.after)
        .unified_diff()
        .context_radius(3)
        .header(&label, &label)
        .to_string();
    let (shown, dropped) = cut_to(&diff, ctx.limits.result_cap / 2);
    let truncated = dropped > 0;
    let plural = if outcome.replacements == 1 { "" } else { "s" };
    let mut text = format!("Edited {label}: {} replacement{plural}\n{shown}", outcome.replacements);
    if truncated {
        let _ = write!(text, "\n[diff truncated: {dropped} more bytes]");
    }
    let value = json!({
        "path": path,
        "replacements": outcome.replacements,
        "version": outcome.version.as_str(),
        "diff": shown,
    });
    Ok(ToolOutput { text, value, truncated })
}
