mod commands;
mod files;
mod registry;
mod search;
