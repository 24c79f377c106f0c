//! Turns decoded terminal output into plain text pieces: control sequences (CSI, OSC,
//! DCS/PM/APC/SOS strings, two-byte escapes) are removed, OSC payloads are reported
//! (prompt markers travel as OSC 133), and the line-editing controls that matter for a
//! text transcript (CR, LF, BS, TAB, erase-in-line) come out as pieces. The filter is
//! incremental: a sequence split across chunks is recognised.

/// What the filter found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece<'a> {
    /// A run of printable characters (emitted whole: most output is plain text).
    Text(&'a str),
    /// A printable character met inside the slow path.
    Char(char),
    LineFeed,
    CarriageReturn,
    Backspace,
    Tab,
    /// `CSI n K`: 0 = cursor to end, 1 = start to cursor, 2 = whole line.
    EraseLine(u8),
    /// The payload of an OSC sequence (e.g. `133;D;0`).
    Osc(String),
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum State {
    #[default]
    Ground,
    Escape,
    EscapeIntermediate,
    Csi,
    Osc,
    OscEscape,
    /// DCS, SOS, PM, APC: skipped up to the string terminator.
    Str,
    StrEscape,
}

/// Longest OSC payload kept; longer ones are dropped (a flood cannot grow memory).
const MAX_OSC: usize = 4096;

#[derive(Debug, Default)]
pub struct ControlFilter {
    state: State,
    csi_params: String,
    osc: String,
    osc_overflow: bool,
}

impl ControlFilter {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn feed<'a>(&mut self, text: &'a str, mut emit: impl FnMut(Piece<'a>)) {
        let mut rest = text;
        while !rest.is_empty() {
            if self.state == State::Ground {
                // Fast path: a run of printable characters becomes one piece.
                let run = rest.find(|c: char| !is_printable(c)).unwrap_or(rest.len());
                if run > 0 {
                    emit(Piece::Text(&rest[..run]));
                    rest = &rest[run..];
                    continue;
                }
            }
            let mut chars = rest.chars();
            let Some(c) = chars.next() else { break };
            self.step(c, &mut emit);
            rest = chars.as_str();
        }
    }

    fn step<'a>(&mut self, c: char, emit: &mut impl FnMut(Piece<'a>)) {
        match self.state {
            State::Ground => match c {
                '\x1b' => self.state = State::Escape,
                '\u{9b}' => self.enter_csi(),
                '\u{9d}' => self.enter_osc(),
                '\n' | '\x0b' | '\x0c' => emit(Piece::LineFeed),
                '\r' => emit(Piece::CarriageReturn),
                '\x08' => emit(Piece::Backspace),
                '\t' => emit(Piece::Tab),
                c if (c as u32) < 0x20 || c == '\x7f' || ('\u{80}'..='\u{9f}').contains(&c) => {}
                c => emit(Piece::Char(c)),
            },
            State::Escape => match c {
                '[' => self.enter_csi(),
                ']' => self.enter_osc(),
                'P' | 'X' | '^' | '_' => self.state = State::Str,
                ' '..='/' => self.state = State::EscapeIntermediate,
                '\x1b' => {}
                _ => self.state = State::Ground,
            },
            State::EscapeIntermediate => {
                if !(' '..='/').contains(&c) {
                    self.state = State::Ground;
                }
            }
            State::Csi => match c {
                '@'..='~' => {
                    if c == 'K' {
                        let mode = match self.csi_params.as_str() {
                            "" | "0" => 0,
                            "1" => 1,
                            _ => 2,
                        };
                        emit(Piece::EraseLine(mode));
                    }
                    self.state = State::Ground;
                }
                '\x1b' => self.state = State::Escape,
                c if self.csi_params.len() < 64 => self.csi_params.push(c),
                _ => {}
            },
            State::Osc => match c {
                '\x07' | '\u{9c}' => self.finish_osc(emit),
                '\x1b' => self.state = State::OscEscape,
                c => {
                    if self.osc.len() + c.len_utf8() > MAX_OSC {
                        self.osc_overflow = true;
                    } else {
                        self.osc.push(c);
                    }
                }
            },
            State::OscEscape => {
                if c == '\\' {
                    self.finish_osc(emit);
                } else {
                    // An unterminated OSC interrupted by a new escape sequence.
                    self.osc.clear();
                    self.state = State::Escape;
                    self.step(c, emit);
                }
            }
            State::Str => match c {
                '\x1b' => self.state = State::StrEscape,
                '\x07' | '\u{9c}' => self.state = State::Ground,
                _ => {}
            },
            State::StrEscape => self.state = if c == '\\' { State::Ground } else { State::Str },
        }
    }

    fn enter_csi(&mut self) {
        self.csi_params.clear();
        self.state = State::Csi;
    }

    fn enter_osc(&mut self) {
        self.osc.clear();
        self.osc_overflow = false;
        self.state = State::Osc;
    }

    fn finish_osc<'a>(&mut self, emit: &mut impl FnMut(Piece<'a>)) {
        if !self.osc_overflow {
            emit(Piece::Osc(std::mem::take(&mut self.osc)));
        }
        self.osc.clear();
        self.state = State::Ground;
    }
}

/// Characters the ground state prints as they are.
fn is_printable(c: char) -> bool {
    let code = c as u32;
    code >= 0x20 && code != 0x7f && !(0x80..=0x9f).contains(&code)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(chunks: &[&str]) -> String {
        let mut filter = ControlFilter::new();
        let mut out = Vec::new();
        for chunk in chunks {
            filter.feed(chunk, |p| out.push(render(&p)));
        }
        out.concat()
    }

    fn render(piece: &Piece<'_>) -> String {
        [piece]
            .iter()
            .map(|p| match p {
                Piece::Text(t) => (*t).to_owned(),
                Piece::Char(c) => c.to_string(),
                Piece::LineFeed => "\n".into(),
                Piece::CarriageReturn => "<CR>".into(),
                Piece::Backspace => "<BS>".into(),
                Piece::Tab => "<TAB>".into(),
                Piece::EraseLine(m) => format!("<EL{m}>"),
                Piece::Osc(payload) => format!("<OSC {payload}>"),
            })
            .collect()
    }

    #[test]
    fn strips_colors_cursor_moves_and_bracketed_paste() {
        let pieces = run(&["\x1b[?2004h$ \x1b[1;31mred\x1b[0m ok\r\n\x1b[?2004l\r"]);
        assert_eq!(pieces, "$ red ok<CR>\n<CR>");
    }

    #[test]
    fn reports_osc_payloads_even_when_split_and_with_either_terminator() {
        let pieces = run(&["a\x1b]13", "3;D;0\x07b\x1b]0;title\x1b", "\\c"]);
        assert_eq!(pieces, "a<OSC 133;D;0>b<OSC 0;title>c");
    }

    #[test]
    fn erase_line_and_dcs_strings() {
        let pieces = run(&["50%\r\x1b[K100%\x1b[2K", "\x1bPq#0;2;0;0;0\x1b\\done", "\x1b(Bx"]);
        assert_eq!(pieces, "50%<CR><EL0>100%<EL2>donex");
    }

    #[test]
    fn oversized_osc_is_dropped_without_growing() {
        let long = "x".repeat(MAX_OSC + 10);
        let pieces = run(&["\x1b]", &long, "\x07after"]);
        assert_eq!(pieces, "after");
    }
}
