//! What loading a saved state refuses, and the checks that find it: a
//! state made for a tree of another shape ([`LayoutMismatch`]) or holding a
//! value its tree can never produce ([`InvalidState`]). Published as part
//! of [`save`](crate::save); below the tree traits, which name these
//! errors in their checks.

use crate::node::NodeInfo;
use core::fmt;

/// A saved tree state was made for a tree of another shape: its
/// [`LAYOUT_HASH`](crate::BehaviorTree::LAYOUT_HASH) differs from the one of
/// the tree loading it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LayoutMismatch {
    /// The tree that was loading.
    pub tree: &'static str,
    /// This build's layout hash of that tree.
    pub expected: u64,
    /// The layout hash the saved state carries.
    pub found: u64,
}

impl fmt::Display for LayoutMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the saved state of tree `{}` has layout {:#018x}, but this build's tree has layout \
             {:#018x}: the tree's shape changed since the state was saved",
            self.tree, self.found, self.expected
        )
    }
}

impl core::error::Error for LayoutMismatch {}

/// A loaded state holds a value that its tree can never produce: the saved
/// file was edited, damaged, or made by hand. Loading refuses it before
/// anything ticks; see [`Problem`] for what is checked.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InvalidState {
    /// The node whose state holds the value (its
    /// [`tree`](NodeInfo::tree) is the tree, or the embedded tree, that
    /// owns it).
    pub node: &'static NodeInfo,
    /// What is wrong with it.
    pub problem: Problem,
}

/// What is wrong with a value in a loaded state ([`InvalidState`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Problem {
    /// An integer above the largest value the node allows: a `repeat` or
    /// `retry` count at or past its bound, a position past the last child,
    /// a `run_once` mark other than 0, 1, 2, a `rendezvous` role past its
    /// `n`, a `parallel`'s finished children at or past its threshold.
    OutOfRange {
        /// The field (`"count"`, `"next"`, ...).
        field: &'static str,
        /// The value found.
        found: u128,
        /// The largest value allowed there.
        max: u128,
    },
    /// A mask with bits set that the node allows in no state: bits past
    /// the last child, a child both succeeded and failed, a running bit for
    /// a child that is not a leaf held by the parallel.
    Bits {
        /// The field (`"succeeded"`, `"used"`, ...).
        field: &'static str,
        /// The value found.
        found: u128,
        /// The bits allowed there.
        allowed: u128,
    },
    /// A time that is not a number (`NaN`).
    NotANumber {
        /// The field (`"since"`, `"ready"`, ...).
        field: &'static str,
    },
    /// The value a `when let` guard bound no longer matches the guard's
    /// pattern (the node is the guarded child).
    NoMatch,
    /// A shared object's counter disagrees with the agents loaded with it
    /// (see [`check_shared`](crate::save#checking-agents-against-their-shared-object)).
    Shared {
        /// The counter (`"permits taken"`, `"members"`, ...).
        field: &'static str,
        /// What the shared object holds.
        found: u64,
        /// What the agents hold, or the bound the node allows.
        expected: u64,
    },
}

impl fmt::Display for InvalidState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let node = self.node;
        write!(
            f,
            "the saved state of tree `{}` at node {} (",
            node.tree, node.id
        )?;
        if let Some(label) = node.label {
            write!(f, "'{label}: ")?;
        }
        write!(f, "{}, line {}) ", node.kind, node.line)?;
        match self.problem {
            Problem::OutOfRange { field, found, max } => {
                write!(
                    f,
                    "has `{field}` = {found}, above the largest value {max} it allows"
                )
            }
            Problem::Bits {
                field,
                found,
                allowed,
            } => write!(
                f,
                "has `{field}` = {found:#b}, with bits {:#b} outside the allowed {allowed:#b}",
                found & !allowed
            ),
            Problem::NotANumber { field } => write!(f, "has `{field}` = NaN, which is not a time"),
            Problem::NoMatch => {
                f.write_str("holds a value that no longer matches its `when let` pattern")
            }
            Problem::Shared {
                field,
                found,
                expected,
            } => write!(
                f,
                "has {found} {field} in its shared object, where the agents loaded with it hold \
                 {expected}"
            ),
        }
    }
}

impl core::error::Error for InvalidState {}

/// Why a saved state was not loaded, as [`Checked`](crate::save::Checked) gives it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LoadError {
    /// It was saved by a tree of another shape.
    Layout(LayoutMismatch),
    /// It holds a value the tree cannot produce.
    Invalid(InvalidState),
}

impl From<LayoutMismatch> for LoadError {
    fn from(mismatch: LayoutMismatch) -> Self {
        LoadError::Layout(mismatch)
    }
}

impl From<InvalidState> for LoadError {
    fn from(invalid: InvalidState) -> Self {
        LoadError::Invalid(invalid)
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Layout(e) => e.fmt(f),
            LoadError::Invalid(e) => e.fmt(f),
        }
    }
}

impl core::error::Error for LoadError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            LoadError::Layout(e) => Some(e),
            LoadError::Invalid(e) => Some(e),
        }
    }
}

/// Helpers the generated checks of loaded states call.
#[doc(hidden)]
pub mod check {
    use super::{InvalidState, Problem};
    use crate::node::NodeInfo;

    /// `found <= max`.
    #[inline]
    pub fn at_most(
        node: &'static NodeInfo,
        field: &'static str,
        found: u128,
        max: u128,
    ) -> Result<(), InvalidState> {
        if found <= max {
            Ok(())
        } else {
            Err(InvalidState {
                node,
                problem: Problem::OutOfRange { field, found, max },
            })
        }
    }

    /// `found` has no bit outside `allowed`.
    #[inline]
    pub fn bits(
        node: &'static NodeInfo,
        field: &'static str,
        found: u128,
        allowed: u128,
    ) -> Result<(), InvalidState> {
        if found & !allowed == 0 {
            Ok(())
        } else {
            Err(InvalidState {
                node,
                problem: Problem::Bits {
                    field,
                    found,
                    allowed,
                },
            })
        }
    }

    /// `t` is a number.
    #[inline]
    pub fn time(node: &'static NodeInfo, field: &'static str, t: f64) -> Result<(), InvalidState> {
        if t.is_nan() {
            Err(InvalidState {
                node,
                problem: Problem::NotANumber { field },
            })
        } else {
            Ok(())
        }
    }

    /// A `when let` value that does not match.
    #[cold]
    pub fn no_match(node: &'static NodeInfo) -> InvalidState {
        InvalidState {
            node,
            problem: Problem::NoMatch,
        }
    }

    /// A counter of a shared object that is not what it must be.
    #[cold]
    pub fn shared(
        node: &'static NodeInfo,
        field: &'static str,
        found: u64,
        expected: u64,
    ) -> InvalidState {
        InvalidState {
            node,
            problem: Problem::Shared {
                field,
                found,
                expected,
            },
        }
    }
}
