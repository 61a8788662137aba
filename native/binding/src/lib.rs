//! The Python module `wavemetrics._native` (`python.rs`): the only crate of
//! `native/` that depends on PyO3. It converts Python values to the arguments
//! of `wavemetrics-native`'s readers, detection, walk and command and their
//! results to tuples and bytes; it reads and computes nothing itself.
//!
//! The modules it calls are imported at its root under their own names, so
//! `python.rs` names them `crate::readers`, `crate::walk`, ... as it did when it
//! was a module of that crate.

use wavemetrics_native::{account, command, detect, parallel, readers, summary, walk};

mod python;
