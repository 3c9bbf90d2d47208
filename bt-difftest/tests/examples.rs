//! The example trees' exported XML: valid by BT.CPP's rules, and loaded by
//! BehaviorTree.CPP itself where its Python bindings can register every
//! model.

#[allow(dead_code, missing_docs, unused_imports)]
#[path = "../../examples/creature.rs"]
mod creature;
#[allow(dead_code, missing_docs, unused_imports)]
#[path = "../../examples/guards.rs"]
mod guards;
#[allow(dead_code, missing_docs, unused_imports)]
#[path = "../../examples/squad.rs"]
mod squad;

use bt::BehaviorTree;
use bt_difftest::btcpp::{Btlog, python};
use std::path::Path;

fn views() -> [(
    &'static bt::view::TreeView<'static>,
    &'static str,
    &'static str,
); 3] {
    [
        (
            creature::CreatureBrain::VIEW,
            creature::CreatureBrain::BTCPP_XML,
            creature::CreatureBrain::BTCPP_INSTANCE_XML,
        ),
        (
            guards::GuardDuty::VIEW,
            guards::GuardDuty::BTCPP_XML,
            guards::GuardDuty::BTCPP_INSTANCE_XML,
        ),
        (
            squad::Soldier::VIEW,
            squad::Soldier::BTCPP_XML,
            squad::Soldier::BTCPP_INSTANCE_XML,
        ),
    ]
}

#[test]
fn example_trees_export_valid_behaviortree_cpp_xml() {
    for (view, definition, instance) in views() {
        if let Err(e) = bt_difftest::xml_check::check(view, definition, instance) {
            panic!("{}: {e}\n{definition}", view.name);
        }
    }
    // The guard tree embeds `Patrol`: two trees in one file, and the
    // instance form numbers Patrol's nodes in place.
    let xml = guards::GuardDuty::BTCPP_XML;
    assert_eq!(xml.matches("<BehaviorTree ID=").count(), 2);
    assert!(xml.contains("<SubTree ID=\"Patrol\" name=\"patrol\""));
    assert!(
        guards::GuardDuty::BTCPP_INSTANCE_XML
            .contains("<BehaviorTree ID=\"Patrol\" _fullpath=\"patrol\">")
    );
}

#[test]
fn example_trees_load_in_behaviortree_cpp() {
    let python = match python() {
        Ok(p) => p,
        Err(why) => return eprintln!("skipped: {why}"),
    };
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("btcpp-examples");
    std::fs::create_dir_all(&dir).unwrap();
    let load = |name: &str, xml: &str| {
        let path = dir.join(format!("{name}.xml"));
        std::fs::write(&path, xml).unwrap();
        let out = std::process::Command::new(&python)
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("btcpp/load_tree.py"))
            .arg(&path)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).trim().to_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    // Built-ins, leaves and a subtree: BT.CPP loads, instantiates and
    // ticks it.
    let (code, out, err) = load("GuardDuty", guards::GuardDuty::BTCPP_XML);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert_eq!(out, "NodeStatus.SUCCESS");
    // Decider groups are control nodes of our own, which the Python
    // bindings cannot register: the loader stands in BT.CPP's `Sequence`
    // for them, and BT.CPP loads everything else (leaves, our decorators,
    // time nodes, attributes) and ticks the tree.
    let (code, out, err) = load("CreatureBrain", creature::CreatureBrain::BTCPP_XML);
    assert_eq!(code, Some(0), "{out}\n{err}");
    // Its `wait(2)` is BT.CPP's `Sleep msec="2000"`: still running.
    assert_eq!(out, "stand-ins: Prioritized Shuffle\nNodeStatus.RUNNING");
    let (code, out, err) = load("Soldier", squad::Soldier::BTCPP_XML);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert_eq!(out, "stand-ins: Prioritized\nNodeStatus.SUCCESS");
}

#[test]
fn a_creature_recording_reads_back_record_for_record() {
    let recorder = bt::record::Recorder::new::<creature::CreatureBrain>(3, 1 << 16);
    creature::simulate(3, 7, 120.0, &recorder, |_| {});
    for agent in 0..3 {
        let mut bytes = Vec::new();
        recorder.write_btlog(agent, &mut bytes).unwrap();
        let log = Btlog::read(&bytes).unwrap();
        assert_eq!(log.protocol, 1);
        assert_eq!(log.xml, creature::CreatureBrain::BTCPP_INSTANCE_XML);
        let transitions = recorder.transitions(agent).unwrap();
        assert!(transitions.len() > 200, "{}", transitions.len());
        let micros = |t: f64| (t * 1e6).round() as i64;
        assert_eq!(log.start, micros(transitions[0].time));
        assert_eq!(log.records.len(), transitions.len());
        for (record, t) in log.records.iter().zip(&transitions) {
            assert_eq!(record.offset as i64, micros(t.time) - log.start);
            assert_eq!((record.uid, record.status), (t.uid, t.status as u8));
            assert!((1..=creature::CreatureBrain::VIEW.size as u16).contains(&record.uid));
        }
    }
}

/// What hot reload reads: each example's trees, found in its source file by
/// the line of its `behavior_tree!`, parse for the interpreter, and the
/// node tables agree with the compiled trees'. The requests example is the
/// one the interpreter refuses, and says why.
#[test]
fn the_example_sources_parse_for_the_interpreter_from_their_files() {
    use bt_compiler::interpret::Program;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let file = |path: &str| std::fs::read_to_string(root.join(path)).unwrap();
    let line_of = |text: &str| {
        1 + text
            .lines()
            .position(|l| l.trim_start().starts_with("behavior_tree! {"))
            .expect("an invocation")
    };
    for (path, tree, nodes) in [
        (
            "examples/creature.rs",
            "CreatureBrain",
            creature::CreatureBrain::NODES.len(),
        ),
        (
            "examples/guards.rs",
            "GuardDuty",
            guards::GuardDuty::NODES.len(),
        ),
        ("examples/squad.rs", "Soldier", squad::Soldier::NODES.len()),
    ] {
        let text = file(path);
        let program =
            Program::parse_file(&text, line_of(&text)).unwrap_or_else(|e| panic!("{path}: {e:?}"));
        let interpreter = program.interpreter(tree).expect(tree);
        assert_eq!(program.tree(tree).unwrap().kinds().count(), nodes, "{path}");
        assert_eq!(interpreter.name(), tree);
    }
    let text = file("examples/requests.rs");
    let refused = Program::parse_file(&text, line_of(&text))
        .err()
        .expect("refused");
    assert!(
        refused[0].message.contains("does not run `request` nodes"),
        "{refused:?}"
    );
    assert!(
        refused[0].line > line_of(&text),
        "a line of the file: {refused:?}"
    );
}
