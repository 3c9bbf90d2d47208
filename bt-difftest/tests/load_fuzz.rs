//! Hostile saved states: real saves of the example trees (the creature, the
//! squad with its shared object) and of a tree with every stateful node
//! kind, mutated (bit flips, truncations, values swapped for extremes and
//! for each other, keys removed, reordered and duplicated), loaded from
//! JSON and postcard, and the loaded trees ticked and reset. Nothing may
//! panic: a state either loads and runs, or is refused with an error
//! (`bt::save::LoadError` through `Checked`, or the format's own), and a
//! shared object that passed its `check` is empty again once every agent is
//! reset. Agents ticked with a shared object that failed its `check` (a
//! program that skipped it) must not panic either. And every state the run
//! really saved loads: the checks refuse no legal state.
//!
//! `BT_LOAD_FUZZ_CASES` sets the number of mutated states per tree (default
//! 4,000); `BT_LOAD_FUZZ_SEED` the seed.

#[allow(dead_code, missing_docs, unused_imports)]
#[path = "../../examples/creature.rs"]
mod creature;
#[allow(dead_code, missing_docs, unused_imports)]
#[path = "../../examples/squad.rs"]
mod squad;

use bt::prelude::*;
use bt::save::{Checked, LoadError};
use bt::serde::Serialize;
use bt::serde::de::DeserializeOwned;
use bt::{Ctx, NoTrace};
use rand_pcg::Pcg32;
use rand_pcg::rand_core::{Rng, SeedableRng};
use serde_json::Value;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// An agent that does a bit of everything, at random.
#[derive(Clone, Debug, Default)]
pub struct Bot {
    seed: u64,
    /// Scopes entered and not left: the exit hook of a loaded running
    /// scope may run without its enter, so this wraps.
    scopes: i64,
    halted: u64,
}

impl Bot {
    fn roll(&mut self, percent: u64) -> bool {
        self.seed ^= self.seed << 13;
        self.seed ^= self.seed >> 7;
        self.seed ^= self.seed << 17;
        self.seed % 100 < percent
    }
    fn hurt(&mut self) -> Option<u8> {
        self.roll(6).then_some(2)
    }
    fn coin(&mut self) -> Status {
        Status::from_bool(self.roll(60))
    }
    fn pick(&mut self) -> u8 {
        (self.seed % 3) as u8
    }
}

/// Runs for `n` ticks, failing now and then.
pub struct Step {
    n: u32,
}

impl Leaf<Bot> for Step {
    type Memory = u32;
    fn tick(&self, done: &mut u32, me: &mut Bot) -> Status {
        *done = done.saturating_add(1);
        if me.roll(5) {
            Status::Failure
        } else if *done >= self.n {
            Status::Success
        } else {
            Status::Running
        }
    }
}

behavior_tree! {
    /// Embedded below: its keep part and active part are checked too.
    #[bt(serde)]
    pub tree Errand(me: &mut Bot, cx: &Ctx) {
        sequence { Step { n: 2 }, cooldown(1) { wait(0.5) } }
    }

    /// Every node kind that keeps state, once or more.
    #[bt(serde, activation_times)]
    pub tree Kinds(me: &mut Bot, cx: &Ctx, rng: &mut Pcg32, shared: &KindsShared) {
        'root: prioritized {
            'hurt: when let Some(n): Option<u8> = me.hurt() => sequence {
                Step { n: u32::from(*n) },
                wait(1),
            },
            'grenade: when me.roll(15) => gate(2) {
                'pair: rendezvous(2) as role {
                    sequence { Step { n: 1 + role as u32 }, sync, Step { n: 2 } }
                }
            },
            'gcd: when me.roll(10) => global_cooldown(2) { Step { n: 3 } },
            'busy: else => sequential {
                parallel(success = 3, failure = 2) {
                    repeat(3) { Step { n: 2 } },
                    retry(3) { action me.coin() },
                    timeout(3) { Step { n: 5 } },
                    delay(0.5) { Step { n: 1 } },
                    sequence { Step { n: 1 }, Step { n: 2 } },
                },
                parallel_all(max_failures = 1) {
                    sequence_with_memory { Step { n: 1 }, action me.coin(), Step { n: 1 } },
                    cooldown(2) { Step { n: 2 } },
                },
                random(rng) { Step { n: 1 }, every(1) { Step { n: 2 } } },
                shuffle(rng) {
                    run_once { Step { n: 1 } },
                    scope(enter = me.scopes += 1, exit = me.scopes = me.scopes.wrapping_sub(1)) {
                        Step { n: 2 }
                    },
                },
                scored {
                    score 1.0 => Step { n: 1 },
                    score 2.0 => reactive_sequence { cond me.roll(90), Step { n: 3 } },
                },
                sequence {
                    after(halted = me.halted += 1) { keep_running_until_failure { action me.coin() } },
                    run_while(me.roll(80)) { Step { n: 2 } },
                    switch(me.pick()) { 0 => Step { n: 1 }, _ => wait(0.5) },
                    monitor(me.roll(90)),
                    Errand(me, cx),
                    reactive_select { cond me.roll(50), Step { n: 2 } },
                    if_then_else { cond me.roll(50), Step { n: 1 }, wait(0.25) },
                    while_do_else { cond me.roll(70), Step { n: 1 }, Step { n: 2 } },
                    invert { force_failure { Step { n: 1 } } },
                    retry(forever) { repeat(forever) { Step { n: 1 } } },
                    for_each(n: u8 = me.hurt()) { Step { n: u32::from(*n) } },
                    try_catch { Step { n: 1 }, Step { n: 2 }, Step { n: 1 } },
                    async_sequence { Step { n: 1 }, action me.coin(), Step { n: 1 } },
                    switch_eq(me.pick()) { 1 => Step { n: 2 }, _ => wait(0.5) },
                },
            },
        }
    }
}

/// A world of agents whose tree states the fuzzer replaces.
trait Scene: Sized {
    type Tree: Serialize + DeserializeOwned;
    /// A copy of the scene with a shared object of its own.
    fn copy(&self) -> Self;
    /// The agents' tree states.
    fn trees(&mut self) -> Vec<&mut Self::Tree>;
    /// One tick of every agent.
    fn step(&mut self);
    /// Every agent leaves its tree; `true` if the shared object is then
    /// empty.
    fn reset(&mut self) -> bool;
    /// The shared object, saved, if the scene has one.
    fn shared_json(&self) -> Option<Value> {
        None
    }
    /// Loads a mutated shared object; `Ok(false)` if refused with a typed
    /// error, `Err` with the format's.
    fn load_shared(&mut self, _json: &str) -> Result<bool, String> {
        Ok(true)
    }
    /// The shared object's check against the agents.
    fn check(&self) -> Result<(), bt::save::InvalidState> {
        Ok(())
    }
}

struct Creatures(creature::World);

impl Scene for Creatures {
    type Tree = creature::CreatureBrain;
    fn copy(&self) -> Self {
        Creatures(serde_json::from_str(&serde_json::to_string(&self.0).unwrap()).unwrap())
    }
    fn trees(&mut self) -> Vec<&mut Self::Tree> {
        self.0.creatures.iter_mut().map(|(_, b)| b).collect()
    }
    fn step(&mut self) {
        self.0.step(&NoTrace, |_, _| {});
    }
    fn reset(&mut self) -> bool {
        // No shared object; halting runs through the ticks that follow.
        true
    }
}

struct Squad {
    t: usize,
    shared: std::sync::Arc<squad::SoldierShared>,
    soldiers: Vec<(squad::Trooper, squad::Soldier)>,
}

impl Scene for Squad {
    type Tree = squad::Soldier;
    fn copy(&self) -> Self {
        let shared = serde_json::to_string(&*self.shared).unwrap();
        let soldiers = serde_json::to_string(&self.soldiers).unwrap();
        Squad {
            t: self.t,
            shared: std::sync::Arc::new(serde_json::from_str(&shared).unwrap()),
            soldiers: serde_json::from_str(&soldiers).unwrap(),
        }
    }
    fn trees(&mut self) -> Vec<&mut Self::Tree> {
        self.soldiers.iter_mut().map(|(_, s)| s).collect()
    }
    fn step(&mut self) {
        self.t += 1;
        for (me, state) in &mut self.soldiers {
            squad::tick_soldier(me, state, self.t as f64 * 0.1, 0.1, &self.shared);
        }
    }
    fn reset(&mut self) -> bool {
        for (me, state) in &mut self.soldiers {
            state.reset(me, &self.shared);
        }
        let s = &self.shared;
        [s.grenade.inside(), s.taunt.inside(), s.shoot.inside()] == [0; 3] && s.flank.members() == 0
    }
    fn shared_json(&self) -> Option<Value> {
        Some(serde_json::to_value(&*self.shared).unwrap())
    }
    fn load_shared(&mut self, json: &str) -> Result<bool, String> {
        load_shared(json, &mut self.shared)
    }
    fn check(&self) -> Result<(), bt::save::InvalidState> {
        self.shared.check(self.soldiers.iter().map(|(_, s)| s))
    }
}

struct Everything {
    t: usize,
    rng: Pcg32,
    shared: std::sync::Arc<KindsShared>,
    bots: Vec<(Bot, Kinds)>,
}

impl Scene for Everything {
    type Tree = Kinds;
    fn copy(&self) -> Self {
        let shared = serde_json::to_string(&*self.shared).unwrap();
        Everything {
            t: self.t,
            rng: self.rng.clone(),
            shared: std::sync::Arc::new(serde_json::from_str(&shared).unwrap()),
            bots: self.bots.clone(),
        }
    }
    fn trees(&mut self) -> Vec<&mut Kinds> {
        self.bots.iter_mut().map(|(_, k)| k).collect()
    }
    fn step(&mut self) {
        self.t += 1;
        for (i, (bot, kinds)) in self.bots.iter_mut().enumerate() {
            let cx = Ctx::new(self.t as f64 * 0.25, 0.25).agent(i as u64);
            kinds.tick(bot, &cx, &mut self.rng, &self.shared);
        }
    }
    fn reset(&mut self) -> bool {
        let cx = Ctx::new(self.t as f64 * 0.25, 0.25);
        for (bot, kinds) in &mut self.bots {
            kinds.reset(bot, &cx, &self.shared);
        }
        self.shared.grenade.inside() == 0 && self.shared.pair.members() == 0
    }
    fn shared_json(&self) -> Option<Value> {
        Some(serde_json::to_value(&*self.shared).unwrap())
    }
    fn load_shared(&mut self, json: &str) -> Result<bool, String> {
        load_shared(json, &mut self.shared)
    }
    fn check(&self) -> Result<(), bt::save::InvalidState> {
        self.shared.check(self.bots.iter().map(|(_, k)| k))
    }
}

/// Loads a mutated shared object into `into`: `Ok(false)` if refused
/// with a typed error, `Err` with the format's.
fn load_shared<T>(json: &str, into: &mut std::sync::Arc<T>) -> Result<bool, String>
where
    Checked<T>: DeserializeOwned,
{
    match serde_json::from_str::<Checked<T>>(json) {
        Err(e) => Err(e.to_string()),
        Ok(Checked(Err(_))) => Ok(false),
        Ok(Checked(Ok(shared))) => {
            *into = std::sync::Arc::new(shared);
            Ok(true)
        }
    }
}

/// What became of the mutated states.
#[derive(Debug, Default)]
struct Tally {
    /// Loaded (and checked against the shared object) and ticked.
    ran: usize,
    /// Refused by the format (malformed, wrong type, missing field).
    format: usize,
    /// Refused with a typed `LoadError`, or by the shared object's check.
    typed: usize,
    /// Typed refusals by problem (`OutOfRange count`, `NoMatch`, ...).
    problems: std::collections::BTreeMap<String, usize>,
    /// Panics (must stay 0).
    panics: Vec<String>,
}

impl Tally {
    fn refused(&mut self, error: &LoadError) {
        self.typed += 1;
        let problem = match error {
            LoadError::Layout(_) => "Layout".to_string(),
            LoadError::Invalid(invalid) => problem(invalid),
        };
        *self.problems.entry(problem).or_default() += 1;
    }

    fn refused_shared(&mut self, invalid: &bt::save::InvalidState) {
        self.typed += 1;
        *self.problems.entry(problem(invalid)).or_default() += 1;
    }
}

/// `OutOfRange count`, `Bits succeeded`, `NoMatch`, ...
fn problem(invalid: &bt::save::InvalidState) -> String {
    use bt::save::Problem;
    match invalid.problem {
        Problem::OutOfRange { field, .. } => format!("OutOfRange {field}"),
        Problem::Bits { field, .. } => format!("Bits {field}"),
        Problem::NotANumber { field } => format!("NotANumber {field}"),
        Problem::NoMatch => "NoMatch".into(),
        Problem::Shared { field, .. } => format!("Shared {field}"),
    }
}

fn cases() -> usize {
    std::env::var("BT_LOAD_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4000)
}

fn seed() -> u64 {
    std::env::var("BT_LOAD_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x5eed)
}

/// Values a hostile file may hold where a number, string or anything was.
fn any_extreme(rng: &mut Pcg32, strings: &[String]) -> Value {
    let numbers: [Value; 18] = [
        0.into(),
        1.into(),
        2.into(),
        3.into(),
        7.into(),
        255.into(),
        256.into(),
        65_535.into(),
        65_536.into(),
        u32::MAX.into(),
        (u64::from(u32::MAX) + 1).into(),
        u64::MAX.into(),
        (-1).into(),
        i64::MIN.into(),
        1e300.into(),
        (-1e300).into(),
        0.5.into(),
        (-0.25).into(),
    ];
    match rng.next_u32() % 10 {
        0..=5 => numbers[rng.next_u32() as usize % numbers.len()].clone(),
        6 => Value::String(["NaN", "inf", "-inf", "Idle", ""][rng.next_u32() as usize % 5].into()),
        7 if !strings.is_empty() => {
            Value::String(strings[rng.next_u32() as usize % strings.len()].clone())
        }
        8 => [
            Value::Bool(true),
            Value::Null,
            Value::Array(vec![]),
            Value::Object(Default::default()),
        ][rng.next_u32() as usize % 4]
            .clone(),
        _ => Value::Array(vec![
            numbers[rng.next_u32() as usize % numbers.len()].clone(),
        ]),
    }
}

/// A value of the same kind as `was`, at an edge: an integer past a bound,
/// a time that is not one, another variant's name, nothing where something
/// was. Type-preserving changes load more often, and so reach the checks.
fn extreme(rng: &mut Pcg32, was: &Value, strings: &[String]) -> Value {
    if rng.next_u32().is_multiple_of(5) {
        return any_extreme(rng, strings);
    }
    let pick = |rng: &mut Pcg32, options: Vec<Value>| {
        options[rng.next_u32() as usize % options.len()].clone()
    };
    match was {
        Value::Number(n) if n.is_u64() => {
            let n = n.as_u64().unwrap();
            pick(
                rng,
                vec![
                    n.saturating_add(1).into(),
                    n.saturating_mul(2).saturating_add(1).into(),
                    n.saturating_sub(1).into(),
                    0.into(),
                    255.into(),
                    256.into(),
                    65_535.into(),
                    u32::MAX.into(),
                    (u64::from(u32::MAX) - 1).into(),
                    u64::MAX.into(),
                    (1u64 << 63).into(),
                ],
            )
        }
        Value::Number(n) => {
            let x = n.as_f64().unwrap_or(0.0);
            pick(
                rng,
                vec![
                    "NaN".into(),
                    "inf".into(),
                    "-inf".into(),
                    1e300.into(),
                    (-1e300).into(),
                    (x + 1000.0).into(),
                    (x - 1000.0).into(),
                    0.into(),
                ],
            )
        }
        Value::String(_) => match rng.next_u32() % 3 {
            0 => pick(
                rng,
                vec!["NaN".into(), "inf".into(), "-inf".into(), "Idle".into()],
            ),
            _ if !strings.is_empty() => {
                Value::String(strings[rng.next_u32() as usize % strings.len()].clone())
            }
            _ => Value::Null,
        },
        Value::Null => pick(
            rng,
            vec![
                0.into(),
                1.into(),
                255.into(),
                Value::Array(vec![]),
                "Idle".into(),
            ],
        ),
        Value::Bool(b) => Value::Bool(!b),
        _ => any_extreme(rng, strings),
    }
}

/// JSON pointers of every value in `v`.
fn pointers(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                pointers(item, format!("{at}/{i}"), out);
            }
        }
        Value::Object(map) => {
            for (k, item) in map {
                pointers(
                    item,
                    format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                    out,
                );
            }
        }
        _ => {}
    }
    out.push(at);
}

fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|i| strings(i, out)),
        Value::Object(map) => {
            for (k, item) in map {
                out.push(k.clone());
                strings(item, out);
            }
        }
        _ => {}
    }
}

/// One to three changes to a saved value.
fn mutate_value(v: &mut Value, rng: &mut Pcg32) {
    let mut names = Vec::new();
    strings(v, &mut names);
    for _ in 0..1 + rng.next_u32() % 3 {
        let mut at = Vec::new();
        pointers(v, String::new(), &mut at);
        // Mostly a value of the state, not its layout or a container.
        let values: Vec<&String> = at
            .iter()
            .filter(|p| {
                !p.is_empty()
                    && *p != "/layout"
                    && !matches!(v.pointer(p), Some(Value::Array(_) | Value::Object(_)))
            })
            .collect();
        let target = if !values.is_empty() && !rng.next_u32().is_multiple_of(10) {
            values[rng.next_u32() as usize % values.len()].clone()
        } else {
            at[rng.next_u32() as usize % at.len()].clone()
        };
        match rng.next_u32() % 8 {
            // A value replaced by an extreme one.
            0..=3 => {
                if let Some(slot) = v.pointer_mut(&target) {
                    *slot = extreme(rng, slot, &names);
                }
            }
            // A key removed.
            6 => {
                let (parent, key) = target.rsplit_once('/').unwrap_or(("", ""));
                if let Some(Value::Object(map)) = v.pointer_mut(parent) {
                    map.remove(&key.replace("~1", "/").replace("~0", "~"));
                } else if let Some(Value::Array(items)) = v.pointer_mut(parent)
                    && !items.is_empty()
                {
                    items.pop();
                }
            }
            // Two values swapped.
            4 | 5 => {
                let other = at[rng.next_u32() as usize % at.len()].clone();
                let nested = target.starts_with(&other) || other.starts_with(&target);
                if !nested {
                    let a = v.pointer(&target).cloned();
                    let b = v.pointer(&other).cloned();
                    if let (Some(a), Some(b)) = (a, b) {
                        *v.pointer_mut(&target).unwrap() = b;
                        *v.pointer_mut(&other).unwrap() = a;
                    }
                }
            }
            // An array element repeated.
            _ => {
                if let Some(Value::Array(items)) = v.pointer_mut(&target)
                    && let Some(first) = items.first().cloned()
                {
                    items.push(first);
                }
            }
        }
    }
}

/// Writes `v` as JSON with each object's keys in `order` (0 as stored,
/// 1 reversed, 2 rotated), and with `dup`, the first key of the outermost
/// object written twice.
fn write(v: &Value, order: u32, dup: bool, out: &mut String) {
    match v {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            match order {
                1 => entries.reverse(),
                2 if !entries.is_empty() => entries.rotate_left(1),
                _ => {}
            }
            if dup && let Some(&first) = entries.first() {
                entries.push(first);
            }
            out.push('{');
            for (i, (k, item)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&serde_json::to_string(k).unwrap());
                out.push(':');
                write(item, order, false, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(item, order, false, out);
            }
            out.push(']');
        }
        _ => out.push_str(&v.to_string()),
    }
}

/// A mutated JSON text of `v`.
fn mutate_json(v: &Value, rng: &mut Pcg32) -> String {
    let mut v = v.clone();
    if !rng.next_u32().is_multiple_of(8) {
        mutate_value(&mut v, rng);
    }
    let mut text = String::new();
    write(
        &v,
        rng.next_u32() % 3,
        rng.next_u32().is_multiple_of(10),
        &mut text,
    );
    match rng.next_u32() % 10 {
        // Truncated.
        0 => {
            let cut = rng.next_u32() as usize % text.len().max(1);
            let cut = (0..=cut)
                .rev()
                .find(|&i| text.is_char_boundary(i))
                .unwrap_or(0);
            text.truncate(cut);
        }
        // A byte changed.
        1 => {
            let mut bytes = text.into_bytes();
            let i = rng.next_u32() as usize % bytes.len().max(1);
            if let Some(b) = bytes.get_mut(i) {
                *b ^= 1 << (rng.next_u32() % 7);
            }
            text = String::from_utf8_lossy(&bytes).into_owned();
        }
        _ => {}
    }
    text
}

/// A mutated postcard encoding.
fn mutate_bytes(bytes: &[u8], rng: &mut Pcg32) -> Vec<u8> {
    let mut bytes = bytes.to_vec();
    for _ in 0..1 + rng.next_u32() % 3 {
        if bytes.is_empty() {
            break;
        }
        let i = rng.next_u32() as usize % bytes.len();
        match rng.next_u32() % 7 {
            0 | 1 => bytes[i] ^= 1 << (rng.next_u32() % 8),
            2 => bytes[i] = 0xff,
            3 => bytes[i] = 0,
            4 => bytes.truncate(i),
            5 => bytes.insert(i, rng.next_u32() as u8),
            _ => {
                // Eight bytes of an extreme: a float's NaN, an integer's max.
                let fill: [u8; 8] = if rng.next_u32().is_multiple_of(2) {
                    f64::NAN.to_le_bytes()
                } else {
                    [0xff; 8]
                };
                for (j, b) in fill.into_iter().enumerate() {
                    if let Some(slot) = bytes.get_mut(i + j) {
                        *slot = b;
                    }
                }
            }
        }
    }
    bytes
}

/// Loads `tree` into agent `agent` of a copy of `scene`, ticks it and
/// resets it.
fn run<S: Scene>(scene: &S, agent: usize, tree: S::Tree, tally: &mut Tally, what: &str) {
    let mut scene = scene.copy();
    *scene.trees()[agent] = tree;
    if let Err(invalid) = scene.check() {
        tally.refused_shared(&invalid);
        // A program that skips the check must not panic either: its
        // counters may stay off, nothing worse.
        ticks(scene, tally, what, false);
        return;
    }
    ticks(scene, tally, what, true);
}

/// Ticks and resets every agent of `scene`; with `checked`, its shared
/// object must be empty after.
fn ticks<S: Scene>(mut scene: S, tally: &mut Tally, what: &str, checked: bool) {
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        for _ in 0..25 {
            scene.step();
        }
        scene.reset()
    }));
    match outcome {
        Ok(true) => tally.ran += usize::from(checked),
        Ok(false) if !checked => {}
        Ok(false) => tally.panics.push(format!(
            "{what}: the shared object is not empty after reset"
        )),
        Err(panic) => {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            tally.panics.push(format!("{what}: {message}"));
        }
    }
}

/// Mutates saves of `scene`'s agents (and of its shared object) at several
/// moments of its run.
fn fuzz<S: Scene>(name: &str, mut scene: S) -> Tally
where
    Checked<S::Tree>: DeserializeOwned,
{
    let mut rng = Pcg32::seed_from_u64(seed() ^ name.len() as u64);
    let mut moments = Vec::new();
    for t in 0..400 {
        scene.step();
        if t % 10 == 9 {
            moments.push(scene.copy());
        }
    }
    // Every state the run really saved loads, in both formats, and every
    // shared object passes its check: the checks refuse no legal state.
    for moment in &mut moments {
        assert_eq!(
            moment.check(),
            Ok(()),
            "{name}: a real save's shared object"
        );
        for tree in moment.trees() {
            let json = serde_json::to_string(&*tree).unwrap();
            let bytes = postcard::to_allocvec(&*tree).unwrap();
            let from_json = serde_json::from_str::<Checked<S::Tree>>(&json).unwrap().0;
            let from_postcard = postcard::from_bytes::<Checked<S::Tree>>(&bytes).unwrap().0;
            assert!(
                from_json.is_ok(),
                "{name}: {:?} refused\n{json}",
                from_json.err()
            );
            assert!(
                from_postcard.is_ok(),
                "{name}: {:?} refused",
                from_postcard.err()
            );
        }
    }
    let mut tally = Tally::default();
    let cases = cases();
    for case in 0..cases {
        let mut moment = moments[case % moments.len()].copy();
        let agents = moment.trees().len();
        let agent = rng.next_u32() as usize % agents;
        let what = format!("{name} case {case}");
        // Now and then the shared object instead.
        if case % 7 == 6
            && let Some(shared) = moment.shared_json()
        {
            let text = mutate_json(&shared, &mut rng);
            match moment.load_shared(&text) {
                Ok(true) => match moment.check() {
                    Err(invalid) => {
                        tally.refused_shared(&invalid);
                        ticks(moment, &mut tally, &what, false);
                    }
                    Ok(()) => ticks(moment, &mut tally, &what, true),
                },
                Ok(false) => tally.typed += 1,
                Err(_) => tally.format += 1,
            }
            continue;
        }
        let original = &*moment.trees()[agent];
        if case % 2 == 0 {
            let json = serde_json::to_value(original).unwrap();
            let text = mutate_json(&json, &mut rng);
            match serde_json::from_str::<Checked<S::Tree>>(&text) {
                Err(_) => tally.format += 1,
                Ok(Checked(Err(error))) => tally.refused(&error),
                Ok(Checked(Ok(tree))) => run(&moment, agent, tree, &mut tally, &what),
            }
        } else {
            let bytes = postcard::to_allocvec(original).unwrap();
            let bytes = mutate_bytes(&bytes, &mut rng);
            match postcard::from_bytes::<Checked<S::Tree>>(&bytes) {
                Err(_) => tally.format += 1,
                Ok(Checked(Err(error))) => tally.refused(&error),
                Ok(Checked(Ok(tree))) => run(&moment, agent, tree, &mut tally, &what),
            }
        }
    }
    println!("{name}: {cases} mutated saves: {tally:?}");
    tally
}

fn assert_clean(tally: &Tally) {
    assert!(
        tally.panics.is_empty(),
        "{} of the mutated saves panicked or leaked, first: {:?}",
        tally.panics.len(),
        &tally.panics[..tally.panics.len().min(5)]
    );
    // The fuzzer reaches all three ends.
    assert!(
        tally.ran > 0 && tally.format > 0 && tally.typed > 0,
        "{tally:?}"
    );
}

#[test]
fn mutated_saves_of_the_creature_world_load_and_run_or_are_refused() {
    let tally = fuzz("creature", Creatures(creature::World::new(6, 3)));
    assert_clean(&tally);
}

#[test]
fn mutated_saves_of_the_squad_load_and_run_or_are_refused() {
    let squad = Squad {
        t: 0,
        shared: std::sync::Arc::new(squad::SoldierShared::new()),
        soldiers: (0..12)
            .map(|id| (squad::Trooper::new(id, 11), squad::Soldier::default()))
            .collect(),
    };
    let tally = fuzz("squad", squad);
    assert_clean(&tally);
}

#[test]
fn mutated_saves_of_every_stateful_kind_load_and_run_or_are_refused() {
    let everything = Everything {
        t: 0,
        rng: Pcg32::seed_from_u64(9),
        shared: std::sync::Arc::new(KindsShared::new()),
        bots: (0..24)
            .map(|i| {
                let bot = Bot {
                    seed: 0x9e37_79b9 + i * 7919,
                    ..Bot::default()
                };
                (bot, Kinds::default())
            })
            .collect(),
    };
    let tally = fuzz("kinds", everything);
    assert_clean(&tally);
    // Each kind of check refused something (the default run is this big).
    if cases() >= 4000 {
        for problem in [
            "Layout",
            "NoMatch",
            "OutOfRange count",
            "OutOfRange n12_next",
            "OutOfRange n37_once",
            "Bits succeeded",
            "Bits n36_used",
            "Bits monitors",
            "NotANumber since",
            "NotANumber n30_ready",
            "Shared permits taken",
            "Shared members",
        ] {
            assert!(
                tally.problems.contains_key(problem),
                "no {problem}: {tally:?}"
            );
        }
    }
}
