//! Running trees in BehaviorTree.CPP itself, through the `behaviortreepy`
//! Python bindings (BT.CPP 4.8.2), and the same trees compiled, with the
//! same scripted leaves ([`btcpp_gen`](crate::btcpp_gen)).
//!
//! The Python interpreter is `$BT_PYTHON`, else `.venv-btcpp/bin/python` at
//! the workspace root, else `python3`; it must import `behaviortreepy`.
//! `.ci/run` creates that virtual environment. Without one, [`python`]
//! says why and the tests that need it are skipped, unless
//! `BT_REQUIRE_BTCPP` is set (as in CI), which makes them fail instead.

use crate::btcpp_gen::script;
use bt::record::Recorder;
use bt::{BehaviorTree, Ctx, Leaf, NoFlags, Status};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The scripted world of the BT.CPP trees: counts each leaf's calls and
/// logs them, as the Python side does.
pub struct Bw {
    seed: u64,
    /// Scripts given instead of [`script`]'s, by leaf.
    fixed: Vec<(usize, Vec<u8>)>,
    calls: Vec<usize>,
    /// This tick's calls: `c7` (condition 7), `start a8`, `tick a8`,
    /// `halt a8`.
    pub log: Vec<String>,
}

impl Bw {
    /// A world whose leaves follow [`script`] for `seed`.
    pub fn new(seed: u64, leaves: usize) -> Bw {
        Bw {
            seed,
            fixed: Vec::new(),
            calls: vec![0; leaves + 1],
            log: Vec::new(),
        }
    }

    /// A world whose leaves `0..=leaves` follow the scripts given.
    pub fn scripted(leaves: usize, scripts: &[(usize, Vec<u8>)]) -> Bw {
        Bw {
            fixed: scripts.to_vec(),
            ..Bw::new(0, leaves)
        }
    }

    fn next(&mut self, leaf: usize, condition: bool) -> Status {
        let cycle = match self.fixed.iter().find(|(l, _)| *l == leaf) {
            Some((_, cycle)) => cycle.clone(),
            None => script(self.seed, leaf, condition),
        };
        let k = self.calls[leaf];
        self.calls[leaf] += 1;
        status(cycle[k % cycle.len()])
    }

    /// The value of the `switch_eq` that is node `id`: its script's next
    /// value, as BT.CPP reads its `{switch_eq_nID}` entry, which
    /// `run_trees.py` sets from the same script before each tick. Not a
    /// call: nothing is logged.
    pub fn v(&mut self, id: usize) -> u8 {
        let (_, cycle) = self
            .fixed
            .iter()
            .find(|(l, _)| *l == id)
            .expect("a switch value has a script");
        let k = self.calls[id];
        self.calls[id] += 1;
        cycle[k % cycle.len()]
    }

    /// The next item of the `for_each` that is node `id`: its script's
    /// values in order, then `None`, as BT.CPP pops its `{for_each_nID}`
    /// queue, which `run_trees.py` fills from the same script.
    pub fn q(&mut self, id: usize) -> Option<u8> {
        let (_, items) = self
            .fixed
            .iter()
            .find(|(l, _)| *l == id)
            .expect("a queue has a script");
        let k = self.calls[id];
        self.calls[id] += 1;
        items.get(k).copied()
    }

    /// Condition `leaf`.
    pub fn c(&mut self, leaf: usize) -> bool {
        self.log.push(format!("c{leaf}"));
        self.next(leaf, true) == Status::Success
    }
}

/// A script value as a status.
pub fn status(value: u8) -> Status {
    match value {
        0 => Status::Running,
        1 => Status::Success,
        _ => Status::Failure,
    }
}

/// The stateful action of the BT.CPP trees: starts `Running`, then follows
/// its script.
#[derive(Clone, Copy, Debug)]
pub struct A {
    /// The leaf's number.
    pub id: usize,
}

impl Leaf<Bw> for A {
    type Memory = usize;

    fn start(&self, memory: &mut usize, w: &mut Bw) -> Status {
        *memory = self.id;
        w.log.push(format!("start a{}", self.id));
        Status::Running
    }

    fn tick(&self, _: &mut usize, w: &mut Bw) -> Status {
        w.log.push(format!("tick a{}", self.id));
        w.next(self.id, false)
    }

    fn halt(memory: &mut usize, w: &mut Bw) {
        w.log.push(format!("halt a{memory}"));
    }
}

/// One tested tree.
pub struct Case {
    /// Its name (and BT.CPP tree ID).
    pub name: &'static str,
    /// Its DSL text.
    pub source: &'static str,
    /// `BehaviorTree::BTCPP_XML`.
    pub xml: &'static str,
    /// Ticks the compiled tree.
    pub run: fn(usize) -> Run,
}

/// One run: per tick, the root's status and the leaf calls; and the
/// recording as a `.btlog` file.
#[derive(Debug)]
pub struct Run {
    /// `(status, calls)` per tick; the status as BT.CPP names it.
    pub ticks: Vec<(String, Vec<String>)>,
    /// The recorder's `.btlog` bytes.
    pub btlog: Vec<u8>,
}

/// Ticks a fresh `T` `ticks` times (time 0.0, 0.1, ..) with a recorder
/// attached, its leaves scripted by `seed`.
pub fn drive<T: BehaviorTree>(
    ticks: usize,
    seed: u64,
    leaves: usize,
    tick: impl FnMut(&mut T, &mut Bw, &Ctx<NoFlags, NoFlags, &Recorder>) -> Status,
) -> Run {
    drive_in(Bw::new(seed, leaves), ticks, tick)
}

/// Ticks a fresh `T` `ticks` times in `world`, as [`drive`] does.
pub fn drive_in<T: BehaviorTree>(
    mut world: Bw,
    ticks: usize,
    mut tick: impl FnMut(&mut T, &mut Bw, &Ctx<NoFlags, NoFlags, &Recorder>) -> Status,
) -> Run {
    let recorder = Recorder::new::<T>(1, 1 << 16);
    let mut state = T::default();
    let mut out = Vec::new();
    for k in 0..ticks {
        let cx = Ctx::new(k as f64 * 0.1, 0.1).trace(&recorder);
        let status = tick(&mut state, &mut world, &cx);
        let name = match status {
            Status::Running => "RUNNING",
            Status::Success => "SUCCESS",
            Status::Failure => "FAILURE",
        };
        out.push((name.to_owned(), std::mem::take(&mut world.log)));
    }
    let mut btlog = Vec::new();
    recorder.write_btlog(0, &mut btlog).unwrap();
    Run { ticks: out, btlog }
}

/// A Python that imports `behaviortreepy`, or why there is none (see the
/// module docs). Panics instead of returning `Err` when `BT_REQUIRE_BTCPP`
/// is set.
pub fn python() -> Result<PathBuf, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let candidates: Vec<PathBuf> = match std::env::var_os("BT_PYTHON") {
        Some(p) => vec![p.into()],
        None => vec![root.join(".venv-btcpp/bin/python"), "python3".into()],
    };
    for python in &candidates {
        let ok = Command::new(python)
            .args(["-c", "import behaviortreepy"])
            .output()
            .is_ok_and(|o| o.status.success());
        if ok {
            return Ok(python.clone());
        }
    }
    let why = format!(
        "no Python with behaviortreepy (tried {candidates:?}); to run the BehaviorTree.CPP \
         tests: python3 -m venv .venv-btcpp && .venv-btcpp/bin/pip install behaviortreepy==0.1.4 pyzmq==27.3.0"
    );
    if std::env::var_os("BT_REQUIRE_BTCPP").is_some() {
        panic!("BT_REQUIRE_BTCPP is set, but {why}");
    }
    Err(why)
}

/// Runs `script` (a file of this crate's `btcpp/` directory) with `args`,
/// and returns its standard output.
pub fn run_python(python: &Path, script: &str, args: &[&Path]) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("btcpp")
        .join(script);
    let out = Command::new(python)
        .arg(path)
        .args(args)
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "{script} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// One record of a `.btlog` file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    /// Microseconds since the file's start time.
    pub offset: u64,
    /// The node.
    pub uid: u16,
    /// 0 idle, 1 running, 2 success, 3 failure.
    pub status: u8,
}

/// A `.btlog` file, read from BehaviorTree.CPP's description of
/// FileLogger2: `BTCPP4-FileLogger2`, protocol byte 1, `u32` XML length,
/// the XML, `i64` start time in microseconds, then 9-byte records (48-bit
/// offset, `u16` uid, `u8` status), little-endian.
#[derive(Debug)]
pub struct Btlog {
    /// The protocol byte.
    pub protocol: u8,
    /// The tree, in BT.CPP's instance form.
    pub xml: String,
    /// Microseconds.
    pub start: i64,
    /// Every record.
    pub records: Vec<Record>,
}

impl Btlog {
    /// Reads a file; `Err` says what is wrong with it.
    pub fn read(bytes: &[u8]) -> Result<Btlog, String> {
        const MAGIC: &[u8] = b"BTCPP4-FileLogger2";
        let rest = bytes
            .strip_prefix(MAGIC)
            .ok_or("no BTCPP4-FileLogger2 header")?;
        let (&protocol, rest) = rest.split_first().ok_or("no protocol byte")?;
        let len =
            u32::from_le_bytes(rest.get(..4).ok_or("no XML length")?.try_into().unwrap()) as usize;
        let xml = rest.get(4..4 + len).ok_or("XML cut short")?;
        let xml = String::from_utf8(xml.to_vec()).map_err(|_| "XML is not UTF-8")?;
        let rest = &rest[4 + len..];
        let start = i64::from_le_bytes(rest.get(..8).ok_or("no start time")?.try_into().unwrap());
        let rest = &rest[8..];
        if rest.len() % 9 != 0 {
            return Err(format!(
                "{} bytes of records: not a multiple of 9",
                rest.len()
            ));
        }
        let records = rest
            .chunks(9)
            .map(|r| {
                let mut offset = [0u8; 8];
                offset[..6].copy_from_slice(&r[..6]);
                Record {
                    offset: u64::from_le_bytes(offset),
                    uid: u16::from_le_bytes([r[6], r[7]]),
                    status: r[8],
                }
            })
            .collect();
        Ok(Btlog {
            protocol,
            xml,
            start,
            records,
        })
    }
}
