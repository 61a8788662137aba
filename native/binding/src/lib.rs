//! The Python module `wavemetrics._native` (`python.rs`): the only crate of
//! `native/` that depends on PyO3. It converts Python values to the arguments
//! of `wavemetrics-native`'s readers, detection, walk and command and their
//! results to tuples and bytes; it reads and computes nothing itself.
//!
//! Every module of `wavemetrics-native` (and the core's it re-exports) is
//! imported at its root under its own name, so `python.rs` names them
//! `crate::readers`, `crate::walk`, ... as it did when it was a module of that
//! crate, whichever it uses.

use wavemetrics_native::*;

mod python;
