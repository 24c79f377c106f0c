//! Id blocks: the host uids and gids a sandbox's ids 0-65535 map to, and the blocks this
//! process may hand out (from [`IdRange::DEFAULT_BASE`] as root on the host, the user's
//! subordinate ids in an ordinary user's namespace: see `rootless.rs`).

use serde::{Deserialize, Serialize};

/// Where, inside the user's namespace, the sandboxes' id blocks begin: one block above
/// the ids a system uses (so a sandbox block never overlaps id 0, the user).
pub const BLOCKS_START: u32 = IdRange::SIZE;

/// A block of [`IdRange::SIZE`] host uids (and the same gids) that a sandbox's uids and
/// gids 0-65535 map to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IdRange {
    pub host_base: u32,
}

impl IdRange {
    /// Ids per sandbox: 0-65535, like a normal system's.
    pub const SIZE: u32 = 65_536;
    /// The first block starts here: above every uid a host hands out to people or
    /// services, and below 2^31 so tools that store ids as signed 32-bit numbers work.
    pub const DEFAULT_BASE: u32 = 1 << 30;
    /// The block volumes' files are stored in on the host, just below the sandboxes'
    /// (never handed to a sandbox): each sandbox sees a volume through an idmapped mount
    /// from it onto its own block, so nothing in a volume is owned by host root or by
    /// an id any process runs as.
    pub const VOLUMES: IdRange = IdRange { host_base: Self::DEFAULT_BASE - Self::SIZE };
    /// Blocks between `DEFAULT_BASE` and 2^31.
    pub const SLOTS: u32 = ((1u32 << 31) - Self::DEFAULT_BASE) / Self::SIZE;

    /// Block number `slot` above `base`; `None` past the end of the 32-bit id space.
    pub fn slot(base: u32, slot: u32) -> Option<IdRange> {
        let offset = slot.checked_mul(Self::SIZE)?;
        let host_base = base.checked_add(offset)?;
        host_base.checked_add(Self::SIZE)?;
        Some(IdRange { host_base })
    }

    /// The host id of `inside` in this block.
    pub fn host_id(self, inside: u32) -> u32 {
        self.host_base.saturating_add(inside)
    }

    /// The id inside of the host id `host`, if this block holds it.
    pub fn inside_id(self, host: u32) -> Option<u32> {
        host.checked_sub(self.host_base).filter(|inside| *inside < Self::SIZE)
    }

    /// A block chosen from the sandbox id, for callers without an allocator (the daemon
    /// allocates distinct blocks and records them; two ids may hash to one block here).
    pub fn from_id(id: &str) -> IdRange {
        // FNV-1a: stable across builds and platforms, unlike std's hasher.
        let hash =
            id.bytes().fold(0x811c_9dc5u32, |h, b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193));
        let (base, slots) = Self::blocks_of_this_process();
        IdRange { host_base: base + (hash % slots.max(1)) * Self::SIZE }
    }

    /// Where this process's blocks start and how many there are: from
    /// [`IdRange::DEFAULT_BASE`] up to 2^31 as root, the subordinate ids' blocks in an
    /// ordinary user's namespace (see `rootless.rs`).
    pub fn blocks_of_this_process() -> (u32, u32) {
        match blocks_inside() {
            Some(blocks) => (BLOCKS_START, blocks),
            None => (Self::DEFAULT_BASE, Self::SLOTS),
        }
    }
}

/// How many sandbox blocks this process's user namespace maps, when it is a rootless
/// one made by [`enter`]; `None` in the host's (real root).
pub fn blocks_inside() -> Option<u32> {
    let uid_map = std::fs::read_to_string("/proc/self/uid_map").ok()?;
    let gid_map = std::fs::read_to_string("/proc/self/gid_map").ok()?;
    blocks_of(&uid_map).zip(blocks_of(&gid_map)).map(|(uids, gids)| uids.min(gids))
}

/// The blocks a `uid_map`'s text maps from [`BLOCKS_START`] on; `None` for the host's
/// map (`0 0 4294967295`) or one that is not ours.
fn blocks_of(map: &str) -> Option<u32> {
    let lines: Vec<Vec<u32>> = map
        .lines()
        .map(|line| line.split_whitespace().filter_map(|n| n.parse().ok()).collect())
        .collect();
    lines.iter().find_map(|fields| match fields[..] {
        [inside, _, count] if inside == BLOCKS_START => Some(count / IdRange::SIZE),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_read_back_from_the_namespace_s_map() {
        assert_eq!(blocks_of("         0          0 4294967295\n"), None);
        assert_eq!(blocks_of("0 1000 1\n65536 100000 131072\n"), Some(2));
    }
}
