mod daemon;
mod gvisor;
mod host;
mod identity;
mod kernel;
mod limits;
mod neighbours;
mod probe;
