//! The transcript of a terminal as text lines, capped by line count and bytes (newest
//! kept). Lines are numbered from the session's start, so a line number stays valid as
//! older lines fall off; reads say when the asked-for range was already dropped.

use std::collections::VecDeque;

use crate::filter::Piece;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caps {
    pub max_lines: usize,
    pub max_bytes: usize,
}

impl Default for Caps {
    fn default() -> Self {
        Self { max_lines: 10_000, max_bytes: 4 * 1024 * 1024 }
    }
}

/// A window of the transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    pub text: String,
    /// Lines in the transcript so far (dropped ones included).
    pub total_lines: u64,
    /// Number of the first line returned (0-based, from the session's start).
    pub line_begin: u64,
    /// One past the last line returned.
    pub line_end: u64,
    /// Lines the caller asked for that were dropped by the caps, or cut by `count`.
    pub truncated: bool,
}

#[derive(Debug)]
pub struct Scrollback {
    caps: Caps,
    lines: VecDeque<String>,
    /// Number of the oldest kept line.
    first: u64,
    bytes: usize,
    /// The line being written: characters and the cursor column within it.
    current: Vec<char>,
    cursor: usize,
    /// Columns in a tab stop.
    tab: usize,
}

/// A line longer than this is wrapped: one enormous line cannot defeat the byte cap.
const MAX_LINE_CHARS: usize = 64 * 1024;

impl Scrollback {
    pub fn new(caps: Caps) -> Self {
        Self {
            caps,
            lines: VecDeque::new(),
            first: 0,
            bytes: 0,
            current: Vec::new(),
            cursor: 0,
            tab: 8,
        }
    }

    pub fn apply(&mut self, piece: &Piece<'_>) {
        match piece {
            Piece::Text(text) => {
                if self.cursor == self.current.len() && self.cursor + text.len() < MAX_LINE_CHARS {
                    // Appending at the end of the line: no overwrite to do.
                    let before = self.current.len();
                    self.current.extend(text.chars());
                    self.cursor += self.current.len() - before;
                } else {
                    text.chars().for_each(|c| self.put(c));
                }
            }
            Piece::Char(c) => self.put(*c),
            Piece::LineFeed => self.commit(),
            Piece::CarriageReturn => self.cursor = 0,
            Piece::Backspace => self.cursor = self.cursor.saturating_sub(1),
            Piece::Tab => {
                let next = (self.cursor / self.tab + 1) * self.tab;
                while self.cursor < next {
                    self.put(' ');
                }
            }
            Piece::EraseLine(0) => self.current.truncate(self.cursor),
            Piece::EraseLine(1) => {
                let end = self.cursor.min(self.current.len());
                self.current[..end].iter_mut().for_each(|c| *c = ' ');
            }
            Piece::EraseLine(_) => self.current.clear(),
            Piece::Osc(_) => {}
        }
    }

    fn put(&mut self, c: char) {
        if self.cursor >= MAX_LINE_CHARS {
            self.commit();
        }
        if self.cursor < self.current.len() {
            self.current[self.cursor] = c;
        } else {
            while self.current.len() < self.cursor {
                self.current.push(' ');
            }
            self.current.push(c);
        }
        self.cursor += 1;
    }

    fn commit(&mut self) {
        let line: String = self.current.drain(..).collect();
        self.cursor = 0;
        self.bytes += line.len() + 1;
        self.lines.push_back(line);
        while self.lines.len() > self.caps.max_lines
            || (self.bytes > self.caps.max_bytes && self.lines.len() > 1)
        {
            if let Some(dropped) = self.lines.pop_front() {
                self.bytes -= dropped.len() + 1;
                self.first += 1;
            }
        }
    }

    /// Lines so far, the unfinished one included when it has text.
    pub fn total_lines(&self) -> u64 {
        self.first + self.lines.len() as u64 + u64::from(!self.current.is_empty())
    }

    /// The line being written (e.g. a prompt).
    pub fn current_line(&self) -> String {
        self.current.iter().collect()
    }

    fn line(&self, number: u64) -> Option<String> {
        if number < self.first {
            return None;
        }
        let index = (number - self.first) as usize;
        match index.cmp(&self.lines.len()) {
            std::cmp::Ordering::Less => self.lines.get(index).cloned(),
            std::cmp::Ordering::Equal if !self.current.is_empty() => Some(self.current_line()),
            _ => None,
        }
    }

    /// Lines `[begin, end)` by number, as far as they are still kept.
    pub fn range(&self, begin: u64, end: u64) -> Window {
        let total = self.total_lines();
        let end = end.min(total);
        let kept_begin = begin.max(self.first).min(end);
        let lines: Vec<String> = (kept_begin..end).filter_map(|n| self.line(n)).collect();
        Window {
            text: lines.join("\n"),
            total_lines: total,
            line_begin: kept_begin,
            line_end: end,
            truncated: kept_begin > begin,
        }
    }

    /// `count` lines ending `offset` lines before the newest (the `terminal_read` view).
    pub fn read_recent(&self, offset: u64, count: u64) -> Window {
        let total = self.total_lines();
        let end = total.saturating_sub(offset);
        let begin = end.saturating_sub(count);
        let mut window = self.range(begin, end);
        // Older lines exist that this window leaves out.
        window.truncated |= begin > 0;
        window
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::filter::ControlFilter;

    fn feed(scrollback: &mut Scrollback, text: &str) {
        let mut filter = ControlFilter::new();
        filter.feed(text, |p| scrollback.apply(&p));
    }

    #[test]
    fn carriage_returns_overwrite_like_a_terminal() {
        let mut sb = Scrollback::new(Caps::default());
        feed(&mut sb, "progress 10%\rprogress 100%\r\ndone\r\nabc\rX\x08\x08Y\n\tT\n");
        assert_eq!(sb.range(0, 10).text, "progress 100%\ndone\nYbc\n        T");
        assert_eq!(sb.total_lines(), 4);
    }

    #[test]
    fn caps_keep_the_newest_lines_and_numbers_stay_valid() {
        let mut sb = Scrollback::new(Caps { max_lines: 3, max_bytes: 1 << 20 });
        for i in 0..10 {
            feed(&mut sb, &format!("line {i}\n"));
        }
        assert_eq!(sb.total_lines(), 10);
        let window = sb.range(7, 10);
        assert_eq!(
            (window.text.as_str(), window.line_begin, window.line_end, window.truncated),
            ("line 7\nline 8\nline 9", 7, 10, false)
        );
        let dropped = sb.range(2, 9);
        assert_eq!(
            (dropped.text.as_str(), dropped.line_begin, dropped.truncated),
            ("line 7\nline 8", 7, true)
        );

        let mut by_bytes = Scrollback::new(Caps { max_lines: 1000, max_bytes: 21 });
        for i in 0..10 {
            feed(&mut by_bytes, &format!("line {i}\n"));
        }
        assert_eq!(by_bytes.range(0, 10).text, "line 7\nline 8\nline 9");
    }

    #[test]
    fn read_recent_counts_from_the_newest_line_and_includes_the_prompt() {
        let mut sb = Scrollback::new(Caps::default());
        feed(&mut sb, "a\nb\nc\n$ ");
        let window = sb.read_recent(0, 2);
        assert_eq!(
            (window.text.as_str(), window.line_begin, window.line_end, window.total_lines),
            ("c\n$ ", 2, 4, 4)
        );
        assert!(window.truncated, "older lines exist");
        let all = sb.read_recent(0, 500);
        assert_eq!((all.text.as_str(), all.truncated), ("a\nb\nc\n$ ", false));
        let older = sb.read_recent(2, 1);
        assert_eq!(older.text, "b");
    }

    #[test]
    fn a_flood_on_one_line_stays_bounded() {
        let mut sb = Scrollback::new(Caps { max_lines: 100, max_bytes: 256 * 1024 });
        let chunk = "x".repeat(1 << 16);
        for _ in 0..64 {
            feed(&mut sb, &chunk);
        }
        assert!(sb.bytes <= 256 * 1024 + MAX_LINE_CHARS + 1);
        assert!(sb.lines.len() <= 4);
    }
}
