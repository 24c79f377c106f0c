mod harness;
mod lifecycle;
mod metrics;
mod network;
mod pool;
mod ports;
mod restart;
mod sudo;
