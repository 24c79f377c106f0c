mod harness;
mod lifecycle;
mod restart;
