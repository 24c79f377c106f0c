pub mod backend;
mod cloud;
mod envd_client;
mod layers;
mod lying_peer;
pub mod sandbox;
