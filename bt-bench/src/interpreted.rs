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
                let op = match e.used {
                    Use::Condition => Op::Sense(id(e.text)),
                    Use::Instant => Op::Done(id(e.text)),
                    Use::Leaf => Op::Act(id(e.text)),
                    other => panic!("the benchmark trees have no {other:?}: `{}`", e.text),
                };
                ops.push(op);
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
    memory: &'a mut [u32],
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
}
