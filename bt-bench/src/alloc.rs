//! A global allocator that counts, for allocations per tick and bytes per
//! agent. Binaries opt in with
//! `#[global_allocator] static A: bt_bench::alloc::Counting = bt_bench::alloc::Counting;`.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Counts the allocations and live bytes of the thread inside [`measure`];
/// otherwise a plain forward to the system allocator plus one thread-local
/// load.
pub struct Counting;

thread_local! {
    static ON: Cell<bool> = const { Cell::new(false) };
    static COUNT: Cell<usize> = const { Cell::new(0) };
    static ALLOCATED: Cell<usize> = const { Cell::new(0) };
    static FREED: Cell<usize> = const { Cell::new(0) };
}

fn add(counter: &'static std::thread::LocalKey<Cell<usize>>, n: usize) {
    counter.with(|c| c.set(c.get() + n));
}

fn on() -> bool {
    ON.try_with(Cell::get).unwrap_or(false)
}

// SAFETY: every method forwards to `System` with the arguments it was given,
// so `System`'s guarantees hold; the only additions are atomic counters.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if on() {
            add(&COUNT, 1);
            add(&ALLOCATED, layout.size());
        }
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if on() {
            add(&FREED, layout.size());
        }
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if on() {
            add(&COUNT, 1);
            add(&ALLOCATED, new_size);
            add(&FREED, layout.size());
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// What [`measure`] saw.
#[derive(Clone, Copy, Debug, Default)]
pub struct Usage {
    /// Allocation calls (including reallocations).
    pub allocations: usize,
    /// Bytes allocated minus bytes freed.
    pub live_bytes: isize,
}

/// Runs `f` with counting on for this thread (one measuring thread at a
/// time). Counts are zero
/// unless the binary installed [`Counting`] as its global allocator.
pub fn measure<R>(f: impl FnOnce() -> R) -> (R, Usage) {
    for counter in [&COUNT, &ALLOCATED, &FREED] {
        counter.with(|c| c.set(0));
    }
    ON.with(|on| on.set(true));
    let r = f();
    ON.with(|on| on.set(false));
    let usage = Usage {
        allocations: COUNT.with(Cell::get),
        live_bytes: ALLOCATED.with(Cell::get) as isize - FREED.with(Cell::get) as isize,
    };
    (r, usage)
}
