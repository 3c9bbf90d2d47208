//! Ticking many agents: in order on this thread (deterministic, for tests
//! and replays), or across threads with rayon (feature `rayon`).
//!
//! A generated tree's per-agent state is `Send`, and its shared state
//! (`<Tree>Shared`) is `Sync`: only atomics. So agents of one tree may tick
//! on many threads at once with one shared object. Gates, global cooldowns
//! and rendezvous keep their limits under any interleaving. Which agent wins
//! a permit then depends on thread timing, so replays use the in-order path.
//!
//! The crate documentation of `bt` (section "Synchronized trees") shows
//! both paths with a shared gate.

/// Calls `f(index, item)` for every item, in order, on this thread.
#[inline]
pub fn for_each_in_order<T, F: FnMut(usize, &mut T)>(items: &mut [T], mut f: F) {
    for (i, item) in items.iter_mut().enumerate() {
        f(i, item);
    }
}

/// Calls `f(index, item)` for every item on rayon's thread pool, in chunks
/// of at least `min_chunk` items so small work is not split too finely.
#[cfg(feature = "rayon")]
pub fn for_each_parallel<T, F>(items: &mut [T], min_chunk: usize, f: F)
where
    T: Send,
    F: Fn(usize, &mut T) + Sync + Send,
{
    use rayon::prelude::*;
    items
        .par_iter_mut()
        .with_min_len(min_chunk.max(1))
        .enumerate()
        .for_each(|(i, item)| f(i, item));
}
