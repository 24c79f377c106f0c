mod harness;
mod lifecycle;
mod pool;
mod restart;
