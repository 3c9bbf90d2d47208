//! Support for decider groups (`prioritized`, `sequential`, `random`,
//! `shuffle`, `scored`) and `scope` hooks, called by generated code.

use crate::node::NodeInfo;
use crate::status::Status;

/// What a `scope` hook's `enter` and `tick` expressions may return: `()`
/// always proceeds; `bool` proceeds on `true` and fails the scope on
/// `false`; a [`Status`] proceeds unless it is `Failure`.
pub trait HookResult {
    /// `true` to go on into the scope's child.
    fn proceed(self) -> bool;
}

impl HookResult for () {
    #[inline]
    fn proceed(self) -> bool {
        true
    }
}

impl HookResult for bool {
    #[inline]
    fn proceed(self) -> bool {
        self
    }
}

impl HookResult for Status {
    #[inline]
    fn proceed(self) -> bool {
        !self.is_failure()
    }
}

/// A tick that could not decide within its bounds. The tree's state is
/// consistent: the group that hit the bound failed for this tick, and the
/// rest of the tree went on from there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TickError {
    /// A decider group written with `redecides = N` needed more than `N`
    /// masked redecides in one tick: its children kept failing as soon as
    /// they were activated, a sign that a group's guard accepts where none
    /// of its children's guards do (Spore's "subset rule").
    RedecideLimit {
        /// The group.
        node: &'static NodeInfo,
        /// The status the tree returned for this tick.
        status: Status,
    },
}

impl TickError {
    /// The status the tree returned for the tick that erred.
    pub fn status(&self) -> Status {
        match self {
            TickError::RedecideLimit { status, .. } => *status,
        }
    }
}

impl core::fmt::Display for TickError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            TickError::RedecideLimit { node, .. } => write!(
                f,
                "decider group `{}` (node {} of tree `{}`, line {}) exceeded its redecide limit \
                 in one tick",
                node.name(),
                node.id,
                node.tree,
                node.line
            ),
        }
    }
}

impl core::error::Error for TickError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hook_results() {
        assert!(().proceed() && true.proceed() && !false.proceed());
        assert!(Status::Running.proceed() && !Status::Failure.proceed());
    }
}
