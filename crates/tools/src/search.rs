//! `glob` and `grep`: searches that run inside the sandbox (`find`, GNU `grep`) through the
//! `Subprocess` seam; only their (capped) output crosses to the host.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use dsh_core::{BoxFuture, CapturedOutput, EndReason, ExitStatus, FileKind, OutputMode, SpawnSpec};
use globset::{GlobBuilder, GlobMatcher};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use crate::text::{cut_line, cut_to};
use crate::{Invocation, ToolContext, ToolError, ToolHandler, ToolOutput};

/// Directories never searched.
const PRUNED: [&str; 3] = [".git", "node_modules", ".dsh-e2b"];
/// The most raw search output kept on the host.
const RAW_OUTPUT_CAP: usize = 16 * 1024 * 1024;
/// The largest `context` accepted.
const MAX_CONTEXT: u64 = 100;

/// Arguments of `glob`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GlobArgs {
    /// Glob pattern matched against paths relative to the search directory, e.g. `**/*.rs`
    /// or `src/*.{ts,tsx}`. `*` does not cross `/`; `**` does.
    pub pattern: String,
    /// Directory to search (default: the workspace).
    #[serde(default)]
    pub path: Option<String>,
}

/// What `grep` returns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GrepOutputMode {
    /// Matching lines as `path:line:text` (the default).
    #[default]
    Content,
    /// Only the paths of files with a match.
    FilesWithMatches,
    /// The number of matching lines per file.
    Count,
}

/// Arguments of `grep`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GrepArgs {
    /// Extended regular expression (POSIX ERE as in `grep -E`: `|`, `+`, `?`, `{n}`,
    /// `()`, `\b`, `\w`, `\s`; use `[0-9]` rather than `\d`).
    pub pattern: String,
    /// File or directory to search (default: the workspace).
    #[serde(default)]
    pub path: Option<String>,
    /// Only search files whose name matches this glob, e.g. `*.rs`, `*.{ts,tsx}` or
    /// `src/**/*.py` (a glob with `/` is matched against the path relative to `path`).
    #[serde(default)]
    pub glob: Option<String>,
    /// Case-insensitive search.
    #[serde(default, rename = "-i")]
    pub case_insensitive: Option<bool>,
    /// Lines of context to show before and after each match (content mode only).
    #[serde(default)]
    pub context: Option<u64>,
    /// `content` (default), `files_with_matches` or `count`.
    #[serde(default)]
    pub output_mode: Option<GrepOutputMode>,
}

/// `glob`: files by name pattern, newest first.
#[derive(Debug, Clone, Copy, Default)]
pub struct GlobTool;

/// `grep`: regular-expression search of file contents.
#[derive(Debug, Clone, Copy, Default)]
pub struct GrepTool;

/// Runs a search command in the sandbox with the search timeout and capped output.
async fn run_search(
    ctx: &ToolContext,
    what: &str,
    argv: Vec<String>,
) -> Result<(ExitStatus, CapturedOutput, String), ToolError> {
    let mut spec = SpawnSpec::new(argv, ctx.cwd.clone(), ctx.env.clone());
    spec.stdout = OutputMode::Capped { max_bytes: RAW_OUTPUT_CAP };
    spec.stderr = OutputMode::Capped { max_bytes: 16 * 1024 };
    spec.timeout = Some(ctx.limits.search_timeout);
    let process = ctx.subprocess.spawn(spec).await?;
    let status = process.wait().await;
    if status.reason == EndReason::TimedOut {
        return Err(ToolError::Timeout { what: what.to_owned(), after: ctx.limits.search_timeout });
    }
    let stdout = process.stdout().snapshot();
    let stderr = process.stderr().snapshot().to_string_lossy();
    Ok((status, stdout, stderr))
}

/// The retained bytes of a capped stream, cut back to the last whole record when the
/// middle was dropped; and whether anything was lost.
fn records(output: &CapturedOutput, separator: u8) -> (Vec<u8>, bool) {
    if !output.truncated() {
        let mut all = output.head.clone();
        all.extend_from_slice(&output.tail);
        return (all, false);
    }
    let mut head = output.head.clone();
    let keep = head.iter().rposition(|&b| b == separator).map_or(0, |i| i + 1);
    head.truncate(keep);
    (head, true)
}

fn build_glob(tool: &str, field: &str, pattern: &str) -> Result<GlobMatcher, ToolError> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map(|glob| glob.compile_matcher())
        .map_err(|err| ToolError::invalid(tool, field, format!("not a valid glob: {err}")))
}

fn has_glob_meta(text: &str) -> bool {
    text.contains(['*', '?', '[', '{'])
}

/// Splits an absolute pattern into the literal directory it starts with and the rest.
fn split_absolute(pattern: &str) -> (String, String) {
    let parts: Vec<&str> = pattern.split('/').collect();
    let literal = parts.iter().take_while(|part| !has_glob_meta(part)).count();
    // The last component stays in the pattern even when literal (an exact file name).
    let literal = literal.min(parts.len() - 1);
    let dir = parts[..literal].join("/");
    let dir = if dir.is_empty() { "/".to_owned() } else { dir };
    (dir, parts[literal..].join("/"))
}

/// Resolves the search root and checks it exists; returns its kind too.
async fn search_root(
    ctx: &ToolContext,
    tool: &str,
    path: Option<&str>,
) -> Result<(PathBuf, FileKind), ToolError> {
    let root = match path {
        Some(path) => ctx.resolve(tool, "path", path).await?,
        None => ctx.cwd.clone(),
    };
    let meta = ctx.fs.stat(&root).await?;
    Ok((root, meta.kind))
}

impl ToolHandler for GlobTool {
    const NAME: &'static str = "glob";
    const DESCRIPTION: &'static str = "Find files by name pattern in the sandbox, newest (most recently modified) first. \
         The glob is matched against paths relative to `path` (default: the workspace): `*` \
         stays within one directory, `**` spans any number of them, `{a,b}` and `[abc]` \
         work. Examples: `**/*.rs`, `src/**/test_*.py`, `*.{json,toml}`. `.git`, \
         `node_modules` and `.dsh-e2b` directories are skipped. Use `grep` to search file \
         contents.";
    type Args = GlobArgs;

    fn handle<'a>(
        &'a self,
        call: Invocation<'a>,
        args: GlobArgs,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        let ctx = call.ctx;
        Box::pin(glob(ctx, args))
    }
}

async fn glob(ctx: &ToolContext, args: GlobArgs) -> Result<ToolOutput, ToolError> {
    if args.pattern.is_empty() {
        return Err(ToolError::invalid("glob", "pattern", "must not be empty"));
    }
    let (path, pattern) = match (&args.path, args.pattern.starts_with('/')) {
        (None, true) => {
            let (dir, rest) = split_absolute(&args.pattern);
            (Some(dir), rest)
        }
        (_, true) => {
            return Err(ToolError::invalid(
                "glob",
                "pattern",
                "must be relative to `path` when `path` is given",
            ));
        }
        _ => (args.path.clone(), args.pattern.trim_start_matches("./").to_owned()),
    };
    let matcher = build_glob("glob", "pattern", &pattern)?;
    let (root, kind) = search_root(ctx, "glob", path.as_deref()).await?;
    if kind != FileKind::Directory {
        return Err(ToolError::NotADirectory { path: root });
    }
    let mut argv: Vec<String> = vec!["find".into(), root.display().to_string(), "-xdev".into()];
    argv.push("(".into());
    for (i, name) in PRUNED.iter().enumerate() {
        if i > 0 {
            argv.push("-o".into());
        }
        argv.extend(["-name".into(), (*name).to_owned()]);
    }
    argv.extend([")", "-prune", "-o", "-type", "f", "-printf", "%T@\\t%P\\0"].map(String::from));
    let (status, stdout, stderr) = run_search(ctx, "glob", argv).await?;
    let (raw, lost) = records(&stdout, 0);
    let mut found: Vec<(f64, String)> = Vec::new();
    for record in raw.split(|&b| b == 0).filter(|record| !record.is_empty()) {
        let record = String::from_utf8_lossy(record);
        let Some((mtime, rel)) = record.split_once('\t') else { continue };
        if matcher.is_match(rel) {
            found.push((mtime.parse().unwrap_or(0.0), rel.to_owned()));
        }
    }
    found.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let total = found.len();
    let mut paths = Vec::new();
    let mut text = String::new();
    let budget = ctx.limits.result_cap.saturating_sub(512);
    for (_, rel) in &found {
        let full = root.join(rel).display().to_string();
        if paths.len() >= ctx.limits.max_results || text.len() + full.len() + 1 > budget {
            break;
        }
        text.push_str(&full);
        text.push('\n');
        paths.push(full);
    }
    let truncated = paths.len() < total || lost;
    if total == 0 {
        let _ = writeln!(text, "No files match `{pattern}` under {}", root.display());
    } else if paths.len() < total {
        let _ = writeln!(
            text,
            "(showing the {} newest of {total} matches; narrow the pattern or path)",
            paths.len()
        );
    }
    if lost {
        text.push_str("(the directory tree is too large: only part of it was searched)\n");
    }
    let warning = (status.code != Some(0)).then(|| first_line(&stderr));
    if let Some(warning) = &warning {
        let _ = writeln!(text, "(warning: {warning})");
    }
    let value = json!({
        "root": root,
        "pattern": pattern,
        "paths": paths,
        "total_matches": total,
        "warning": warning,
    });
    Ok(ToolOutput { text, value, truncated })
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or("").to_owned()
}

impl ToolHandler for GrepTool {
    const NAME: &'static str = "grep";
    const DESCRIPTION: &'static str = "Search file contents in the sandbox with a regular expression (GNU `grep -E` \
         extended syntax: `a|b`, `x+`, `(group)`, `\\bword\\b`, `\\s`, `\\w`, `[0-9]`; \
         there is no `\\d`). Searches `path` (a file or directory, default: the workspace) \
         recursively, skipping binary files and `.git`, `node_modules`, `.dsh-e2b`. \
         `glob` limits the files searched (e.g. `*.rs`, `*.{ts,tsx}`). `-i` ignores case. \
         `output_mode`: `content` (default) gives `path:line:text` lines, with `context` \
         lines around each match shown as `path-line-text`; `files_with_matches` gives the \
         matching files; `count` gives matches per file. Prefer this over running grep \
         through `bash`.";
    type Args = GrepArgs;

    fn handle<'a>(
        &'a self,
        call: Invocation<'a>,
        args: GrepArgs,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        let ctx = call.ctx;
        Box::pin(grep(ctx, args))
    }
}

/// One line of `grep` content output.
struct Line {
    number: u64,
    text: String,
    is_match: bool,
    /// grep printed a `--` group separator before this line.
    gap_before: bool,
}

/// How the optional `glob` argument filters files.
enum FileFilter {
    None,
    /// Simple enough for `grep --include`.
    Include(String),
    /// Matched on the host: against the basename, or (when it has a `/`) the relative path.
    Host {
        matcher: GlobMatcher,
        by_path: bool,
    },
}

async fn grep(ctx: &ToolContext, args: GrepArgs) -> Result<ToolOutput, ToolError> {
    if args.pattern.is_empty() {
        return Err(ToolError::invalid("grep", "pattern", "must not be empty"));
    }
    let context = args.context.unwrap_or(0);
    if context > MAX_CONTEXT {
        return Err(ToolError::invalid("grep", "context", format!("at most {MAX_CONTEXT}")));
    }
    let mode = args.output_mode.unwrap_or_default();
    let filter = match args.glob.as_deref() {
        None | Some("") => FileFilter::None,
        Some(glob) if !glob.contains('/') && !glob.contains('{') => {
            // Validate it the same way, so a bad glob is an argument error here too.
            build_glob("grep", "glob", glob)?;
            FileFilter::Include(glob.to_owned())
        }
        Some(glob) => {
            let glob = glob.trim_start_matches("./");
            FileFilter::Host {
                matcher: build_glob("grep", "glob", glob)?,
                by_path: glob.contains('/'),
            }
        }
    };
    let (root, kind) = search_root(ctx, "grep", args.path.as_deref()).await?;

    let mut argv: Vec<String> =
        ["grep", "-r", "-E", "-I", "-H", "-Z", "--color=never"].map(String::from).into();
    argv.extend(PRUNED.iter().map(|dir| format!("--exclude-dir={dir}")));
    if args.case_insensitive == Some(true) {
        argv.push("-i".into());
    }
    match mode {
        GrepOutputMode::Content => {
            argv.push("-n".into());
            if context > 0 {
                argv.push(format!("-C{context}"));
            }
        }
        GrepOutputMode::FilesWithMatches => argv.push("-l".into()),
        GrepOutputMode::Count => argv.push("-c".into()),
    }
    if let FileFilter::Include(glob) = &filter {
        argv.push(format!("--include={glob}"));
    }
    argv.extend(["-e".to_owned(), args.pattern.clone(), "--".to_owned()]);
    argv.push(root.display().to_string());

    let (status, stdout, stderr) = run_search(ctx, "grep", argv).await?;
    let separator = if mode == GrepOutputMode::FilesWithMatches { 0 } else { b'\n' };
    let (raw, lost) = records(&stdout, separator);
    let mut warning = None;
    match status.code {
        Some(0 | 1) => {}
        Some(2) if raw.is_empty() && !stderr.contains("Permission denied") => {
            return Err(ToolError::invalid(
                "grep",
                "pattern",
                format!("grep refused it: {}", first_line(&stderr).trim_start_matches("grep: ")),
            ));
        }
        _ => warning = Some(first_line(&stderr)),
    }

    let keep = |path: &str| -> bool {
        match &filter {
            FileFilter::Host { matcher, by_path } => {
                let full = Path::new(path);
                if *by_path && kind == FileKind::Directory {
                    full.strip_prefix(&root).is_ok_and(|rel| matcher.is_match(rel))
                } else {
                    full.file_name().is_some_and(|name| matcher.is_match(name))
                }
            }
            _ => true,
        }
    };

    let budget = ctx.limits.result_cap.saturating_sub(512);
    let mut text = String::new();
    let mut truncated = lost;
    let value;
    match mode {
        GrepOutputMode::FilesWithMatches => {
            let mut files: Vec<String> = raw
                .split(|&b| b == 0)
                .filter(|name| !name.is_empty())
                .map(|name| String::from_utf8_lossy(name).into_owned())
                .filter(|name| keep(name))
                .collect();
            files.sort();
            let total = files.len();
            let mut shown = Vec::new();
            for file in files {
                if shown.len() >= ctx.limits.max_results || text.len() + file.len() + 1 > budget {
                    truncated = true;
                    break;
                }
                text.push_str(&file);
                text.push('\n');
                shown.push(file);
            }
            if total == 0 {
                text.push_str("No files match\n");
            } else if shown.len() < total {
                let _ = writeln!(text, "(showing {} of {total} files)", shown.len());
            }
            value = json!({ "mode": "files_with_matches", "files": shown, "total_files": total });
        }
        GrepOutputMode::Count => {
            let mut counts: Vec<(String, u64)> = Vec::new();
            for line in raw.split(|&b| b == b'\n').filter(|line| !line.is_empty()) {
                let Some(nul) = line.iter().position(|&b| b == 0) else { continue };
                let path = String::from_utf8_lossy(&line[..nul]).into_owned();
                let count = String::from_utf8_lossy(&line[nul + 1..]).trim().parse().unwrap_or(0);
                if count > 0 && keep(&path) {
                    counts.push((path, count));
                }
            }
            counts.sort();
            let total: u64 = counts.iter().map(|(_, count)| count).sum();
            let mut shown = Vec::new();
            for (path, count) in &counts {
                let entry = format!("{path}:{count}\n");
                if shown.len() >= ctx.limits.max_results || text.len() + entry.len() > budget {
                    truncated = true;
                    break;
                }
                text.push_str(&entry);
                shown.push(json!({ "path": path, "count": count }));
            }
            let plural = if counts.len() == 1 { "" } else { "s" };
            let _ = writeln!(text, "{total} matches in {} file{plural}", counts.len());
            value = json!({
                "mode": "count",
                "counts": shown,
                "total_matches": total,
                "total_files": counts.len(),
            });
        }
        GrepOutputMode::Content => {
            let mut files: BTreeMap<String, Vec<Line>> = BTreeMap::new();
            let mut gap = false;
            for line in raw.split(|&b| b == b'\n') {
                if line == b"--" {
                    gap = true;
                    continue;
                }
                let Some(nul) = line.iter().position(|&b| b == 0) else { continue };
                let path = String::from_utf8_lossy(&line[..nul]).into_owned();
                let rest = &line[nul + 1..];
                let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
                let Some(&kind_byte) = rest.get(digits) else { continue };
                let Ok(number) = String::from_utf8_lossy(&rest[..digits]).parse() else {
                    continue;
                };
                let text = String::from_utf8_lossy(&rest[digits + 1..]).into_owned();
                let entry = files.entry(path).or_default();
                let gap_before = gap && !entry.is_empty();
                entry.push(Line { number, text, is_match: kind_byte == b':', gap_before });
                gap = false;
            }
            files.retain(|path, _| keep(path));
            let total: usize =
                files.values().map(|lines| lines.iter().filter(|l| l.is_match).count()).sum();
            let mut matches = Vec::new();
            let mut shown_matches = 0;
            'files: for (index, (path, lines)) in files.iter().enumerate() {
                for (i, line) in lines.iter().enumerate() {
                    let mut entry = String::new();
                    if context > 0 && (line.gap_before || (i == 0 && index > 0)) {
                        entry.push_str("--\n");
                    }
                    let sep = if line.is_match { ':' } else { '-' };
                    let shown = cut_line(&line.text, ctx.limits.max_line_chars);
                    let _ = writeln!(entry, "{path}{sep}{}{sep}{shown}", line.number);
                    if text.len() + entry.len() > budget
                        || (line.is_match && shown_matches >= ctx.limits.max_results)
                    {
                        truncated = true;
                        break 'files;
                    }
                    text.push_str(&entry);
                    shown_matches += usize::from(line.is_match);
                    matches.push(json!({
                        "path": path,
                        "line": line.number,
                        "text": cut_to(&line.text, ctx.limits.max_line_chars * 4).0,
                        "match": line.is_match,
                    }));
                }
            }
            if total == 0 {
                text.push_str("No matches\n");
            } else if shown_matches < total {
                let _ = writeln!(
                    text,
                    "(showing {shown_matches} of {total} matching lines; narrow the search)"
                );
            }
            value = json!({
                "mode": "content",
                "matches": matches,
                "total_matches": total,
                "total_files": files.len(),
            });
        }
    }
    if lost {
        text.push_str("(the search produced too much output: only part of it is shown)\n");
    }
    if let Some(warning) = &warning {
        let _ = writeln!(text, "(warning: {warning})");
    }
    let mut value = value;
    if let Some(object) = value.as_object_mut() {
        object.insert("warning".into(), json!(warning));
    }
    Ok(ToolOutput { text, value, truncated })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_patterns_split_at_the_first_wildcard() {
        assert_eq!(split_absolute("/a/b/**/*.rs"), ("/a/b".to_owned(), "**/*.rs".to_owned()));
        assert_eq!(split_absolute("/a/b/c.rs"), ("/a/b".to_owned(), "c.rs".to_owned()));
        assert_eq!(split_absolute("/*.rs"), ("/".to_owned(), "*.rs".to_owned()));
    }
}
