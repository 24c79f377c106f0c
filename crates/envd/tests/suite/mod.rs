mod caps;
mod door;
mod files;
mod filesystem;
mod framing;
mod http_api;
mod process;
