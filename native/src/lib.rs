//! wavemetrics' native core: the `claude-code` and `events` readers, pairing,
//! streaming wave assembly and the parallelism_v1 summary, bit for bit as the
//! pure-Python reference computes them. The crate knows nothing of the Python
//! API it serves and has no PyO3 in it: the binding is its own crate
//! (`binding/`, the module `wavemetrics._native`).
//!
//! The leaf modules (JSON scanner, line reader, time, uuid store, line
//! accounting, threads, summary) are the `wavemetrics-core` crate (`core/`),
//! re-exported here under their own names, so `crate::json` and the rest read
//! as before; they are a crate of their own for the cargo-mutants gate's sake
//! (`core/src/lib.rs`).

pub use wavemetrics_core::{
    account, activity, arena, classify, json, lines, parallel, summary, time, uuids, window,
};

pub mod command;
pub mod detect;
pub mod io;
pub mod pyjson;
pub mod readers;
pub mod walk;
