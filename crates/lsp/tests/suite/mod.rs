mod bad_input;
mod broken_server;
mod common;
mod python;
mod typescript;
