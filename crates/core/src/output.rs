//! Captured process output: capped (head + tail kept), readable from byte offsets while
//! the process runs.
//!
//! Offsets count every byte the stream ever produced, dropped or not, so a caller polling
//! "output since offset N" keeps a stable position; when the bytes at N were dropped the
//! next chunk says how many were skipped.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::watch;

/// How a process's stdout or stderr is captured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputMode {
    /// Not captured (`/dev/null`).
    Null,
    /// Captured whole. Only for output known to be small: nothing bounds the memory.
    Pipe,
    /// Captured with at most `max_bytes` kept: the first half and the last half of the
    /// cap; the middle is dropped and counted. The process is never blocked by a full
    /// pipe: the output is drained as fast as it is produced.
    Capped { max_bytes: usize },
}

/// Bytes read from an [`OutputBuffer`] at an offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputChunk {
    /// Offset of the first byte of `data` (after any skipped bytes).
    pub offset: u64,
    pub data: Vec<u8>,
    /// Bytes between the requested offset and `offset` that were dropped by the cap.
    pub skipped: u64,
    /// Where to read next.
    pub next_offset: u64,
    /// The stream has ended: nothing will follow `next_offset`.
    pub closed: bool,
}

/// The whole retained output once (or while) a process runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CapturedOutput {
    /// The first bytes produced.
    pub head: Vec<u8>,
    /// The last bytes produced (continuing `head` directly when nothing was dropped).
    pub tail: Vec<u8>,
    /// How many bytes between head and tail were dropped.
    pub dropped: u64,
    /// How many bytes the stream produced in all.
    pub total: u64,
}

impl CapturedOutput {
    /// Whether anything was dropped.
    pub fn truncated(&self) -> bool {
        self.dropped > 0
    }

    /// Head and tail as text (invalid UTF-8 replaced), with a marker where bytes were
    /// dropped.
    pub fn to_string_lossy(&self) -> String {
        let head = String::from_utf8_lossy(&self.head);
        let tail = String::from_utf8_lossy(&self.tail);
        if self.dropped == 0 {
            format!("{head}{tail}")
        } else {
            format!("{head}\n[... {} bytes dropped ...]\n{tail}", self.dropped)
        }
    }
}

#[derive(Debug)]
struct State {
    head_cap: usize,
    tail_cap: usize,
    head: Vec<u8>,
    tail: VecDeque<u8>,
    total: u64,
    closed: bool,
}

impl State {
    fn tail_start(&self) -> u64 {
        self.total - self.tail.len() as u64
    }

    fn push(&mut self, mut data: &[u8]) {
        self.total += data.len() as u64;
        let room = self.head_cap - self.head.len();
        if room > 0 {
            let take = room.min(data.len());
            self.head.extend_from_slice(&data[..take]);
            data = &data[take..];
        }
        if self.tail_cap == 0 || data.is_empty() {
            return;
        }
        if data.len() >= self.tail_cap {
            self.tail.clear();
            self.tail.extend(&data[data.len() - self.tail_cap..]);
            return;
        }
        let overflow = (self.tail.len() + data.len()).saturating_sub(self.tail_cap);
        self.tail.drain(..overflow);
        self.tail.extend(data);
    }
}

/// One output stream of a process: the backend appends, callers read. Cheap to clone
/// (clones share the buffer).
#[derive(Debug, Clone)]
pub struct OutputBuffer {
    state: Arc<Mutex<State>>,
    /// Carries the total byte count; bumped on every append and on close.
    changed: watch::Sender<(u64, bool)>,
}

impl OutputBuffer {
    /// A buffer for `mode`. For [`OutputMode::Null`] the buffer stays empty (the caller
    /// should close it at once).
    pub fn new(mode: OutputMode) -> Self {
        let (head_cap, tail_cap) = match mode {
            OutputMode::Null => (0, 0),
            OutputMode::Pipe => (usize::MAX, 0),
            OutputMode::Capped { max_bytes } => (max_bytes / 2, max_bytes - max_bytes / 2),
        };
        let state = State {
            head_cap,
            tail_cap,
            head: Vec::new(),
            tail: VecDeque::new(),
            total: 0,
            closed: false,
        };
        Self { state: Arc::new(Mutex::new(state)), changed: watch::channel((0, false)).0 }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave the state inconsistent in a way
        // that matters more than losing output, so keep going.
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Appends bytes as the process produced them (backends only).
    pub fn push(&self, data: &[u8]) {
        let total = {
            let mut state = self.lock();
            state.push(data);
            state.total
        };
        self.changed.send_replace((total, false));
    }

    /// Marks the end of the stream (backends only).
    pub fn close(&self) {
        let total = {
            let mut state = self.lock();
            state.closed = true;
            state.total
        };
        self.changed.send_replace((total, true));
    }

    /// Total bytes produced so far.
    pub fn total(&self) -> u64 {
        self.lock().total
    }

    /// Whether the stream has ended.
    pub fn is_closed(&self) -> bool {
        self.lock().closed
    }

    /// The retained bytes from `offset` on (at most `max_len` of them).
    pub fn read_from(&self, offset: u64, max_len: usize) -> OutputChunk {
        let state = self.lock();
        let head_len = state.head.len() as u64;
        let tail_start = state.tail_start();
        let mut data = Vec::new();
        let mut start = offset.min(state.total);
        let mut skipped = 0;
        if start < head_len {
            let from = start as usize;
            let to = (head_len as usize).min(from.saturating_add(max_len));
            data.extend_from_slice(&state.head[from..to]);
        } else {
            if start < tail_start {
                skipped = tail_start - start;
                start = tail_start;
            }
            let from = (start - tail_start) as usize;
            let to = state.tail.len().min(from.saturating_add(max_len));
            data.extend(state.tail.range(from..to));
        }
        // Reading the head's end may continue straight into the tail when nothing lies
        // between them; the caller simply reads again from `next_offset`.
        let next_offset = start + data.len() as u64;
        OutputChunk {
            offset: start,
            skipped,
            next_offset,
            closed: state.closed && next_offset >= state.total,
            data,
        }
    }

    /// Waits until bytes beyond `offset` exist or the stream is closed.
    pub async fn wait_beyond(&self, offset: u64) {
        let mut receiver = self.changed.subscribe();
        // `wait_for` checks the current value first, so nothing is missed.
        let _ = receiver.wait_for(|&(total, closed)| total > offset || closed).await;
    }

    /// Waits until the stream is closed.
    pub async fn closed(&self) {
        let mut receiver = self.changed.subscribe();
        let _ = receiver.wait_for(|&(_, closed)| closed).await;
    }

    /// Everything retained: head, tail and the dropped count.
    pub fn snapshot(&self) -> CapturedOutput {
        let state = self.lock();
        CapturedOutput {
            head: state.head.clone(),
            tail: state.tail.iter().copied().collect(),
            dropped: state.tail_start() - state.head.len() as u64,
            total: state.total,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn small_output_is_kept_whole() {
        let buffer = OutputBuffer::new(OutputMode::Capped { max_bytes: 10 });
        buffer.push(b"abc");
        buffer.push(b"defg");
        let snap = buffer.snapshot();
        assert_eq!((snap.head.as_slice(), snap.tail.as_slice()), (&b"abcde"[..], &b"fg"[..]));
        assert_eq!(snap.dropped, 0);
        assert_eq!(snap.to_string_lossy(), "abcdefg");
    }

    #[test]
    fn capped_output_keeps_head_and_tail_and_counts_the_rest() {
        let buffer = OutputBuffer::new(OutputMode::Capped { max_bytes: 6 });
        for byte in b'a'..=b'z' {
            buffer.push(&[byte]);
        }
        let snap = buffer.snapshot();
        assert_eq!(snap.head, b"abc");
        assert_eq!(snap.tail, b"xyz");
        assert_eq!((snap.dropped, snap.total), (20, 26));
        // A big single chunk behaves the same as many small ones.
        let big = OutputBuffer::new(OutputMode::Capped { max_bytes: 6 });
        big.push(&(b'a'..=b'z').collect::<Vec<_>>());
        assert_eq!(big.snapshot(), snap);
    }

    #[test]
    fn reading_from_offsets_reports_skipped_bytes() {
        let buffer = OutputBuffer::new(OutputMode::Capped { max_bytes: 6 });
        buffer.push(b"abcdefghij");
        let first = buffer.read_from(0, 100);
        assert_eq!((first.data.as_slice(), first.next_offset), (&b"abc"[..], 3));
        let second = buffer.read_from(first.next_offset, 100);
        assert_eq!(second.skipped, 4);
        assert_eq!((second.offset, second.data.as_slice()), (7, &b"hij"[..]));
        assert!(!second.closed);
        buffer.close();
        assert!(buffer.read_from(10, 100).closed);
    }

    #[test]
    fn pipe_mode_keeps_everything() {
        let buffer = OutputBuffer::new(OutputMode::Pipe);
        buffer.push(b"hello ");
        buffer.push(b"world");
        assert_eq!(buffer.read_from(6, 3).data, b"wor");
        assert_eq!(buffer.snapshot().head, b"hello world");
    }
}
