//! Positions: the tool speaks 1-based lines and 1-based UTF-16 columns, LSP speaks
//! 0-based lines and 0-based UTF-16 code units (the default `utf-16` position encoding),
//! Rust strings are UTF-8. These helpers convert between them and cut one-line excerpts.

/// Lines of a text as LSP counts them: split on `\n`, `\r\n` and `\r`.
pub fn lines(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                out.push(&text[start..i]);
                start = i + 1;
            }
            b'\r' => {
                out.push(&text[start..i]);
                if bytes.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    out.push(&text[start..]);
    out
}

/// The length of `line` in UTF-16 code units.
pub fn utf16_len(line: &str) -> u32 {
    line.chars().map(|c| c.len_utf16() as u32).sum()
}

/// Why a position does not fit a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PositionError {
    /// Line numbers start at 1; column numbers start at 1.
    Zero,
    /// The line does not exist; `lines` is how many the file has.
    LineOutOfRange { lines: u32 },
    /// The column is past the end of the line (`len` UTF-16 units, so the last valid
    /// 1-based column is `len + 1`, just after the last character).
    ColumnOutOfRange { len: u32 },
    /// The column falls between the two halves of a surrogate pair (inside an emoji, for
    /// example).
    InsideSurrogatePair,
}

impl std::fmt::Display for PositionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Zero => f.write_str("line and character are 1-based"),
            Self::LineOutOfRange { lines } => write!(f, "the file has {lines} line(s)"),
            Self::ColumnOutOfRange { len } => write!(
                f,
                "the line is {len} UTF-16 code unit(s) long, so the last valid character is {}",
                len + 1
            ),
            Self::InsideSurrogatePair => {
                f.write_str("the character falls inside a surrogate pair (a character outside the BMP, such as an emoji, takes 2 UTF-16 units)")
            }
        }
    }
}

/// Checks a 1-based (line, UTF-16 column) against `text` and returns the 0-based LSP
/// position.
pub fn to_lsp(text: &str, line: u32, column: u32) -> Result<(u32, u32), PositionError> {
    if line == 0 || column == 0 {
        return Err(PositionError::Zero);
    }
    let all = lines(text);
    let Some(target) = all.get(line as usize - 1) else {
        return Err(PositionError::LineOutOfRange { lines: all.len() as u32 });
    };
    let unit = column - 1;
    utf16_to_byte(target, unit)?;
    Ok((line - 1, unit))
}

/// The byte offset in `line` of UTF-16 unit offset `unit`.
pub fn utf16_to_byte(line: &str, unit: u32) -> Result<usize, PositionError> {
    let mut units = 0u32;
    for (byte, ch) in line.char_indices() {
        if units == unit {
            return Ok(byte);
        }
        units += ch.len_utf16() as u32;
        if units > unit {
            return Err(PositionError::InsideSurrogatePair);
        }
    }
    if units == unit { Ok(line.len()) } else { Err(PositionError::ColumnOutOfRange { len: units }) }
}

/// The UTF-16 unit offset of byte offset `byte` in `line` (clamped to the line, and to a
/// character boundary).
pub fn byte_to_utf16(line: &str, byte: usize) -> u32 {
    let mut end = byte.min(line.len());
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    utf16_len(&line[..end])
}

/// A one-line excerpt of line `line0` (0-based) of `text`: trimmed, at most `max_chars`
/// characters (an ellipsis marks a cut). Empty when the line does not exist.
pub fn excerpt(text: &str, line0: u32, max_chars: usize) -> String {
    let Some(line) = lines(text).get(line0 as usize).copied() else {
        return String::new();
    };
    let trimmed = line.trim();
    if trimmed.chars().count() <= max_chars {
        return trimmed.to_owned();
    }
    let mut cut: String = trimmed.chars().take(max_chars).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn lines_follow_lsp_line_endings() {
        assert_eq!(lines("a\nb\r\nc\rd"), ["a", "b", "c", "d"]);
        assert_eq!(lines("a\n"), ["a", ""]);
        assert_eq!(lines(""), [""]);
    }

    #[test]
    fn utf16_columns_count_cjk_accents_and_emoji_correctly() {
        let line = "s = \"你好 café 🎉\"; f(x)";
        // 你, 好, é: one unit each; 🎉: two units.
        assert_eq!(utf16_len("你好 café 🎉"), 10);
        let f_byte = line.find("f(x)").unwrap();
        let f_unit = byte_to_utf16(line, f_byte);
        assert_eq!(f_unit, 18);
        assert_eq!(utf16_to_byte(line, f_unit), Ok(f_byte));
        // Inside the emoji.
        let emoji_unit = byte_to_utf16(line, line.find('🎉').unwrap());
        assert_eq!(utf16_to_byte(line, emoji_unit + 1), Err(PositionError::InsideSurrogatePair));
        assert_eq!(utf16_to_byte(line, emoji_unit + 2), Ok(line.find('🎉').unwrap() + 4));
        // End of line is valid, one past is not.
        let len = utf16_len(line);
        assert_eq!(utf16_to_byte(line, len), Ok(line.len()));
        assert_eq!(utf16_to_byte(line, len + 1), Err(PositionError::ColumnOutOfRange { len }));
        // Combining accent: e + U+0301 is two units.
        assert_eq!(utf16_len("e\u{301}x"), 3);
        // Byte offsets inside a character clamp to its start.
        assert_eq!(byte_to_utf16("你好", 4), 1);
    }

    #[test]
    fn one_based_positions_are_checked_against_the_text() {
        let text = "first\n你好🎉\n";
        assert_eq!(to_lsp(text, 1, 1), Ok((0, 0)));
        assert_eq!(to_lsp(text, 2, 5), Ok((1, 4)));
        assert_eq!(to_lsp(text, 2, 6), Err(PositionError::ColumnOutOfRange { len: 4 }));
        assert_eq!(to_lsp(text, 2, 4), Err(PositionError::InsideSurrogatePair));
        assert_eq!(to_lsp(text, 3, 1), Ok((2, 0)));
        assert_eq!(to_lsp(text, 4, 1), Err(PositionError::LineOutOfRange { lines: 3 }));
        assert_eq!(to_lsp(text, 0, 1), Err(PositionError::Zero));
    }

    #[test]
    fn excerpts_are_trimmed_and_cut_on_characters() {
        let text = "a\n    def f(): return \"你好 café 🎉\"\n";
        assert_eq!(excerpt(text, 1, 200), "def f(): return \"你好 café 🎉\"");
        assert_eq!(excerpt(text, 1, 5), "def f…");
        assert_eq!(excerpt(text, 9, 5), "");
    }
}
