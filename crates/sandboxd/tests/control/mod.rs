mod harness;
mod lifecycle;
mod pool;
mod ports;
mod restart;
