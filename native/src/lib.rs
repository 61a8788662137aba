//! wavemetrics' native core: the `claude-code` and `events` readers, pairing,
//! streaming wave assembly and the parallelism_v1 summary, bit for bit as the
//! pure-Python reference computes them. The crate knows nothing of the Python
//! API it serves; `python.rs` (feature `python`) is the thin binding.

pub mod account;
pub mod command;
pub mod detect;
pub mod json;
#[cfg(test)]
mod json_oracle;
pub mod lines;
pub mod parallel;
pub mod pyjson;
pub mod readers;
pub mod summary;
pub mod time;
pub mod uuids;

#[cfg(feature = "python")]
mod python;
