//! Cuts an input into pieces, so a property can compare decoding in pieces with decoding
//! at once (decoders take bytes as they arrive: a message may be split anywhere).

/// Pieces of 0 to 16 bytes whose lengths follow `seed` (empty pieces included: a read
/// can return nothing new).
pub fn pieces(seed: u8, bytes: &[u8]) -> Vec<&[u8]> {
    let mut state = u32::from(seed).wrapping_mul(0x9e37_79b9) | 1;
    let mut out = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        // xorshift32: cheap, deterministic, never stuck at 0.
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        let len = (state % 17) as usize;
        let (piece, tail) = rest.split_at(len.min(rest.len()));
        out.push(piece);
        rest = tail;
    }
    out
}
