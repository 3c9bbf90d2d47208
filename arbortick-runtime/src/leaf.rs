use crate::status::Status;

/// A stateful leaf: an action that may take several ticks and must be told
/// when it is abandoned.
///
/// A type implementing `Leaf<A>` is written in a tree as a struct literal
/// (`MoveTo { speed: 2.0 }`) or a unit struct (`Idle`). The literal is
/// evaluated afresh each tick with the tree's bindings in scope, so its fields
/// are the leaf's *parameters*. What the leaf must remember between ticks
/// lives in [`Leaf::Memory`], which the generated per-agent state keeps only
/// while the leaf runs.
///
/// `A` is the agent type: the leaf receives the tree's **first parameter**,
/// which must therefore be declared as `&mut A` in the tree header.
///
/// # Lifecycle
///
/// Every started leaf ends exactly once:
///
/// 1. [`start`](Leaf::start) is called on the first tick with a fresh
///    `Memory::default()`. Returning `Success` or `Failure` ends the leaf at
///    once; returning `Running` keeps the memory.
/// 2. [`tick`](Leaf::tick) is called on each later tick until it returns
///    `Success` or `Failure`.
/// 3. If the tree abandons the leaf while it is running (a reactive node
///    preempts it, a parallel node finishes, a subtree is preempted, or the
///    tree is reset), [`halt`](Leaf::halt) is called instead, once, and the
///    memory is dropped.
///
/// `halt` takes no `self`: the bindings used to build the
/// literal may not exist any more when the tree is reset. Store in `Memory`
/// whatever cleanup needs.
///
/// # Time
///
/// A leaf sees the tick's time through its fields: the literal is built
/// each tick, so `Steer { dt: cx.dt_f32() }` (or `now: cx.now`) carries the
/// current tick's values, and `Memory` keeps what must last (when the run
/// started, how far it got). The methods take no context, so a leaf is
/// tested with plain numbers.
///
/// ```
/// use bt_runtime::{Leaf, Status};
///
/// struct Bot { x: i32, moving: bool }
///
/// /// Walks one step per tick until `x` reaches `to`.
/// struct WalkTo { to: i32 }
///
/// impl Leaf<Bot> for WalkTo {
///     type Memory = ();
///
///     fn start(&self, _: &mut (), bot: &mut Bot) -> Status {
///         bot.moving = true;
///         self.tick(&mut (), bot)
///     }
///
///     fn tick(&self, _: &mut (), bot: &mut Bot) -> Status {
///         if bot.x == self.to {
///             bot.moving = false;
///             return Status::Success;
///         }
///         bot.x += (self.to - bot.x).signum();
///         Status::Running
///     }
///
///     fn halt(_: &mut (), bot: &mut Bot) {
///         bot.moving = false;
///     }
/// }
/// # let mut bot = Bot { x: 0, moving: false };
/// # assert_eq!(WalkTo { to: 1 }.start(&mut (), &mut bot), Status::Running);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a leaf of `{A}`",
    label = "not a leaf",
    note = "a leaf type implements `bt::Leaf<{A}>`, or `bt::future::FutureLeaf<{A}>` when its action is a future"
)]
pub trait Leaf<A: ?Sized> {
    /// What the leaf remembers between ticks while it runs. Created with
    /// `Default::default()` on each start; dropped when the leaf ends.
    type Memory: Default + Clone + core::fmt::Debug;

    /// First tick of a new run. The default implementation calls [`Leaf::tick`].
    #[inline]
    fn start(&self, memory: &mut Self::Memory, agent: &mut A) -> Status {
        self.tick(memory, agent)
    }

    /// A later tick of a run that returned `Running` before.
    fn tick(&self, memory: &mut Self::Memory, agent: &mut A) -> Status;

    /// The run is abandoned before it finished: release what `start` took.
    /// The default implementation does nothing.
    #[inline]
    fn halt(memory: &mut Self::Memory, agent: &mut A) {
        let _ = (memory, agent);
    }
}
