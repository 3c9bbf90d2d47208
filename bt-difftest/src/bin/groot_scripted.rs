//! A program serving Groot2's protocol for one compiled tree with scripted
//! leaves, ticked on command: the Rust side of `tests/groot.rs`, which
//! drives it and BehaviorTree.CPP's publisher (`btcpp/groot_reference.py`)
//! with one client (`btcpp/groot_client.py`).
//!
//! `groot_scripted xml` prints the tree's BT.CPP XML (what the reference
//! loads). `groot_scripted serve PORT SCRIPTS_JSON [HEARTBEAT_MS]` serves on
//! `PORT` and `PORT + 1`, prints `ready`, then reads commands on standard
//! input: `tick` ticks agent 0 once and prints `ticked STATUS\tcall\tcall…` (the
//! calls as `run_trees.py` names them), `watch N` watches agent `N`, `quit`
//! ends. The scripts are `{"c1": [1, 2], "a3": [0, 1]}` (0 running, 1
//! success, 2 failure).

use bt::{BehaviorTree, Ctx, NoFlags, Status};
use bt_difftest::btcpp::{A, Bw};
use bt_groot::{Groot2, Options};
use std::io::{BufRead, Write};
use std::time::Duration;

bt::behavior_tree! {
    tree GrootLeg(w: &mut Bw, cx: &Ctx<NoFlags, NoFlags, &Groot2>) {
        sequence { 'c5: cond w.c(5), 'a6: A { id: 6 } }
    }
    tree GrootRun(w: &mut Bw, cx: &Ctx<NoFlags, NoFlags, &Groot2>) {
        reactive_sequence {
            'c1: cond w.c(1),
            sequence {
                select { 'c2: cond w.c(2), 'a3: A { id: 3 } },
                'a4: A { id: 4 },
                GrootLeg(w, cx),
                GrootLeg(w, cx),
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("xml") => print!("{}", GrootRun::BTCPP_XML),
        Some("serve") => serve(&args[1..]),
        _ => {
            eprintln!("usage: groot_scripted xml | serve PORT SCRIPTS_JSON [HEARTBEAT_MS]");
            std::process::exit(2);
        }
    }
}

fn serve(args: &[String]) {
    let port: u16 = args[0].parse().expect("a port");
    let scripts: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&args[1]).expect("scripts as JSON");
    let scripts: Vec<(usize, Vec<u8>)> = scripts
        .iter()
        .map(|(name, cycle)| {
            let leaf = name[1..].parse().expect("leaf names are cN or aN");
            let cycle = cycle
                .as_array()
                .expect("a script is a list")
                .iter()
                .map(|v| v.as_u64().expect("script values are 0, 1 or 2") as u8)
                .collect();
            (leaf, cycle)
        })
        .collect();
    let mut options = Options::new().port(port);
    if let Some(ms) = args.get(2) {
        options = options.heartbeat(Duration::from_millis(ms.parse().expect("milliseconds")));
    }
    let groot = Groot2::serve::<GrootRun>(options).expect("ports free");
    let mut world = Bw::scripted(6, &scripts);
    let mut state = GrootRun::default();
    let mut out = std::io::stdout().lock();
    writeln!(out, "ready").unwrap();
    out.flush().unwrap();
    let mut k = 0u32;
    for line in std::io::stdin().lock().lines() {
        let line = line.expect("a command");
        match line.split_whitespace().collect::<Vec<_>>()[..] {
            ["tick"] => {
                let cx = Ctx::new(f64::from(k) * 0.1, 0.1).agent(0).trace(&groot);
                let status = state.tick(&mut world, &cx);
                k += 1;
                let name = match status {
                    Status::Running => "RUNNING",
                    Status::Success => "SUCCESS",
                    Status::Failure => "FAILURE",
                };
                let calls = std::mem::take(&mut world.log);
                writeln!(
                    out,
                    "ticked {}",
                    [vec![name.to_owned()], calls].concat().join("\t")
                )
                .unwrap();
            }
            ["watch", agent] => groot.watch(agent.parse().expect("an agent id")),
            ["quit"] => break,
            _ => panic!("unknown command {line:?}"),
        }
        out.flush().unwrap();
    }
}
