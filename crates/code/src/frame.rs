//! The runner's frames without I/O: the schema of what the runner says, the check of one
//! line (`base64(UTF-8 JSON)`, base64 alphabet, UTF-8, unknown kinds and fields refused) and
//! the encoding of the host's lines. [`crate::wire`] reads the lines.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::{Deserialize, Deserializer};

use crate::lossless::RawJson;

/// The protocol version in `boot`.
pub(crate) const VERSION: u32 = 1;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FrameError {
    pub kind: String,
    pub message: String,
}

fn some_raw<'de, D: Deserializer<'de>>(d: D) -> Result<Option<RawJson>, D::Error> {
    RawJson::deserialize(d).map(Some)
}

/// A frame from the runner.
#[derive(Debug, Deserialize)]
#[serde(tag = "k", deny_unknown_fields)]
pub(crate) enum RunnerFrame {
    #[serde(rename = "boot")]
    Boot {
        v: u32,
        #[allow(dead_code)]
        pid: u32,
        sha: String,
    },
    #[serde(rename = "call")]
    Call { run: u64, id: u64, tool: String, args: RawJson },
    #[serde(rename = "log")]
    Log { run: u64, text: String },
    #[serde(rename = "output-limit")]
    OutputLimit { run: u64 },
    #[serde(rename = "done")]
    Done {
        run: u64,
        ok: bool,
        #[serde(default, deserialize_with = "some_raw")]
        value: Option<RawJson>,
        #[serde(default)]
        error: Option<FrameError>,
    },
    #[serde(rename = "fatal")]
    Fatal { message: String },
}

/// Why the runner's output was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Violation {
    #[error("a frame is over the {0}-byte cap")]
    Oversize(usize),
    #[error("the runner flooded its output ({0} bytes dropped unread)")]
    Flood(u64),
    #[error("the output ended inside a frame ({0} bytes without a newline)")]
    Truncated(usize),
    #[error("a frame is not base64: {0}")]
    Base64(String),
    #[error("a frame is not UTF-8")]
    Utf8,
    #[error("a frame does not validate: {0}")]
    Schema(String),
}

/// Encodes one host → runner frame line.
pub(crate) fn encode_line(json: &str) -> Vec<u8> {
    let mut line = STANDARD.encode(json.as_bytes()).into_bytes();
    line.push(b'\n');
    line
}

/// Decodes one line (without its newline) into a frame.
pub(crate) fn decode_line(line: &[u8]) -> Result<RunnerFrame, Violation> {
    if let Some(bad) =
        line.iter().find(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=')))
    {
        return Err(Violation::Base64(format!("byte 0x{bad:02x}")));
    }
    let bytes = STANDARD.decode(line).map_err(|e| Violation::Base64(e.to_string()))?;
    let text = std::str::from_utf8(&bytes).map_err(|_| Violation::Utf8)?;
    serde_json::from_str(text).map_err(|e| Violation::Schema(e.to_string()))
}

/// One runner → host line (without its newline) decoded as the engine decodes it: the JSON
/// value the frame carries (a call's arguments, a `done` frame's value; `None` for the other
/// kinds), or why the line is refused. The entry point of the fuzz targets in `fuzz/` and of
/// the test replaying what they found.
pub fn decode_runner_line(line: &[u8]) -> Result<Option<RawJson>, String> {
    match decode_line(line).map_err(|violation| violation.to_string())? {
        RunnerFrame::Call { args, .. } => Ok(Some(args)),
        RunnerFrame::Done { value, .. } => Ok(value),
        RunnerFrame::Boot { .. }
        | RunnerFrame::Log { .. }
        | RunnerFrame::OutputLimit { .. }
        | RunnerFrame::Fatal { .. } => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn done_keeps_a_null_value() {
        let line = encode_line(r#"{"k":"done","run":1,"ok":true,"value":null}"#);
        let frame = decode_line(line.strip_suffix(b"\n").unwrap()).unwrap();
        assert!(matches!(frame, RunnerFrame::Done { value: Some(RawJson::Null), .. }));
    }
}
