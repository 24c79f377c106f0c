//! Frames between the host and the runner: one `base64(UTF-8 JSON)` per line.
//!
//! Everything the runner says is untrusted: [`FrameReader`] bounds every line and hands
//! each one to [`crate::frame`], which checks the base64 alphabet, UTF-8 and the JSON
//! schema (unknown kinds and fields refused); any problem is a [`Violation`].

use dsh_core::OutputBuffer;

use crate::frame::{RunnerFrame, Violation, decode_line};

/// Reads frames from the runner's stdout buffer, bounded.
pub(crate) struct FrameReader {
    stdout: OutputBuffer,
    offset: u64,
    pending: Vec<u8>,
    scanned: usize,
    max_line: usize,
    last_line: usize,
}

const READ_CHUNK: usize = 256 * 1024;

impl FrameReader {
    pub(crate) fn new(stdout: OutputBuffer, max_line: usize) -> Self {
        Self { stdout, offset: 0, pending: Vec::new(), scanned: 0, max_line, last_line: 0 }
    }

    /// The length of the last frame line returned by [`Self::next`].
    pub(crate) fn last_line_len(&self) -> usize {
        self.last_line
    }

    /// The next frame; `Ok(None)` at a clean end of stream. Cancel-safe: all state
    /// lives in `self` and is updated between awaits.
    pub(crate) async fn next(&mut self) -> Result<Option<RunnerFrame>, Violation> {
        loop {
            if let Some(pos) = self.pending[self.scanned..].iter().position(|&b| b == b'\n') {
                let end = self.scanned + pos;
                self.last_line = end;
                let frame = decode_line(&self.pending[..end]);
                self.pending.drain(..=end);
                self.scanned = 0;
                return frame.map(Some);
            }
            self.scanned = self.pending.len();
            if self.pending.len() > self.max_line {
                return Err(Violation::Oversize(self.max_line));
            }
            let chunk = self.stdout.read_from(self.offset, READ_CHUNK);
            if chunk.skipped > 0 {
                return Err(Violation::Flood(chunk.skipped));
            }
            self.offset = chunk.next_offset;
            if !chunk.data.is_empty() {
                self.pending.extend_from_slice(&chunk.data);
                continue;
            }
            if chunk.closed {
                if self.pending.is_empty() {
                    return Ok(None);
                }
                return Err(Violation::Truncated(self.pending.len()));
            }
            self.stdout.wait_beyond(self.offset).await;
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use base64::Engine as _;
    use base64::engine::general_purpose::STANDARD;
    use dsh_core::OutputMode;

    use super::*;
    use crate::frame::encode_line;

    fn line(json: &str) -> Vec<u8> {
        encode_line(json)
    }

    #[tokio::test]
    async fn frames_split_across_chunks_are_reassembled() {
        let buffer = OutputBuffer::new(OutputMode::Pipe);
        let mut reader = FrameReader::new(buffer.clone(), 1024);
        let bytes = line(r#"{"k":"log","run":1,"text":"héllo"}"#);
        buffer.push(&bytes[..5]);
        buffer.push(&bytes[5..]);
        buffer.close();
        assert!(matches!(reader.next().await.unwrap(), Some(RunnerFrame::Log { run: 1, .. })));
        assert!(reader.next().await.unwrap().is_none());
    }

    #[tokio::test]
    async fn violations_are_typed() {
        type Check = fn(&Violation) -> bool;
        let cases: Vec<(Vec<u8>, Check)> = vec![
            (b"{\"k\":\"log\"}\n".to_vec(), |v| matches!(v, Violation::Base64(_))),
            (line("{not json"), |v| matches!(v, Violation::Schema(_))),
            (line(r#"{"k":"nope","run":1}"#), |v| matches!(v, Violation::Schema(_))),
            (line(r#"{"k":"log","run":1,"text":"x","extra":1}"#), |v| {
                matches!(v, Violation::Schema(_))
            }),
            (line(r#"{"k":"log","run":1,"text":"\ud800"}"#), |v| matches!(v, Violation::Schema(_))),
            (
                STANDARD.encode([0xff, 0xfe]).into_bytes().into_iter().chain([b'\n']).collect(),
                |v| matches!(v, Violation::Utf8),
            ),
            (line(r#"{"k":"log","run":1,"text":"x"}"#)[..10].to_vec(), |v| {
                matches!(v, Violation::Truncated(10))
            }),
            (vec![b'A'; 5000], |v| matches!(v, Violation::Oversize(_))),
        ];
        for (bytes, check) in cases {
            let buffer = OutputBuffer::new(OutputMode::Pipe);
            buffer.push(&bytes);
            buffer.close();
            let mut reader = FrameReader::new(buffer, 1024);
            let error = reader.next().await.unwrap_err();
            assert!(check(&error), "{error:?} for {:?}", String::from_utf8_lossy(&bytes));
        }
    }

    #[tokio::test]
    async fn dropped_output_is_a_flood() {
        let buffer = OutputBuffer::new(OutputMode::Capped { max_bytes: 64 });
        let mut reader = FrameReader::new(buffer.clone(), 1024);
        buffer.push(&[b'A'; 20]);
        buffer.push(&[b'B'; 200]);
        // The first read sees the head, the next one finds bytes dropped.
        let error = reader.next().await.unwrap_err();
        assert!(matches!(error, Violation::Flood(_)), "{error:?}");
    }
}
