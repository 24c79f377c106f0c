//! The viewport: what a terminal of the session's size shows now, from a `vt100` screen
//! model (which copes with full-screen programs and the alternate screen).

use std::num::NonZeroU16;

pub struct Screen {
    parser: vt100::Parser,
}

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
        Self { parser: vt100::Parser::new(at_least_one(rows), at_least_one(cols), 0) }
    }

    /// Feeds raw bytes (the model decodes UTF-8 across calls itself).
    pub fn process(&mut self, bytes: &[u8]) {
        self.parser.process(bytes);
    }

    pub fn resize(&mut self, rows: u16, cols: u16) {
        self.parser.screen_mut().set_size(at_least_one(rows), at_least_one(cols));
    }

    /// The visible text, trailing blank lines removed.
    pub fn text(&self) -> String {
        let contents = self.parser.screen().contents();
        contents.trim_end_matches(['\n', ' ']).to_owned()
    }

    pub fn alternate_screen(&self) -> bool {
        self.parser.screen().alternate_screen()
    }

    /// The cursor's (row, col).
    pub fn cursor(&self) -> (u16, u16) {
        self.parser.screen().cursor_position()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
