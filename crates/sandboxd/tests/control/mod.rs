mod harness;
mod lifecycle;
mod network;
mod pool;
mod ports;
mod restart;
