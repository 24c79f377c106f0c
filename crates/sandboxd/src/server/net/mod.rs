pub mod attached;
pub mod domains;
pub mod host_addresses;
pub mod netns;
pub mod network;
pub mod spare_netns;
pub(crate) mod upstream;
