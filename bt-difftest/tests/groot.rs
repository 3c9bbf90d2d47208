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

use bt_difftest::btcpp::python;
use serde_json::{Value, json};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

const SCRIPTS: &str = r#"{"c1":[1],"c2":[2,1,2],"a3":[0,1],"a4":[0,1],"c5":[1],"a6":[0,1,2]}"#;
/// Short, so the heartbeat step is quick; long enough that the client's
/// steps never come this far apart.
const HEARTBEAT_MS: &str = "1500";

/// A port `p` with `p + 1` free too (the servers bind both).
fn free_port_pair() -> u16 {
    loop {
        let first = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = first.local_addr().unwrap().port();
        if port < u16::MAX && TcpListener::bind(("127.0.0.1", port + 1)).is_ok() {
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
    assert_eq!(step(&ours, "S after tick 3")["header"], "02530a000000");
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
