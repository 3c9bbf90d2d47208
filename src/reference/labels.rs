//! Labels and metadata: naming nodes for traces, views and shared state.
//!
//! Any node may carry a label, written like a Rust block label:
//! `'flee: sequence { .. }`. Labels are unique within a tree and appear in
//! the node table and on the active path.
//!
//! ```
//! # use bt::prelude::*;
//! # struct Bot;
//! # impl Bot { fn scared(&self) -> bool { true } }
//! behavior_tree! {
//!     tree Coward(me: &mut Bot) {
//!         'root: select { 'flee: sequence { cond me.scared(), running }, success }
//!     }
//! }
//! let node = &Coward::NODES[1];
//! assert_eq!((node.label, node.kind, node.parent, node.depth), (Some("flee"), NodeKind::Sequence, Some(0), 1));
//!
//! let mut state = Coward::default();
//! state.tick(&mut Bot);
//! let path: Vec<_> = state.active_path().iter().map(|n| n.info.name()).collect();
//! assert_eq!(path, ["root", "flee", "running"]);
//! ```

#[allow(unused_imports)]
use crate::*;
