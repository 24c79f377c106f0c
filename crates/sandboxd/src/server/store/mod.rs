pub(crate) mod described;
pub mod disk;
pub(crate) mod files;
pub(crate) mod held_blocks;
pub mod layers;
pub(crate) mod ready_file;
pub(crate) mod record;
pub(crate) mod volume_records;
