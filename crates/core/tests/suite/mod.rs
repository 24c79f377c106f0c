mod env;
mod fs;
mod process;
mod terminal;
