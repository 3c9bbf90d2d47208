//! Our Groot2 server against BehaviorTree.CPP's own `Groot2Publisher`: one
//! client (`btcpp/groot_client.py`, pyzmq, so libzmq) drives both through
//! the same scripted run of the same tree, ours compiled
//! (`src/bin/groot_scripted.rs`), BT.CPP's loaded from our `BTCPP_XML`
//! with the same scripted leaves (`btcpp/groot_reference.py`), and the two
//! transcripts must agree step for step: reply headers, the full tree's
//! nodes and uids, the status bytes after each tick, the transitions, hook
//! dumps, breakpoint notifications, what released breakpoints and
//! replacements do to the tick, the error replies and the heartbeat. The
//! differences `bt_groot`'s documentation lists are each asserted as they
//! are.

#[allow(dead_code, missing_docs, unused_imports)]
#[path = "../../examples/creature.rs"]
mod creature;

use bt_difftest::btcpp::python;
use serde_json::{Value, json};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

const SCRIPTS: &str = r#"{"c1":[1],"c2":[2,1,2],"a3":[0,1],"a4":[0,1],"c5":[1],"a6":[0,1,2]}"#;
/// Short, so the heartbeat step is quick; long enough that the client's
/// steps never come this far apart.
const HEARTBEAT_MS: &str = "1500";

/// A port `p` with `p + 1` free too (the servers bind both), below
/// Linux's ephemeral range (32768 and up), so that no client connection
/// made meanwhile takes either.
fn free_port_pair() -> u16 {
    use std::hash::{BuildHasher, Hasher};
    loop {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u32(std::process::id());
        let port = 20_000 + (h.finish() % 12_000) as u16;
        if TcpListener::bind(("127.0.0.1", port)).is_ok()
            && TcpListener::bind(("127.0.0.1", port + 1)).is_ok()
        {
            return port;
        }
    }
}

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("btcpp")
        .join(name)
}

/// Runs the client against the server `cmd` listening on `port`.
fn transcript(python: &Path, cmd: Vec<String>, port: u16) -> Vec<Value> {
    let config = json!({"cmd": cmd, "port": port, "tree": "GrootRun"});
    let out = Command::new(python)
        .arg(script("groot_client.py"))
        .arg(config.to_string())
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "groot_client.py failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("a JSON transcript")
}

/// Every node of the `<BehaviorTree>` elements: tag, name, uid, full path.
/// A node without a name has its model's (BT.CPP writes that default out;
/// ours leaves it implied), except a `SubTree`, which neither names.
fn nodes(xml: &str) -> Vec<(String, Option<String>, String, Option<String>)> {
    let doc = roxmltree::Document::parse(xml).expect("the full tree is XML");
    doc.descendants()
        .filter(|n| n.has_tag_name("BehaviorTree"))
        .flat_map(|tree| tree.descendants().skip(1).filter(|n| n.is_element()))
        .map(|n| {
            (
                n.tag_name().name().to_owned(),
                n.attribute("name").map(str::to_owned).or_else(|| {
                    (!n.has_tag_name("SubTree")).then(|| n.tag_name().name().to_owned())
                }),
                n.attribute("_uid")
                    .expect("every node has a uid")
                    .to_owned(),
                n.attribute("_fullpath").map(str::to_owned),
            )
        })
        .collect()
}

fn step<'a>(transcript: &'a [Value], name: &str) -> &'a Value {
    transcript
        .iter()
        .find(|s| s["step"] == name)
        .unwrap_or_else(|| panic!("no step {name}"))
}

#[test]
fn the_server_answers_as_behaviortree_cpps_publisher() {
    let python = match python() {
        Ok(p) => p,
        Err(why) => return eprintln!("skipped: {why}"),
    };
    let zmq = Command::new(&python)
        .args(["-c", "import zmq"])
        .status()
        .is_ok_and(|s| s.success());
    if !zmq {
        let why = "no pyzmq (pip install pyzmq into the BehaviorTree.CPP venv)";
        assert!(std::env::var_os("BT_REQUIRE_BTCPP").is_none(), "{why}");
        return eprintln!("skipped: {why}");
    }
    let server = env!("CARGO_BIN_EXE_groot_scripted");
    let xml = Command::new(server).arg("xml").output().unwrap().stdout;
    let dir = std::env::temp_dir().join(format!("bt-groot-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let xml_file = dir.join("GrootRun.xml");
    std::fs::write(&xml_file, &xml).unwrap();

    let port = free_port_pair();
    let reference = transcript(
        &python,
        vec![
            python.display().to_string(),
            script("groot_reference.py").display().to_string(),
            xml_file.display().to_string(),
            "GrootRun".into(),
            SCRIPTS.into(),
            port.to_string(),
            HEARTBEAT_MS.into(),
        ],
        port,
    );
    let port = free_port_pair();
    let ours = transcript(
        &python,
        vec![
            server.into(),
            "serve".into(),
            port.to_string(),
            SCRIPTS.into(),
            HEARTBEAT_MS.into(),
        ],
        port,
    );
    assert_eq!(ours.len(), reference.len());

    // The full tree: the same nodes, names, uids and paths; and ours loads
    // in BT.CPP.
    let tree = |t: &[Value]| step(t, "T")["payload"][0].as_str().unwrap().to_owned();
    assert_eq!(nodes(&tree(&ours)), nodes(&tree(&reference)));
    assert_eq!(nodes(&tree(&ours)).len(), 15);
    let ours_xml = dir.join("ours_full_tree.xml");
    std::fs::write(&ours_xml, tree(&ours)).unwrap();
    let loaded = bt_difftest::btcpp::run_python(&python, "load_tree.py", &[&ours_xml]);
    assert!(loaded.contains("NodeStatus."), "{loaded}");

    // The documented differences, each as documented.
    let error = |msg: &str| json!([msg]);
    let differences = [
        // A hook on a uid no node has.
        ("I unknown uid", Some(error("Node ID not found")), None),
        // An unlock with no breakpoint waiting.
        (
            "U not waiting",
            Some(error("no breakpoint waiting at node 2")),
            None,
        ),
        // Removing a post hook by its position.
        ("R post", None, Some(error("Node ID not found"))),
    ];
    for (name, ours_error, reference_error) in &differences {
        let (o, r) = (step(&ours, name), step(&reference, name));
        assert_eq!(o.get("error"), ours_error.as_ref(), "ours, {name}: {o}");
        assert_eq!(
            r.get("error"),
            reference_error.as_ref(),
            "BT.CPP, {name}: {r}"
        );
    }
    // A running action replaced by a hook is halted here, once; BT.CPP
    // leaves it unhalted. The calls are otherwise the same.
    let replaced = |t: &[Value]| step(t, "tick a3 replaced")["ticked"].clone();
    let mut without_halt = replaced(&ours);
    without_halt
        .as_array_mut()
        .unwrap()
        .retain(|c| c != "halt a3");
    assert_eq!(without_halt, replaced(&reference));
    assert_eq!(
        replaced(&ours)
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| *c == "halt a3")
            .count(),
        1
    );

    // Everything else, step for step.
    let skip = [
        "T",
        "tick a3 replaced",
        "I unknown uid",
        "U not waiting",
        "R post",
    ];
    for (o, r) in ours.iter().zip(&reference) {
        assert_eq!(o["step"], r["step"]);
        if !skip.contains(&o["step"].as_str().unwrap()) {
            assert_eq!(o, r, "step {}", o["step"]);
        }
    }
    // What the steps showed, so that agreeing on nothing cannot pass.
    assert_eq!(step(&ours, "uuids")["count"], 1);
    assert_eq!(step(&ours, "S after tick 3")["header"], "02530c000000");
    let instances = b"\x83\xacGrootLeg::12\xc0\xabGrootLeg::8\xc0\xa8GrootRun\xc0";
    let hex: String = instances.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(step(&ours, "B instances")["payload"][0], hex.as_str());
    assert_eq!(step(&ours, "B unknown")["payload"][0], "c0");
    assert_eq!(step(&ours, "N breakpoint c1")["body"], json!(["2"]));
    assert_eq!(
        step(&ours, "tick unlocked FAILURE")["ticked"],
        json!(["FAILURE"])
    );
    assert_eq!(
        step(&ours, "tick released by heartbeat")["ticked"][1],
        "c1",
        "a breakpoint the heartbeat released lets its node run"
    );
    assert!(
        step(&ours, "transitions")["payload"]
            .as_array()
            .unwrap()
            .len()
            > 20
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The creature example serving Groot2: a breakpoint a client sets on the
/// watched creature's root stops the world's step at that creature, and
/// releasing it lets exactly one step finish before the next tick of the
/// creature stops again; removing the hooks lets the run end.
#[test]
fn a_breakpoint_pauses_the_examples_watched_creature_and_releasing_it_continues() {
    use bt_groot::zmtp::{Req, Sub};
    use bt_groot::{Groot2, Options};
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::{Arc, mpsc};
    use std::time::Duration;
    const WAIT: Duration = Duration::from_secs(20);

    let groot = Arc::new(Groot2::serve::<creature::CreatureBrain>(Options::new().port(0)).unwrap());
    groot.watch(1);
    let mut req = Req::connect(groot.address(), WAIT).unwrap();
    let mut sub = Sub::connect(groot.notifications(), WAIT).unwrap();
    assert!(groot.wait_for_subscriber(WAIT), "no subscription");
    let ask = |req: &mut Req, kind: u8, payload: &str| {
        let header = [2, kind, 1, 0, 0, 0];
        let reply = if payload.is_empty() {
            req.request(&[&header]).unwrap()
        } else {
            req.request(&[&header, payload.as_bytes()]).unwrap()
        };
        assert_eq!(
            reply[0].len(),
            22,
            "{:?}",
            String::from_utf8_lossy(&reply[1])
        );
        reply
    };
    // The root is uid 1; a breakpoint before it stops every tick of the
    // watched creature.
    ask(
        &mut req,
        b'I',
        r#"{"enabled":true,"uid":1,"mode":0,"once":false,"desired_status":"SKIPPED","position":0}"#,
    );
    // The world, stepping as fast as it can, publishes its clock.
    let clock = Arc::new(AtomicU64::new(0));
    let (done, finished) = mpsc::channel();
    let world_thread = {
        let (groot, clock) = (groot.clone(), clock.clone());
        std::thread::spawn(move || {
            let mut world = creature::World::new(3, 7);
            creature::run_groot(&mut world, 50.0, &groot, false, |w| {
                clock.store(w.now.to_bits(), Ordering::SeqCst)
            });
            done.send(world.now).unwrap();
        })
    };
    let now = || f64::from_bits(clock.load(Ordering::SeqCst));
    let stopped_at = |sub: &mut Sub| {
        let note = sub.recv(WAIT).expect("the watched creature stops");
        assert_eq!((note[0][1], note[1].as_slice()), (b'N', &b"1"[..]));
    };
    stopped_at(&mut sub);
    // Stopped in the first step: no step has finished.
    let paused = now();
    assert_eq!(paused, 0.0);
    // Requests are answered while it waits; the world stays where it is.
    for _ in 0..5 {
        ask(&mut req, b'S', "");
    }
    assert_eq!(now(), paused);
    assert!(finished.try_recv().is_err());
    // Released, the step finishes; the next one stops at the same node.
    for k in 1..=3 {
        ask(
            &mut req,
            b'U',
            r#"{"uid":1,"desired_status":"SKIPPED","position":0,"remove_when_done":false}"#,
        );
        stopped_at(&mut sub);
        assert_eq!(now(), k as f64 * creature::DT, "one step per release");
    }
    // The blackboard shows the watched creature's values.
    let blackboard = ask(&mut req, b'B', "CreatureBrain");
    assert!(
        blackboard[1].windows(7).any(|w| w == b"\xa6hunger"),
        "{:?}",
        String::from_utf8_lossy(&blackboard[1])
    );
    // Every hook removed, the run goes on to its end.
    ask(&mut req, b'A', "");
    assert_eq!(finished.recv_timeout(WAIT).expect("the run ends"), 50.0);
    world_thread.join().unwrap();
}
