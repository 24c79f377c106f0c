mod bad_input;
mod broken_server;
mod common;
mod fuzz;
mod provision;
mod python;
mod server_cache;
mod typescript;
