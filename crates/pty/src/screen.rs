//! The viewport: what a terminal of the session's size shows now, from a `vt100` screen
//! model (which copes with full-screen programs and the alternate screen).

use std::num::NonZeroU16;

pub struct Screen {
    parser: vt100::Parser,
    /// Output not yet given to the parser (the model is updated lazily, in bulk).
    pending: Vec<u8>,
}

/// Pending output is handed to the parser once it grows past this, or when the screen
/// is looked at.
const FLUSH_AT: usize = 1 << 20;

impl std::fmt::Debug for Screen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Screen").field("size", &self.parser.screen().size()).finish()
    }
}

fn at_least_one(n: u16) -> NonZeroU16 {
    NonZeroU16::new(n).unwrap_or(NonZeroU16::MIN)
}

impl Screen {
    pub fn new(rows: u16, cols: u16) -> Self {
        Self {
            parser: vt100::Parser::new(at_least_one(rows), at_least_one(cols), 0),
            pending: Vec::new(),
        }
    }

    /// Feeds raw bytes (the model decodes UTF-8 across calls itself).
    pub fn process(&mut self, bytes: &[u8]) {
        self.pending.extend_from_slice(bytes);
        if self.pending.len() >= FLUSH_AT {
            self.flush();
        }
    }

    /// Hands pending output to the parser. A long run of plain text (printable bytes and
    /// line breaks only) that scrolls far past the screen leaves exactly the state its
    /// last lines leave, so only those are parsed: floods cost little.
    fn flush(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let pending = std::mem::take(&mut self.pending);
        let rows = usize::from(self.parser.screen().size().0.get());
        let start = plain_prefix_to_skip(&pending, rows + 1);
        self.parser.process(&pending[start..]);
    }

    pub fn resize(&mut self, rows: u16, cols: u16) {
        self.flush();
        self.parser.screen_mut().set_size(at_least_one(rows), at_least_one(cols));
    }

    /// The visible text, trailing blank lines removed.
    pub fn text(&mut self) -> String {
        self.flush();
        let contents = self.parser.screen().contents();
        contents.trim_end_matches(['\n', ' ']).to_owned()
    }

    pub fn alternate_screen(&mut self) -> bool {
        self.flush();
        self.parser.screen().alternate_screen()
    }

    /// The cursor's (row, col).
    pub fn cursor(&mut self) -> (u16, u16) {
        self.flush();
        self.parser.screen().cursor_position()
    }
}

/// How many leading bytes of `bytes` can be skipped: the longest prefix that ends right
/// after a newline, is followed by at least `keep_lines` more newlines, and holds only
/// printable text, CR, LF, TAB and BS (no escape sequence, no C1 control). Those lines
/// would scroll off the screen leaving no trace.
fn plain_prefix_to_skip(bytes: &[u8], keep_lines: usize) -> usize {
    // Find the cut: `keep_lines` newlines back from the end.
    let mut seen = 0;
    let mut cut = None;
    for (i, b) in bytes.iter().enumerate().rev() {
        if *b == b'\n' {
            seen += 1;
            if seen > keep_lines {
                cut = Some(i + 1);
                break;
            }
        }
    }
    let Some(cut) = cut else { return 0 };
    let plain = bytes[..cut].windows(2).all(|w| {
        let b = w[0];
        let c1 = b == 0xc2 && (0x80..=0x9f).contains(&w[1]);
        !c1 && (b >= 0x20 && b != 0x7f || matches!(b, b'\r' | b'\n' | b'\t' | 0x08))
    }) && bytes[..cut].last().is_some_and(|b| *b == b'\n');
    if plain { cut } else { 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skipping_a_plain_flood_leaves_the_same_screen() {
        let mut flood = Vec::new();
        for i in 0..20_000 {
            flood.extend_from_slice(format!("line {i} with a tab\tand é\r\n").as_bytes());
        }
        flood.extend_from_slice(b"$ ");
        let mut whole = vt100::Parser::new(at_least_one(5), at_least_one(30), 0);
        whole.process(&flood);
        let mut lazy = Screen::new(5, 30);
        for chunk in flood.chunks(16 * 1024) {
            lazy.process(chunk);
        }
        assert_eq!(lazy.text(), whole.screen().contents().trim_end_matches(['\n', ' ']));
        assert_eq!(lazy.cursor(), whole.screen().cursor_position());
        // An escape sequence in the prefix forbids skipping it.
        let mut colored = b"\x1b[?1049h".to_vec();
        colored.extend_from_slice(&flood);
        assert_eq!(plain_prefix_to_skip(&colored, 6), 0);
        assert!(plain_prefix_to_skip(&flood, 6) > flood.len() - 1000);
    }

    #[test]
    fn viewport_tracks_text_and_the_alternate_screen() {
        let mut screen = Screen::new(5, 20);
        screen.process("$ echo PTY-你好\r\nPTY-".as_bytes());
        screen.process(&"你好\r\n$ ".as_bytes()[..4]);
        screen.process(&"你好\r\n$ ".as_bytes()[4..]);
        assert_eq!(screen.text(), "$ echo PTY-你好\nPTY-你好\n$");
        screen.process(b"\x1b[?1049h\x1b[2J\x1b[Hfull screen");
        assert!(screen.alternate_screen());
        assert_eq!(screen.text(), "full screen");
        screen.process(b"\x1b[?1049l");
        assert!(!screen.alternate_screen());
        assert_eq!(screen.text(), "$ echo PTY-你好\nPTY-你好\n$");
    }
}
