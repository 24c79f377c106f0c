mod errors;
mod filesystem;
mod limits;
mod network;
mod process;
