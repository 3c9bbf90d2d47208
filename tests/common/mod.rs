//! The scripted world used by the behaviour tests.
//!
//! Every leaf reads its next status from a script (`"RRS"`: Running,
//! Running, Success) and writes what happened to a trace, so a test states
//! the exact sequence of start / tick / halt events it expects:
//!
//! - `+a=R`  stateful leaf `a` started and returned Running
//! - `.a=S`  stateful leaf `a` ticked again and returned Success
//! - `!a`    stateful leaf `a` halted
//! - `?c=F`  `cond` `c` evaluated to false
//! - `a=R`   `action` `a` returned Running (or `instant` `a` Success/Failure)
#![allow(dead_code)]

pub mod steps;

use bt::{Leaf, Outcome, Status};
use std::collections::{HashMap, VecDeque};

#[derive(Default)]
pub struct World {
    scripts: HashMap<&'static str, VecDeque<Status>>,
    scores: HashMap<&'static str, VecDeque<f32>>,
    events: Vec<String>,
    /// Stateful leaves started and not yet ended, by name.
    open: Vec<&'static str>,
}

impl World {
    /// `scripts`: each leaf name with the statuses it returns, in order.
    pub fn new(scripts: &[(&'static str, &str)]) -> World {
        let scripts = scripts
            .iter()
            .map(|(name, s)| (*name, s.chars().map(parse_status).collect()))
            .collect();
        World {
            scripts,
            ..World::default()
        }
    }

    fn next(&mut self, name: &'static str) -> Status {
        self.scripts
            .get_mut(name)
            .and_then(VecDeque::pop_front)
            .unwrap_or_else(|| panic!("the script of `{name}` has run out"))
    }

    /// Gives the scores that [`World::score`] returns for `name`, in order.
    pub fn with_scores(mut self, name: &'static str, values: &[f32]) -> World {
        self.scores.insert(name, values.iter().copied().collect());
        self
    }

    /// A scripted score, recorded as `#name=value`.
    pub fn score(&mut self, name: &'static str) -> f32 {
        let value = self
            .scores
            .get_mut(name)
            .and_then(VecDeque::pop_front)
            .unwrap_or_else(|| panic!("the scores of `{name}` have run out"));
        self.events.push(format!("#{name}={value}"));
        value
    }

    /// A scripted `cond`.
    pub fn cond(&mut self, name: &'static str) -> bool {
        let ok = self.next(name) == Status::Success;
        self.events
            .push(format!("?{name}={}", letter(Status::from(ok))));
        ok
    }

    /// A scripted `action`.
    pub fn act(&mut self, name: &'static str) -> Status {
        let status = self.next(name);
        self.events.push(format!("{name}={}", letter(status)));
        status
    }

    /// A scripted `instant`: its script must not say Running.
    pub fn now(&mut self, name: &'static str) -> Outcome {
        let status = self.next(name);
        self.events.push(format!("{name}={}", letter(status)));
        Outcome::try_from(status).expect("an instant's script says Running")
    }

    /// Records `name` in the trace (for hooks with nothing to return).
    pub fn note(&mut self, name: &'static str) {
        self.events.push(name.to_string());
    }

    /// Stateful leaves that started and have neither finished nor been halted.
    pub fn open_leaves(&self) -> &[&'static str] {
        &self.open
    }

    /// Ticks `n` times; one line per tick: the root status, then the events.
    pub fn run(&mut self, n: usize, mut tick: impl FnMut(&mut World) -> Status) -> Vec<String> {
        (0..n)
            .map(|_| {
                let status = tick(self);
                self.take_line(status)
            })
            .collect()
    }

    /// The events since the last call, after the given root status.
    pub fn take_line(&mut self, status: Status) -> String {
        let events = std::mem::take(&mut self.events);
        format!("{}: {}", letter(status), events.join(" "))
            .trim_end()
            .to_string()
    }

    /// The events since the last call, without a status (for `reset`).
    pub fn take_events(&mut self) -> String {
        std::mem::take(&mut self.events).join(" ")
    }
}

/// A stateful leaf whose statuses come from the script named `n`. Its memory
/// counts the ticks of the current run, and halting checks it was running.
#[derive(Clone, Copy)]
pub struct L {
    pub n: &'static str,
}

impl Leaf<World> for L {
    type Memory = Run;

    fn start(&self, run: &mut Run, w: &mut World) -> Status {
        assert!(
            !w.open.contains(&self.n),
            "`{}` started while running",
            self.n
        );
        let status = w.next(self.n);
        w.events.push(format!("+{}={}", self.n, letter(status)));
        *run = Run {
            name: Some(self.n),
            ticks: 1,
        };
        if status.is_running() {
            w.open.push(self.n);
        }
        status
    }

    fn tick(&self, run: &mut Run, w: &mut World) -> Status {
        assert_eq!(run.name, Some(self.n), "memory of another leaf");
        run.ticks += 1;
        let status = w.next(self.n);
        w.events.push(format!(".{}={}", self.n, letter(status)));
        if status.is_done() {
            w.open.retain(|n| *n != self.n);
        }
        status
    }

    fn halt(run: &mut Run, w: &mut World) {
        let name = run.name.expect("halted a leaf that never started");
        assert!(w.open.contains(&name), "`{name}` halted but not running");
        w.open.retain(|n| *n != name);
        w.events.push(format!("!{name}"));
    }
}

/// Memory of [`L`]: which leaf runs, and for how many ticks so far.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Run {
    pub name: Option<&'static str>,
    pub ticks: u32,
}

fn parse_status(c: char) -> Status {
    match c {
        'S' => Status::Success,
        'F' => Status::Failure,
        'R' => Status::Running,
        _ => panic!("script letters are S, F and R, not {c:?}"),
    }
}

pub fn letter(status: Status) -> char {
    match status {
        Status::Success => 'S',
        Status::Failure => 'F',
        Status::Running => 'R',
    }
}
