mod contract;
mod env;
mod host;
