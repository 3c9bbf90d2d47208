//! placeholder
#![no_std]
pub use bt_macros::behavior_tree;
pub use bt_runtime::*;
