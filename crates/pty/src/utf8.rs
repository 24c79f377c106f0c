//! Strict incremental UTF-8 decoding: a character split across chunks is held until it
//! completes; invalid bytes become U+FFFD (one per maximal invalid subpart, as the
//! WHATWG decoder does) and are counted.

#[derive(Debug, Default)]
pub struct Utf8Decoder {
    /// The start of a character whose remaining bytes have not arrived (at most 3 bytes).
    pending: Vec<u8>,
    invalid: u64,
}

impl Utf8Decoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Invalid sequences replaced so far.
    pub fn invalid_count(&self) -> u64 {
        self.invalid
    }

    /// Decodes `chunk`, returning every complete character.
    pub fn decode(&mut self, chunk: &[u8]) -> String {
        let owned;
        let mut input: &[u8] = if self.pending.is_empty() {
            chunk
        } else {
            let mut joined = std::mem::take(&mut self.pending);
            joined.extend_from_slice(chunk);
            owned = joined;
            &owned
        };
        let mut out = String::with_capacity(input.len());
        loop {
            match std::str::from_utf8(input) {
                Ok(text) => {
                    out.push_str(text);
                    return out;
                }
                Err(err) => {
                    let (valid, rest) = input.split_at(err.valid_up_to());
                    // `valid` is exactly the prefix from_utf8 just accepted.
                    out.push_str(std::str::from_utf8(valid).unwrap_or_default());
                    match err.error_len() {
                        Some(bad) => {
                            out.push(char::REPLACEMENT_CHARACTER);
                            self.invalid += 1;
                            input = &rest[bad..];
                        }
                        None => {
                            // An incomplete character at the end: wait for more bytes.
                            self.pending.extend_from_slice(rest);
                            return out;
                        }
                    }
                }
            }
        }
    }

    /// Ends the stream: a dangling partial character becomes U+FFFD.
    pub fn finish(&mut self) -> String {
        if self.pending.is_empty() {
            return String::new();
        }
        self.pending.clear();
        self.invalid += 1;
        char::REPLACEMENT_CHARACTER.to_string()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_four_byte_emoji_split_at_every_boundary_decodes_exactly() {
        let text = "a🎉b你好c";
        let bytes = text.as_bytes();
        for first in 0..=bytes.len() {
            for second in first..=bytes.len() {
                let mut decoder = Utf8Decoder::new();
                let mut out = decoder.decode(&bytes[..first]);
                out.push_str(&decoder.decode(&bytes[first..second]));
                out.push_str(&decoder.decode(&bytes[second..]));
                out.push_str(&decoder.finish());
                assert_eq!(out, text, "splits at {first} and {second}");
                assert_eq!(decoder.invalid_count(), 0);
            }
        }
    }

    #[test]
    fn byte_at_a_time_matches_whole_decoding() {
        let text = "PTY-你好 café 🎉\r\n";
        let mut decoder = Utf8Decoder::new();
        let out: String =
            text.as_bytes().iter().map(|b| decoder.decode(std::slice::from_ref(b))).collect();
        assert_eq!(out, text);
    }

    #[test]
    fn invalid_bytes_become_replacement_characters_and_are_counted() {
        let mut decoder = Utf8Decoder::new();
        assert_eq!(decoder.decode(b"ok\xff\xfeend"), "ok\u{fffd}\u{fffd}end");
        assert_eq!(decoder.invalid_count(), 2);
        // A truncated 3-byte sequence followed by ASCII is one maximal subpart.
        assert_eq!(decoder.decode(b"\xe4\xbdX"), "\u{fffd}X");
        assert_eq!(decoder.invalid_count(), 3);
        assert_eq!(decoder.decode(b"\xf0\x9f"), "");
        assert_eq!(decoder.finish(), "\u{fffd}");
        assert_eq!(decoder.invalid_count(), 4);
    }
}
