//! LSP base-protocol framing: `Content-Length: N\r\n\r\n` + N bytes of JSON.
//!
//! [`FrameDecoder`] takes bytes exactly as they arrive (a header or body may be split
//! anywhere, several frames may arrive in one chunk) and hands back whole bodies. Its
//! memory is bounded: a header longer than [`MAX_HEADER_BYTES`] or a declared body larger
//! than the frame cap is refused before the body is buffered, and bytes that cannot be a
//! header (non-ASCII, a bare `\n`, a line without `:`) are refused at once.

/// Longest header block accepted (all header lines together).
pub const MAX_HEADER_BYTES: usize = 8 * 1024;

/// Why a byte stream is not valid LSP framing. After any of these the stream cannot be
/// resynchronised: the connection must be dropped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    /// Bytes that cannot be part of a header (the server wrote something other than LSP
    /// frames to stdout).
    #[error("invalid frame header: {0}")]
    Garbage(String),
    /// A header block without `Content-Length`.
    #[error("frame header has no Content-Length")]
    MissingContentLength,
    /// The declared body is larger than the cap.
    #[error("frame of {size} bytes exceeds the {limit}-byte limit")]
    TooLarge { size: u64, limit: usize },
}

/// Encodes one message body as a frame.
pub fn encode(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

/// Reassembles frames from arbitrarily split input.
#[derive(Debug)]
pub struct FrameDecoder {
    buf: Vec<u8>,
    /// Declared length of the body being read, once its header is complete.
    body_len: Option<usize>,
    /// How much of `buf` has already been checked as header bytes.
    checked: usize,
    max_frame: usize,
}

impl FrameDecoder {
    /// A decoder refusing bodies over `max_frame` bytes.
    pub fn new(max_frame: usize) -> Self {
        Self { buf: Vec::new(), body_len: None, checked: 0, max_frame }
    }

    /// Bytes held but not yet returned as a frame.
    pub fn buffered(&self) -> usize {
        self.buf.len()
    }

    /// Appends bytes as read from the stream.
    pub fn push(&mut self, data: &[u8]) {
        self.buf.extend_from_slice(data);
    }

    /// The next complete body, `None` when more bytes are needed.
    pub fn next_frame(&mut self) -> Result<Option<Vec<u8>>, FrameError> {
        loop {
            if let Some(len) = self.body_len {
                if self.buf.len() < len {
                    return Ok(None);
                }
                let rest = self.buf.split_off(len);
                let body = std::mem::replace(&mut self.buf, rest);
                self.body_len = None;
                self.checked = 0;
                return Ok(Some(body));
            }
            match self.parse_header()? {
                Some(len) => self.body_len = Some(len),
                None => return Ok(None),
            }
        }
    }

    /// Parses a complete header block at the start of `buf` (consuming it) and returns
    /// the body length; `None` when the header is still incomplete.
    fn parse_header(&mut self) -> Result<Option<usize>, FrameError> {
        // Validate new header bytes as they come, so garbage is refused without waiting
        // for a `\r\n\r\n` that may never arrive.
        let mut end = None;
        let limit = self.buf.len().min(MAX_HEADER_BYTES + 4);
        let mut i = self.checked;
        while i < limit {
            let byte = self.buf[i];
            if byte == b'\n' && (i == 0 || self.buf[i - 1] != b'\r') {
                return Err(FrameError::Garbage(describe(&self.buf[..=i])));
            }
            if byte != b'\r' && byte != b'\n' && !(0x20..0x7f).contains(&byte) {
                return Err(FrameError::Garbage(describe(&self.buf[..=i])));
            }
            if byte == b'\r' && i > 0 && self.buf[i - 1] == b'\r' {
                return Err(FrameError::Garbage(describe(&self.buf[..=i])));
            }
            if byte == b'\n' && i >= 3 && &self.buf[i - 3..=i] == b"\r\n\r\n" {
                end = Some(i + 1);
                break;
            }
            if byte == b'\n' && i == 1 {
                // A block starting with an empty line: no header at all.
                return Err(FrameError::Garbage(describe(&self.buf[..=i])));
            }
            if byte == b'\n' {
                // A complete header line: it must look like `Name: value`.
                let start =
                    self.buf[..i - 1].windows(2).rposition(|w| w == b"\r\n").map_or(0, |p| p + 2);
                let line = &self.buf[start..i - 1];
                let name_ok = line.iter().position(|&b| b == b':').is_some_and(|colon| {
                    colon > 0
                        && line[..colon].iter().all(|b| b.is_ascii_alphanumeric() || *b == b'-')
                });
                if !name_ok {
                    return Err(FrameError::Garbage(describe(line)));
                }
            }
            i += 1;
        }
        self.checked = i;
        let Some(end) = end else {
            // Refused once no end can come within the cap: the last `\n` of a block whose
            // header lines take MAX_HEADER_BYTES is at index MAX_HEADER_BYTES + 3. Refusing
            // any earlier would make the verdict depend on how the bytes were chunked.
            if self.buf.len() >= MAX_HEADER_BYTES + 4 {
                return Err(FrameError::Garbage(format!(
                    "no end of header within {MAX_HEADER_BYTES} bytes"
                )));
            }
            return Ok(None);
        };
        let header = String::from_utf8_lossy(&self.buf[..end - 4]).into_owned();
        let mut length = None;
        for line in header.split("\r\n") {
            let Some((name, value)) = line.split_once(':') else {
                return Err(FrameError::Garbage(describe(line.as_bytes())));
            };
            if name.trim().eq_ignore_ascii_case("content-length") {
                let size: u64 = value.trim().parse().map_err(|_| {
                    FrameError::Garbage(format!("bad Content-Length {:?}", value.trim()))
                })?;
                if size > self.max_frame as u64 {
                    return Err(FrameError::TooLarge { size, limit: self.max_frame });
                }
                length = Some(size as usize);
            }
        }
        let length = length.ok_or(FrameError::MissingContentLength)?;
        self.buf.drain(..end);
        self.checked = 0;
        Ok(Some(length))
    }
}

/// A short printable rendering of offending bytes for error messages.
fn describe(bytes: &[u8]) -> String {
    let shown = &bytes[..bytes.len().min(80)];
    let mut text = format!("{:?}", String::from_utf8_lossy(shown));
    if bytes.len() > shown.len() {
        text.push('…');
    }
    text
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn frames(input: &[u8]) -> Vec<Vec<u8>> {
        let mut decoder = FrameDecoder::new(1 << 20);
        decoder.push(input);
        let mut out = Vec::new();
        while let Some(frame) = decoder.next_frame().unwrap() {
            out.push(frame);
        }
        out
    }

    #[test]
    fn a_frame_split_at_every_byte_is_reassembled_byte_exact() {
        let bodies: [&[u8]; 3] = [br#"{"a":1}"#, "{\"t\":\"你好 café 🎉\"}".as_bytes(), b"{}"];
        let mut stream = Vec::new();
        for body in bodies {
            stream.extend(encode(body));
        }
        // Extra headers are allowed and ignored.
        stream.extend(b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length: 2\r\n\r\n[]");
        for split in 0..=stream.len() {
            let mut decoder = FrameDecoder::new(1 << 20);
            let mut out = Vec::new();
            for part in [&stream[..split], &stream[split..]] {
                decoder.push(part);
                while let Some(frame) = decoder.next_frame().unwrap() {
                    out.push(frame);
                }
            }
            assert_eq!(out.len(), 4, "split at {split}");
            assert_eq!(out[1], bodies[1]);
            assert_eq!(out[3], b"[]");
            assert_eq!(decoder.buffered(), 0);
        }
        // One byte at a time.
        let mut decoder = FrameDecoder::new(1 << 20);
        let mut out = Vec::new();
        for byte in &stream {
            decoder.push(std::slice::from_ref(byte));
            while let Some(frame) = decoder.next_frame().unwrap() {
                out.push(frame);
            }
        }
        assert_eq!(out, frames(&stream));
    }

    #[test]
    fn oversized_frames_are_refused_before_the_body_is_buffered() {
        let mut decoder = FrameDecoder::new(100);
        decoder.push(b"Content-Length: 1000000000\r\n\r\n");
        assert_eq!(
            decoder.next_frame(),
            Err(FrameError::TooLarge { size: 1_000_000_000, limit: 100 })
        );
    }

    #[test]
    fn garbage_is_refused_early() {
        for input in [
            &b"hello world\n"[..],
            b"Traceback (most recent call last):\r\n",
            b"\xff\xfe",
            b"\r\n\r\n",
            b"Content-Length: abc\r\n\r\n",
        ] {
            let mut decoder = FrameDecoder::new(100);
            decoder.push(input);
            assert!(
                matches!(decoder.next_frame(), Err(FrameError::Garbage(_))),
                "{:?}",
                String::from_utf8_lossy(input)
            );
        }
        let mut decoder = FrameDecoder::new(100);
        decoder.push(b"X-Other: 1\r\n\r\n");
        assert_eq!(decoder.next_frame(), Err(FrameError::MissingContentLength));
        // A header that never ends is refused once it passes the header cap.
        let mut decoder = FrameDecoder::new(100);
        decoder.push(&vec![b'a'; MAX_HEADER_BYTES + 10]);
        assert!(matches!(decoder.next_frame(), Err(FrameError::Garbage(_))));
    }

    #[test]
    fn the_header_cap_does_not_depend_on_chunking() {
        // Header lines of exactly MAX_HEADER_BYTES are accepted, one byte more is refused,
        // whether the block arrives whole or cut just past the cap.
        for (extra, accepted) in [(0, true), (1, false)] {
            let mut stream = b"Content-Length: 2\r\nX-Pad: ".to_vec();
            let pad = MAX_HEADER_BYTES + extra - stream.len();
            stream.extend(std::iter::repeat_n(b'a', pad));
            stream.extend(b"\r\n\r\n{}");
            for split in [stream.len(), MAX_HEADER_BYTES + 1, MAX_HEADER_BYTES + 3] {
                let mut decoder = FrameDecoder::new(100);
                let mut result = Ok(Vec::new());
                for part in [&stream[..split], &stream[split..]] {
                    decoder.push(part);
                    while let Ok(frames) = &mut result {
                        match decoder.next_frame() {
                            Ok(Some(frame)) => frames.push(frame),
                            Ok(None) => break,
                            Err(error) => result = Err(error),
                        }
                    }
                }
                if accepted {
                    assert_eq!(result, Ok(vec![b"{}".to_vec()]), "split at {split}");
                } else {
                    assert!(matches!(result, Err(FrameError::Garbage(_))), "split at {split}");
                }
            }
        }
    }
}
