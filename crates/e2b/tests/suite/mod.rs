mod backend;
mod envd_client;
mod lying_peer;
mod sandbox;
