//! Random trees over the nodes BehaviorTree.CPP has, for the differential
//! test against BT.CPP itself: composites, decorators, scripted leaves and
//! subtrees, as `behavior_tree!` source text. Shared by the build script
//! (which compiles them) and the test (which sends their XML to BT.CPP).
//!
//! Leaves are labelled by a number unique in the program: `'c7: cond
//! w.c(7)` (a condition) and `'a8: A { id: 8 }` (a stateful action, which
//! starts `Running`). Both sides give leaf `n` the same script,
//! [`script`]`(seed, n)`, and find it by the label (BT.CPP's `name`).
//!
//! The trees stay clear of the documented differences from BT.CPP 4.x (see
//! the `bt` crate's "BehaviorTree.CPP's catalog"): `repeat`, `retry` and
//! `sequence_with_memory` only hold actions, which never finish in the tick
//! they start, so BT.CPP never yields between their runs; `while_do_else`
//! conditions are `cond`s, which never run. Those differences have tests of
//! their own.

use super::generator::Rng;

/// Trees embedded by the others.
pub const LIBRARY: usize = 3;

/// One generated tree.
pub struct BtTree {
    /// `Bt3`, or `BtSub1` for a library tree.
    pub name: String,
    /// Its `tree Name(..) { .. }` text.
    pub text: String,
    /// Embedded by other trees, not tested on its own.
    pub library: bool,
}

/// What leaf `n` returns, call after call, cycling: a condition succeeds
/// or fails; an action's ticks after its start (which is always `Running`)
/// may also run. 0 Running, 1 Success, 2 Failure.
pub fn script(seed: u64, leaf: usize, condition: bool) -> Vec<u8> {
    let mut rng = Rng(seed ^ (leaf as u64).wrapping_mul(0x2545_f491_4f6c_dd1d));
    let len = 1 + rng.below(5);
    (0..len)
        .map(|_| {
            if condition {
                1 + rng.below(2) as u8
            } else {
                rng.below(3) as u8
            }
        })
        .collect()
}

struct Gen {
    rng: Rng,
    leaf: usize,
    subtrees: usize,
}

impl Gen {
    fn cond(&mut self) -> String {
        self.leaf += 1;
        format!("'c{0}: cond w.c({0})", self.leaf)
    }

    fn action(&mut self) -> String {
        self.leaf += 1;
        format!("'a{0}: A {{ id: {0} }}", self.leaf)
    }

    fn leaf(&mut self) -> String {
        match self.rng.below(20) {
            0 => "success".to_owned(),
            1 => "failure".to_owned(),
            2..=9 => self.cond(),
            _ => self.action(),
        }
    }

    fn children(&mut self, depth: usize, n: usize) -> String {
        (0..n)
            .map(|_| self.node(depth + 1))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn node(&mut self, depth: usize) -> String {
        if depth >= 4 || self.rng.chance(25 + 10 * depth as u64) {
            if self.subtrees > 0 && depth > 0 && self.rng.chance(8) {
                let k = self.rng.below(self.subtrees);
                return format!("BtSub{k}(w, cx)");
            }
            return self.leaf();
        }
        match self.rng.below(16) {
            0..=5 => {
                // The async forms are chosen by the leaf count, not by a
                // draw, so that a seed's other trees stay as they were.
                let kind = match self.rng.pick(&[
                    "sequence",
                    "select",
                    "reactive_sequence",
                    "reactive_select",
                ]) {
                    "sequence" if self.leaf.is_multiple_of(4) => "async_sequence",
                    "select" if self.leaf.is_multiple_of(4) => "async_select",
                    kind => kind,
                };
                let n = 2 + self.rng.below(3);
                format!("{kind} {{ {} }}", self.children(depth, n))
            }
            6 => {
                let kind = self.rng.pick(&["if_then_else", "while_do_else"]);
                let c = self.cond();
                format!("{kind} {{ {c}, {} }}", self.children(depth, 2))
            }
            7 => {
                let n = 2 + self.rng.below(3);
                let success = 1 + self.rng.below(n);
                let failure = 1 + self.rng.below(n);
                format!(
                    "parallel(success = {success}, failure = {failure}) {{ {} }}",
                    self.children(depth, n)
                )
            }
            8 => {
                let n = 2 + self.rng.below(3);
                let max = 1 + self.rng.below(n);
                format!(
                    "parallel_all(max_failures = {max}) {{ {} }}",
                    self.children(depth, n)
                )
            }
            9 => {
                let n = 2 + self.rng.below(2);
                let actions: Vec<String> = (0..n).map(|_| self.action()).collect();
                format!("sequence_with_memory {{ {} }}", actions.join(", "))
            }
            15 => {
                // BT.CPP's `if` is a script: a literal condition is one.
                let holds = self.rng.pick(&["true", "true", "false"]);
                let otherwise = self.rng.pick(&["failure", "success", "running"]);
                format!(
                    "precondition({holds}, otherwise = {otherwise}) {{ {} }}",
                    self.node(depth + 1)
                )
            }
            10 => {
                let kind = self.rng.pick(&["repeat", "retry"]);
                let n = 1 + self.rng.below(3);
                format!("{kind}({n}) {{ {} }}", self.action())
            }
            _ => {
                let kind = self.rng.pick(&[
                    "invert",
                    "force_success",
                    "force_failure",
                    "keep_running_until_failure",
                    "run_once",
                ]);
                format!("{kind} {{ {} }}", self.node(depth + 1))
            }
        }
    }
}

/// The library trees, then `trees` tested trees, and how many leaves they
/// have (numbered from 1).
pub fn program(seed: u64, trees: usize) -> (Vec<BtTree>, usize) {
    let mut g = Gen {
        rng: Rng(seed),
        leaf: 0,
        subtrees: 0,
    };
    let header = "(w: &mut Bw, cx: &Ctx<NoFlags, NoFlags, &Recorder>)";
    let mut out = Vec::new();
    for k in 0..LIBRARY {
        let root = g.node(1);
        out.push(BtTree {
            name: format!("BtSub{k}"),
            text: format!("tree BtSub{k}{header} {{\n    {root}\n}}\n"),
            library: true,
        });
        g.subtrees += 1;
    }
    for k in 0..trees {
        // Roots are composites, so every tree has some structure.
        let mut root = g.node(0);
        while !root.contains('{') || root.starts_with('\'') {
            root = g.node(0);
        }
        out.push(BtTree {
            name: format!("Bt{k}"),
            text: format!("tree Bt{k}{header} {{\n    {root}\n}}\n"),
            library: false,
        });
    }
    (out, g.leaf)
}
