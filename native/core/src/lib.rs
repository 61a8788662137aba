//! The leaf modules of wavemetrics' native core: they use nothing of the rest
//! of it, and `cargo test` pins their behaviour with exact values. They live in
//! a crate of their own so that the cargo-mutants gate (scripts/
//! native_mutation_gate.py) rebuilds and tests only them for each mutant, not
//! the readers and the native command too (docs/testing.md, "Mutation gate").
//! The `wavemetrics-native` crate re-exports every module under its old path
//! (`crate::json`, `crate::summary`, ...).

pub mod account;
pub mod activity;
pub mod arena;
pub mod classify;
pub mod json;
#[cfg(test)]
mod json_oracle;
pub mod lines;
pub mod parallel;
pub mod summary;
pub mod time;
pub mod uuids;
pub mod window;
