//! (f) The reference trees of [`crate::ours`] run by the interpreter
//! (`bt_compiler::interpret`) with every expression compiled and reached by
//! index: what hot reload runs. The trees' source is read from
//! `ours.rs` and `generated/large_ours.rs`, laid out once, and each
//! expression resolved to an entry of a table of operations; a tick asks
//! the host by [`At::index`], with no string work.

use crate::spec::small_ids::{ATTACK, ENEMY_VISIBLE, IDLE};
use crate::world::Agent;
use bt::{Outcome, Status};
use bt_compiler::interpret::{At, Expression, Host, Input, Interpreter, Program, Shared, Use};
use bt_compiler::live::{Live, LiveAgent, Reload, Table};

/// What an expression of the benchmark trees does.
#[derive(Clone, Copy, Debug)]
enum Op {
    /// `me.sense(id)`.
    Sense(u32),
    /// `me.act_done(id)`, as an instant.
    Done(u32),
    /// `Act { id }`, a stateful leaf.
    Act(u32),
}

impl Op {
    /// What expression `text` does, used as `used`.
    fn of(used: Use, text: &str) -> Op {
        match used {
            Use::Condition => Op::Sense(id(text)),
            Use::Instant => Op::Done(id(text)),
            Use::Leaf => Op::Act(id(text)),
            other => panic!("the benchmark trees have no {other:?}: `{text}`"),
        }
    }
}

/// One tree, laid out, with its table of operations.
pub struct Tree {
    interpreter: Interpreter,
    shared: Shared,
    ops: Vec<Op>,
}

/// An agent's state: the interpreter's, and each place's leaf memory.
pub struct State {
    agent: bt_compiler::interpret::Agent,
    memory: Vec<u32>,
}

/// The `behavior_tree!` body of a Rust source holding one.
fn body(source: &str) -> &str {
    let body = source
        .split_once("bt::behavior_tree! {")
        .expect("a behavior_tree! invocation")
        .1;
    // The first invocation only (the traced trees follow in another).
    let body = body.split("bt::behavior_tree!").next().unwrap_or(body);
    let end = body.rfind('}').expect("closing brace");
    &body[..end]
}

/// The number in `me.sense(3)`, `Act { id: 3 }` or a named small id.
fn id(text: &str) -> u32 {
    let inner: String = text
        .chars()
        .skip_while(|c| *c != '(' && *c != ':')
        .skip(1)
        .take_while(|c| *c != ')' && *c != '}')
        .filter(|c| !c.is_whitespace())
        .collect();
    match inner.as_str() {
        "ENEMY_VISIBLE" => ENEMY_VISIBLE,
        "ATTACK" => ATTACK,
        "IDLE" => IDLE,
        n => n.parse().unwrap_or_else(|_| panic!("no id in `{text}`")),
    }
}

impl Tree {
    /// Tree `name` (`Small`, `Guard` or `Large`).
    pub fn new(name: &str) -> Tree {
        let source = match name {
            "Large" => include_str!("generated/large_ours.rs"),
            _ => include_str!("ours.rs"),
        };
        let program = Program::parse(body(source)).expect("the benchmark trees interpret");
        let mut interpreter = program
            .interpreter(name)
            .expect("the tree is in the program");
        let mut ops = Vec::new();
        interpreter
            .resolve(|e: &Expression| -> Result<u32, ()> {
                ops.push(Op::of(e.used, e.text));
                Ok(ops.len() as u32 - 1)
            })
            .expect("every expression has an operation");
        let shared = interpreter.shared();
        Tree {
            interpreter,
            shared,
            ops,
        }
    }

    /// A new agent's state.
    pub fn state(&self) -> State {
        State {
            agent: self.interpreter.agent(),
            memory: vec![0; self.interpreter.places()],
        }
    }

    /// One tick.
    #[inline]
    pub fn tick(&self, state: &mut State, me: &mut Agent) -> Status {
        let mut host = Ops {
            me,
            ops: &self.ops,
            memory: &mut state.memory,
        };
        self.interpreter
            .tick(&mut state.agent, &self.shared, &mut host, Input::default())
    }
}

/// The host: each expression's operation, by index.
struct Ops<'a> {
    me: &'a mut Agent,
    ops: &'a [Op],
    memory: &'a mut Vec<u32>,
}

impl Ops<'_> {
    #[inline]
    fn op(&self, at: &At) -> Op {
        self.ops[at.index.expect("resolved") as usize]
    }
}

impl Host for Ops<'_> {
    #[inline]
    fn condition(&mut self, at: &At, _: &str) -> bool {
        match self.op(at) {
            Op::Sense(id) => self.me.sense(id),
            op => unreachable!("{op:?} as a condition"),
        }
    }

    #[inline]
    fn instant(&mut self, at: &At, _: &str) -> Outcome {
        match self.op(at) {
            Op::Done(id) => self.me.act_done(id),
            op => unreachable!("{op:?} as an instant"),
        }
    }

    #[inline]
    fn start(&mut self, at: &At, _: &str) -> Status {
        match self.op(at) {
            Op::Act(id) => self.me.act_start(id, &mut self.memory[at.place]),
            op => unreachable!("{op:?} as a leaf"),
        }
    }

    #[inline]
    fn tick(&mut self, at: &At, _: &str) -> Status {
        match self.op(at) {
            Op::Act(id) => self.me.act_tick(id, &mut self.memory[at.place]),
            op => unreachable!("{op:?} as a leaf"),
        }
    }

    #[inline]
    fn halt(&mut self, _: &At, _: &str) {
        self.me.act_halt();
    }

    fn migrated(&mut self, moved: &[(usize, usize)], places: usize) {
        let mut memory = vec![0; places];
        for &(old, new) in moved {
            memory[new] = self.memory[old];
        }
        *self.memory = memory;
    }
}

/// The 1,001-node tree of the compile benchmarks as hot reload runs it: a
/// [`Live`] tree read from its file, and the operation of each index of
/// its table.
pub struct Reloadable {
    /// The live tree.
    pub live: Live,
    ops: Vec<Op>,
}

/// The generated source of the 1,001-node tree, and the line of its
/// `behavior_tree!`.
pub const HUGE: (&str, usize) = (include_str!("../tests/generated/huge_ours.rs"), 3);

/// An agent's state for a [`Reloadable`] tree.
pub struct LiveState {
    agent: LiveAgent,
    memory: Vec<u32>,
}

impl Reloadable {
    /// The 1,001-node tree, as built.
    pub fn huge() -> Reloadable {
        let program = Program::parse_file(HUGE.0, HUGE.1).expect("the generated tree interprets");
        let table = Table::of(&program, "Huge").expect("the tree");
        let mut ops = vec![Op::Done(0); table.len()];
        for (i, used, text, _, _, _) in table.entries() {
            ops[i as usize] = Op::of(used, text);
        }
        let live = Live::new(&program, "Huge", table).unwrap_or_else(|e| panic!("{e}"));
        Reloadable { live, ops }
    }

    /// Reloads the tree from `source`.
    pub fn reload(&self, source: &str) -> Reload {
        self.live.reload(source, HUGE.1)
    }

    /// A new agent's state.
    pub fn state(&self) -> LiveState {
        LiveState {
            agent: self.live.agent(),
            memory: vec![0; self.live.current().interpreter().places()],
        }
    }

    /// One tick, after moving to the current version.
    pub fn tick(&self, state: &mut LiveState, me: &mut Agent) -> Status {
        let mut host = Ops {
            me,
            ops: &self.ops,
            memory: &mut state.memory,
        };
        self.live
            .tick(&mut state.agent, &mut host, Input::default())
    }

    /// Moves an agent to the current version; whether it moved.
    pub fn catch_up(&self, state: &mut LiveState, me: &mut Agent) -> bool {
        let mut host = Ops {
            me,
            ops: &self.ops,
            memory: &mut state.memory,
        };
        self.live.catch_up(&mut state.agent, &mut host, 0.0)
    }
}
