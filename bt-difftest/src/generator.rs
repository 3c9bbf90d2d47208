//! Random trees, as `behavior_tree!` source text: every node kind, nested
//! in every other, valid by construction. Shared by the build script (which
//! compiles them) and the tests (which interpret the same text).
//!
//! Every expression calls the world `w` with a number unique in the
//! program, so a host can tell the calls apart: `cond w.c(7)`,
//! `action w.a(8)`, `instant w.i(9)`, `L { k: 10 }`.

/// SplitMix64: small, seedable, good enough for shapes.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn bits(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        mix(self.0)
    }

    /// `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.bits() % n as u64) as usize
    }

    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.bits() % 100 < percent
    }

    /// One of `items`.
    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// The SplitMix64 finaliser.
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Composites that run their children in order.
const IN_ORDER: &[&str] = &[
    "sequence",
    "select",
    "reactive_sequence",
    "reactive_select",
    "sequence_with_memory",
];

/// Durations, in seconds: 0 means "no timer" for `timeout`.
const SECONDS: &[&str] = &["0.0", "0.2", "0.35", "0.5", "1.0"];

/// What the generator knows about where a node goes.
#[derive(Clone, Copy, Default)]
struct Place {
    /// The parent is a sequence or select, so skips are allowed.
    passes_over: bool,
    /// Inside a rendezvous: `sync` and the role are allowed.
    rendezvous: bool,
    depth: usize,
}

/// Generates one program: `libraries` trees usable as subtrees (no shared
/// nodes), then `trees` trees to test.
pub struct Generator {
    rng: Rng,
    next_expr: u32,
    /// Nodes left for the tree being generated.
    budget: usize,
    /// Library trees the current tree may embed.
    embeddable: usize,
    /// The current tree may use shared nodes; it used some.
    shared_allowed: bool,
    used_shared: bool,
    monitors: usize,
    max_depth: usize,
    /// Percent chance that a node with budget left is a leaf anyway.
    leaf_chance: u64,
}

/// One generated tree: its name, whether it has shared nodes, its source.
pub struct TreeSource {
    /// `T3`, or `Lib3` for a library tree.
    pub name: String,
    /// It has shared nodes, so it takes its `<Name>Shared`.
    pub shared: bool,
    /// Only embedded by other trees, not tested on its own.
    pub library: bool,
    /// `tree Name(..) { .. }`.
    pub text: String,
}

impl Generator {
    /// A generator drawing from `seed`.
    pub fn new(seed: u64) -> Generator {
        Generator {
            rng: Rng(seed),
            next_expr: 0,
            budget: 0,
            embeddable: 0,
            shared_allowed: false,
            used_shared: false,
            monitors: 0,
            max_depth: 6,
            leaf_chance: 25,
        }
    }

    /// The whole program.
    pub fn program(&mut self, libraries: usize, trees: usize) -> Vec<TreeSource> {
        let mut out = Vec::new();
        for i in 0..libraries {
            self.embeddable = i;
            out.push(self.tree(format!("Lib{i}"), false, 12, 4));
        }
        self.embeddable = libraries;
        for i in 0..trees {
            // Every tenth tree is large enough for the compiler to split
            // its tick into functions.
            let (budget, depth) = if i % 10 == 9 { (400, 9) } else { (40, 6) };
            let mut tree = self.tree(format!("T{i}"), true, budget, depth);
            // Every other tree records activation times, which its
            // `Continue` trace events then carry.
            if i % 2 == 1 {
                tree.text.insert_str(0, "#[bt(activation_times)]\n");
            }
            out.push(tree);
        }
        out
    }

    fn tree(&mut self, name: String, shared: bool, budget: usize, depth: usize) -> TreeSource {
        self.budget = budget / 2 + self.rng.below(budget / 2 + 4);
        self.leaf_chance = if budget > 60 { 8 } else { 25 };
        self.shared_allowed = shared;
        self.used_shared = false;
        self.monitors = 0;
        self.max_depth = depth;
        let root = self.node(Place::default());
        let shared_param = if self.used_shared {
            format!(", sh: &{name}Shared")
        } else {
            String::new()
        };
        TreeSource {
            text: format!(
                "tree {name}(w: &mut W, cx: &Ctx<F, F, impl Trace>{shared_param}) {{\n    {root}\n}}\n"
            ),
            shared: self.used_shared,
            library: !shared,
            name,
        }
    }

    fn expr(&mut self) -> u32 {
        self.next_expr += 1;
        self.next_expr
    }

    fn seconds(&mut self) -> &'static str {
        self.rng.pick(SECONDS)
    }

    fn leaf(&mut self, at: Place) -> String {
        loop {
            let k = self.expr();
            return match self.rng.below(15) {
                0 | 1 => format!("cond w.c({k})"),
                2 | 3 => format!("action w.a({k})"),
                4..=6 => format!("L {{ k: {k} }}"),
                7 => self
                    .rng
                    .pick(&["success", "failure", "running"])
                    .to_string(),
                8 => format!("wait({})", self.seconds()),
                9 if at.rendezvous => "sync".to_string(),
                10 if at.rendezvous => format!("action w.r({k}, _role)"),
                11 if self.monitors < 3 => {
                    self.monitors += 1;
                    format!("monitor(w.c({k}))")
                }
                12 | 13 if self.embeddable > 0 => {
                    format!("Lib{}(w, cx)", self.rng.below(self.embeddable))
                }
                14 => format!("instant w.i({k})"),
                _ => continue,
            };
        }
    }

    /// Children of which only one can run, among conditions: a stateful
    /// leaf, maybe under `invert`, `force_success` or `force_failure`, or
    /// another such composite. The composite and everything between it and
    /// the leaf keep just the leaf's memory.
    fn guarded_leaf(&mut self, nesting: usize) -> Vec<String> {
        let conditions = self.rng.below(4);
        let at = self.rng.below(conditions + 1);
        (0..=conditions)
            .map(|i| {
                self.budget = self.budget.saturating_sub(1);
                let k = self.expr();
                if i == at {
                    let leaf = if nesting < 2 && self.rng.chance(25) {
                        let kw = self.rng.pick(&IN_ORDER[..4]);
                        format!("{kw} {{ {} }}", self.guarded_leaf(nesting + 1).join(", "))
                    } else {
                        format!("L {{ k: {k} }}")
                    };
                    if self.rng.chance(30) {
                        let kw = self.rng.pick(&["invert", "force_success", "force_failure"]);
                        format!("{kw} {{ {leaf} }}")
                    } else {
                        leaf
                    }
                } else if self.rng.chance(25) {
                    format!("invert {{ cond w.c({k}) }}")
                } else {
                    format!("cond w.c({k})")
                }
            })
            .collect()
    }

    fn children(&mut self, at: Place, passes_over: bool, min: usize, max: usize) -> Vec<String> {
        self.children_holding(at, passes_over, passes_over, min, max)
    }

    /// `holds`: the parent is a sequence, select or parallel, which holds a
    /// child that is a leaf's memory without an `Option`.
    fn children_holding(
        &mut self,
        at: Place,
        passes_over: bool,
        holds: bool,
        min: usize,
        max: usize,
    ) -> Vec<String> {
        let n = min + self.rng.below(max - min + 1);
        let inner = Place {
            passes_over,
            depth: at.depth + 1,
            ..at
        };
        (0..n)
            .map(|_| {
                // Under a sequence, select or parallel, often a guarded leaf
                // or a status-mapping decorator over a leaf: nodes their
                // parent holds as the leaf's memory alone.
                let draw = self.rng.below(100);
                if holds && self.budget > 0 && draw < 30 {
                    let kw = self.rng.pick(&IN_ORDER[..4]);
                    format!("{kw} {{ {} }}", self.guarded_leaf(0).join(", "))
                } else if holds && self.budget > 0 && draw < 40 {
                    self.budget -= 1;
                    let kw = self.rng.pick(&["invert", "force_success", "force_failure"]);
                    format!("{kw} {{ L {{ k: {} }} }}", self.expr())
                } else if holds && !passes_over && self.budget > 0 && draw < 50 {
                    self.one_leaf_branches()
                } else {
                    self.node(inner)
                }
            })
            .collect()
    }

    /// Under a parallel: a sequence or select of two or three branches
    /// whose only state is the memory of an `L` (the leaf itself, a guarded
    /// leaf, a decorator over it) or none (an action), which the parallel
    /// holds as the running branch beside one memory.
    fn one_leaf_branches(&mut self) -> String {
        let kw = self.rng.pick(&IN_ORDER[..4]);
        let n = 2 + self.rng.below(2);
        let branches: Vec<String> = (0..n)
            .map(|_| {
                self.budget = self.budget.saturating_sub(1);
                match self.rng.below(4) {
                    0 => format!("L {{ k: {} }}", self.expr()),
                    1 => {
                        let kw = self.rng.pick(&IN_ORDER[..4]);
                        format!("{kw} {{ {} }}", self.guarded_leaf(1).join(", "))
                    }
                    2 => format!("invert {{ L {{ k: {} }} }}", self.expr()),
                    _ => format!("action w.a({})", self.expr()),
                }
            })
            .collect();
        format!("{kw} {{ {} }}", branches.join(", "))
    }

    fn child(&mut self, at: Place) -> String {
        let inner = Place {
            passes_over: false,
            depth: at.depth + 1,
            ..at
        };
        self.node(inner)
    }

    fn node(&mut self, at: Place) -> String {
        if self.budget == 0 || at.depth + 1 >= self.max_depth || self.rng.chance(self.leaf_chance) {
            self.budget = self.budget.saturating_sub(1);
            return self.leaf(at);
        }
        self.budget -= 1;
        let k = self.expr();
        loop {
            let node = match self.rng.below(40) {
                0..=2 => {
                    let kw = match self.rng.pick(IN_ORDER) {
                        "sequence" if k.is_multiple_of(4) => "async_sequence",
                        "select" if k.is_multiple_of(4) => "async_select",
                        kw => kw,
                    };
                    let c = if self.rng.chance(30) {
                        self.guarded_leaf(0)
                    } else {
                        self.children(at, true, 1, 4)
                    };
                    format!("{kw} {{ {} }}", c.join(", "))
                }
                3 => {
                    let kw = self.rng.pick(&["if_then_else", "while_do_else"]);
                    let kw = if k.is_multiple_of(5) { "try_catch" } else { kw };
                    let c = self.children(at, false, 2, 3);
                    format!("{kw} {{ {} }}", c.join(", "))
                }
                4 => {
                    let c = self.children_holding(at, false, true, 1, 4);
                    let n = c.len() as i64;
                    let threshold = |rng: &mut Rng| {
                        let t = 1 + rng.below(n as usize) as i64;
                        if rng.chance(30) { t - n - 1 } else { t }
                    };
                    let mut args = Vec::new();
                    if self.rng.chance(70) {
                        args.push(format!("success = {}", threshold(&mut self.rng)));
                    }
                    if self.rng.chance(60) {
                        args.push(format!("failure = {}", threshold(&mut self.rng)));
                    }
                    let args = if args.is_empty() {
                        String::new()
                    } else {
                        format!("({})", args.join(", "))
                    };
                    format!("parallel{args} {{ {} }}", c.join(", "))
                }
                5 => {
                    let c = self.children_holding(at, false, true, 1, 4);
                    let m = 1 + self.rng.below(c.len());
                    format!("parallel_all(max_failures = {m}) {{ {} }}", c.join(", "))
                }
                6..=8 => self.decider(at),
                // Near the root of a large tree, no scope that binds names
                // (they keep the compiler from splitting what is below).
                9 | 33 | 34 if self.leaf_chance < 25 && at.depth < 3 => continue,
                9 => {
                    let arms = 2 + self.rng.below(2);
                    let c = self.children(at, false, arms, arms);
                    let arms: Vec<String> = c
                        .iter()
                        .enumerate()
                        .map(|(i, c)| {
                            if i + 1 == arms {
                                format!("_ => {c}")
                            } else {
                                format!("{i} => {c}")
                            }
                        })
                        .collect();
                    let kw = if k.is_multiple_of(2) {
                        "switch_eq"
                    } else {
                        "switch"
                    };
                    format!("{kw}(w.n({k})) {{ {} }}", arms.join(", "))
                }
                10..=13 => {
                    let kw = self.rng.pick(&[
                        "invert",
                        "force_success",
                        "force_failure",
                        "keep_running_until_failure",
                    ]);
                    let child = self.child(at);
                    if k.is_multiple_of(5) {
                        let if_empty = ["success", "failure", "running"][(k as usize / 5) % 3];
                        format!("for_each(x: u8 = w.o({k}), if_empty = {if_empty}) {{ {child} }}")
                    } else {
                        format!("{kw} {{ {child} }}")
                    }
                }
                14 | 15 => {
                    let kw = self.rng.pick(&["repeat", "retry"]);
                    let n = if self.rng.chance(30) {
                        "forever".to_string()
                    } else {
                        (1 + self.rng.below(3)).to_string()
                    };
                    format!("{kw}({n}) {{ {} }}", self.child(at))
                }
                16 | 17 => {
                    let hooks = [
                        format!("enter = w.e({k})"),
                        format!("tick = w.e({})", self.expr()),
                        format!("exit = w.h({})", self.expr()),
                    ];
                    let chosen = self.subset(&hooks);
                    format!("scope({}) {{ {} }}", chosen.join(", "), self.child(at))
                }
                18..=21 => {
                    let kw = self.rng.pick(&["timeout", "delay", "cooldown", "every"]);
                    let s = self.seconds();
                    format!("{kw}({s}) {{ {} }}", self.child(at))
                }
                22 => format!("run_once {{ {} }}", self.child(at)),
                23 if at.passes_over => {
                    format!("run_once(then_skip = true) {{ {} }}", self.child(at))
                }
                24 | 25 => {
                    let hooks = [
                        format!("success = w.h({k})"),
                        format!("failure = w.h({})", self.expr()),
                        format!("finished = w.h({})", self.expr()),
                        format!("halted = w.h({})", self.expr()),
                    ];
                    let chosen = self.subset(&hooks);
                    format!("after({}) {{ {} }}", chosen.join(", "), self.child(at))
                }
                // Kinds added later are chosen by the expression's number,
                // not by a draw, so that a seed's other trees stay as they
                // were.
                26 | 27 => {
                    let kw = self.rng.pick(&["success_if", "failure_if"]);
                    let child = self.child(at);
                    if k.is_multiple_of(3) {
                        let otherwise = ["failure", "success", "running"][(k as usize / 3) % 3];
                        format!("precondition(w.c({k}), otherwise = {otherwise}) {{ {child} }}")
                    } else {
                        format!("{kw}(w.c({k})) {{ {child} }}")
                    }
                }
                28 | 29 if at.passes_over => {
                    let kw = self.rng.pick(&["skip_if", "run_while"]);
                    let kw = if k.is_multiple_of(3) {
                        "precondition"
                    } else {
                        kw
                    };
                    let otherwise = if k.is_multiple_of(3) {
                        ", otherwise = skip"
                    } else {
                        ""
                    };
                    format!("{kw}(w.c({k}){otherwise}) {{ {} }}", self.child(at))
                }
                30 | 31 if self.shared_allowed => {
                    self.used_shared = true;
                    let n = 1 + self.rng.below(2);
                    format!("gate({n}) {{ {} }}", self.child(at))
                }
                32 if self.shared_allowed => {
                    self.used_shared = true;
                    let s = self.seconds();
                    format!("global_cooldown({s}) {{ {} }}", self.child(at))
                }
                33 | 34 if self.shared_allowed => {
                    self.used_shared = true;
                    let n = 2 + self.rng.below(2);
                    let inner = Place {
                        rendezvous: true,
                        ..at
                    };
                    format!("rendezvous({n}) as _role {{ {} }}", self.child(inner))
                }
                // Wider than one function of children: leaves, so that
                // the tree stays small.
                36 if self.rng.chance(35) => {
                    let kw = self.rng.pick(IN_ORDER);
                    let n = 33 + self.rng.below(40);
                    let inner = Place {
                        passes_over: true,
                        depth: at.depth + 1,
                        ..at
                    };
                    let c: Vec<String> = (0..n).map(|_| self.leaf(inner)).collect();
                    format!("{kw} {{ {} }}", c.join(", "))
                }
                35 if at.rendezvous => {
                    let c = self.children(at, true, 1, 3);
                    format!("sequence {{ sync, {} }}", c.join(", "))
                }
                _ => continue,
            };
            return node;
        }
    }

    /// A non-empty subset of `items`, in order.
    fn subset(&mut self, items: &[String]) -> Vec<String> {
        loop {
            let chosen: Vec<String> = items
                .iter()
                .filter(|_| self.rng.chance(50))
                .cloned()
                .collect();
            if !chosen.is_empty() {
                return chosen;
            }
        }
    }

    fn decider(&mut self, at: Place) -> String {
        let policy = self
            .rng
            .pick(&["prioritized", "sequential", "random", "shuffle", "scored"]);
        let mut args = Vec::new();
        if matches!(policy, "random" | "shuffle") {
            args.push("&mut w.rng".to_string());
        }
        if self.rng.chance(25) {
            args.push(format!("redecides = {}", 1 + self.rng.below(2)));
        }
        // Now and then (from the expression count, not a random draw, so
        // the trees of a seed stay the same otherwise): children whose first
        // step is a full gate are chosen (and fail) instead of passed over.
        if self.shared_allowed && self.next_expr % 7 == 3 {
            args.push("skip_blocked = false".to_string());
        }
        let args = if args.is_empty() {
            String::new()
        } else {
            format!("({})", args.join(", "))
        };
        let children = self.children(at, false, 1, 4);
        let arms: Vec<String> = children
            .into_iter()
            .map(|child| {
                let guard = self.guard(policy == "scored");
                format!("{guard} => {child}")
            })
            .collect();
        format!("{policy}{args} {{ {} }}", arms.join(", "))
    }

    fn guard(&mut self, scored: bool) -> String {
        let mut clauses = Vec::new();
        let mut bound = false;
        let n = self.rng.below(3);
        for _ in 0..n {
            let k = self.expr();
            clauses.push(match self.rng.below(7) {
                0 | 1 => format!("when w.c({k})"),
                2 if !bound => {
                    bound = true;
                    format!("when let Some(_v): Option<u8> = w.o({k})")
                }
                3 => format!("every({})", self.rng.pick(&["0.2", "0.5", "1.0"])),
                4 => {
                    let mode = self.rng.pick(&["any", "all", "none"]);
                    let which = self.rng.pick(&["flags", "stimuli"]);
                    let want = self.rng.pick(&["F::A", "F::B", "F::A | F::C"]);
                    format!("{which}({mode} = {want})")
                }
                _ => format!("score w.s({k})"),
            });
        }
        if scored && self.rng.chance(70) && !clauses.iter().any(|c| c.starts_with("score")) {
            clauses.push(format!("score w.s({})", self.expr()));
        }
        if clauses.is_empty() {
            "else".to_string()
        } else {
            clauses.join(" ")
        }
    }
}
