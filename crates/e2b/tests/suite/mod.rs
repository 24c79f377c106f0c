pub mod backend;
mod envd_client;
mod lying_peer;
pub mod sandbox;
