//! Small text helpers shared by the tools.

use std::borrow::Cow;

/// The longest prefix of `text` of at most `max_bytes` bytes ending on a character
/// boundary, and how many bytes were left out.
pub(crate) fn cut_to(text: &str, max_bytes: usize) -> (&str, usize) {
    if text.len() <= max_bytes {
        return (text, 0);
    }
    let mut end = max_bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (&text[..end], text.len() - end)
}

/// `line` with at most `max_chars` characters; longer lines are cut and marked.
pub(crate) fn cut_line(line: &str, max_chars: usize) -> Cow<'_, str> {
    match line.char_indices().nth(max_chars) {
        None => Cow::Borrowed(line),
        Some((end, _)) => {
            let rest = line[end..].chars().count();
            Cow::Owned(format!("{}… [{rest} more characters]", &line[..end]))
        }
    }
}

/// Lines of `text` the way editors count them: a final newline ends the last line
/// rather than starting an empty one; `\r\n` and `\n` both end a line.
pub(crate) fn lines(text: &str) -> Vec<&str> {
    text.lines().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cutting_respects_character_boundaries() {
        assert_eq!(cut_to("héllo", 2), ("h", 5));
        assert_eq!(cut_to("abc", 5), ("abc", 0));
        assert_eq!(cut_line("abcdef", 3), "abc… [3 more characters]");
        assert_eq!(cut_line("abc", 3), "abc");
        assert_eq!(lines("a\nb\n"), ["a", "b"]);
        assert_eq!(lines("a\r\nb"), ["a", "b"]);
        assert!(lines("").is_empty());
    }
}
