//! The macro's BehaviorTree.CPP export, checked by BehaviorTree.CPP itself:
//! random trees over the nodes BT.CPP has ([`bt_difftest::btcpp_gen`]) are
//! exported as XML, loaded and run by BT.CPP 4.8.2 (`behaviortreepy`) with
//! the same scripted leaves as the compiled trees, and must agree tick by
//! tick on the root's status and on every leaf call; the recorder's
//! `.btlog` must hold the same (uid, status) records as the file BT.CPP's
//! own `FileLogger` writes for the same run.
//!
//! Skipped, with the reason, where no Python with `behaviortreepy` is found
//! (see [`bt_difftest::btcpp`]); `BT_REQUIRE_BTCPP` makes that a failure.

use bt_difftest::btcpp::{Btlog, Case, Run, python, run_python};
use bt_difftest::btcpp_gen::script;
use std::fmt::Write;

// A generated tree may have no leaf that uses the world.
#[allow(missing_docs, unused_variables)]
mod trees {
    use bt::record::Recorder;
    use bt::{Ctx, NoFlags};
    use bt_difftest::btcpp::{A, Bw, Case, drive};
    include!(concat!(env!("OUT_DIR"), "/btcpp_trees.rs"));
}

const TICKS: usize = 32;

/// Per tick, the root's status and the leaf calls.
type Ticks = Vec<(String, Vec<String>)>;

fn json_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => write!(out, "\\u{:04x}", c as u32).unwrap(),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Runs `cases` in BT.CPP: per tree, the ticks (status, calls) and the
/// bytes of BT.CPP's `.btlog`.
fn run_in_btcpp(
    cases: &[&Case],
    scripts: &[(String, Vec<u8>)],
    ticks: usize,
    tick: &str,
    dir: &std::path::Path,
) -> Vec<(Ticks, Vec<u8>)> {
    let python = match python() {
        Ok(p) => p,
        Err(why) => panic!("{why}"),
    };
    let mut job = format!("{{\"ticks\":{ticks},\"tick\":\"{tick}\",\"scripts\":{{");
    for (name, values) in scripts {
        let values: Vec<String> = values.iter().map(|v| v.to_string()).collect();
        write!(job, "\"{name}\":[{}],", values.join(",")).unwrap();
    }
    job.pop();
    job.push_str("},\"trees\":[");
    for (i, case) in cases.iter().enumerate() {
        if i > 0 {
            job.push(',');
        }
        job.push_str("{\"name\":");
        json_str(&mut job, case.name);
        job.push_str(",\"xml\":");
        json_str(&mut job, case.xml);
        job.push_str(",\"btlog\":");
        json_str(
            &mut job,
            dir.join(format!("{}.btlog", case.name)).to_str().unwrap(),
        );
        job.push('}');
    }
    job.push_str("]}");
    let job_path = dir.join("job.json");
    std::fs::write(&job_path, job).unwrap();
    let output = run_python(&python, "run_trees.py", &[&job_path]);
    let mut runs: Vec<(String, Ticks)> = Vec::new();
    for line in output.lines() {
        if let Some(name) = line.strip_prefix("tree ") {
            runs.push((name.to_owned(), Vec::new()));
        } else {
            let mut fields = line.split('\t').map(str::to_owned);
            let status = fields.next().unwrap();
            runs.last_mut().unwrap().1.push((status, fields.collect()));
        }
    }
    assert_eq!(runs.len(), cases.len(), "BT.CPP ran every tree");
    runs.into_iter()
        .zip(cases)
        .map(|((name, ticks), case)| {
            assert_eq!(name, case.name);
            let btlog = std::fs::read(dir.join(format!("{name}.btlog"))).unwrap();
            (ticks, btlog)
        })
        .collect()
}

/// The kinds the generated trees are made of.
const KINDS: &[&str] = &[
    "sequence",
    "select",
    "reactive_sequence",
    "reactive_select",
    "async_sequence",
    "async_select",
    "if_then_else",
    "while_do_else",
    "parallel",
    "parallel_all",
    "sequence_with_memory",
    "repeat",
    "retry",
    "invert",
    "force_success",
    "force_failure",
    "keep_running_until_failure",
    "run_once",
    "precondition",
    "success",
    "failure",
    "cond",
    "BtSub",
];

/// Whether BT.CPP is missing here (saying why): the test is skipped.
fn skipped() -> bool {
    match python() {
        Ok(_) => false,
        Err(why) => {
            eprintln!("skipped: {why}");
            true
        }
    }
}

fn scratch_dir(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn random_trees_run_as_in_behaviortree_cpp() {
    if skipped() {
        return;
    }
    let cases: Vec<&Case> = trees::CASES.iter().collect();
    let dir = scratch_dir("btcpp-differential");
    let scripts: Vec<(String, Vec<u8>)> = (1..=trees::LEAVES)
        .flat_map(|leaf| {
            [
                (format!("c{leaf}"), script(trees::SEED, leaf, true)),
                (format!("a{leaf}"), script(trees::SEED, leaf, false)),
            ]
        })
        .collect();
    // `tickExactlyOnce`: one tick is one tick of ours, also for the async
    // nodes, which `tickOnce` would tick again at once after they yield
    // (see `differences`); the other nodes of these trees never yield.
    let reference = run_in_btcpp(&cases, &scripts, TICKS, "exactly_once", &dir);
    let mut kinds = std::collections::BTreeMap::new();
    for case in &cases {
        for kind in KINDS {
            // The keyword as a word of its own (`sequence` is not
            // `reactive_sequence`), or a call of a library tree.
            let word = |(at, _): &(usize, &str)| {
                let before = case.source[..*at].chars().next_back();
                let after = case.source[at + kind.len()..].chars().next();
                !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
                    && (*kind == "BtSub" || !after.is_some_and(|c| c.is_alphanumeric() || c == '_'))
            };
            if case.source.match_indices(kind).any(|m| word(&m)) {
                *kinds.entry(kind).or_insert(0) += 1;
            }
        }
    }
    println!("trees holding each kind: {kinds:?}");
    assert_eq!(
        kinds.len(),
        KINDS.len(),
        "every kind is in some tree: {kinds:?}"
    );
    let (mut calls, mut records, mut halts) = (0, 0, 0);
    for (case, (ticks, btlog)) in cases.iter().zip(&reference) {
        let run: Run = (case.run)(TICKS);
        for (k, (ours, theirs)) in run.ticks.iter().zip(ticks).enumerate() {
            assert_eq!(
                ours,
                theirs,
                "tree {} differs from BehaviorTree.CPP at tick {k} (ours, then BT.CPP's)\n\
                 earlier ticks: {:?}\ntree {}\nXML:\n{}",
                case.name,
                &run.ticks[..k],
                case.source,
                case.xml
            );
            calls += ours.1.len();
            halts += ours.1.iter().filter(|c| c.starts_with("halt")).count();
        }
        assert_eq!(run.ticks.len(), ticks.len());
        let ours = Btlog::read(&run.btlog).unwrap();
        let theirs = Btlog::read(btlog).unwrap();
        assert_eq!((ours.protocol, theirs.protocol), (1, 1));
        let pairs = |log: &Btlog| -> Vec<(u16, u8)> {
            log.records.iter().map(|r| (r.uid, r.status)).collect()
        };
        let (a, b) = (pairs(&ours), pairs(&theirs));
        if let Some(at) = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i)) {
            panic!(
                "tree {}: the recorder's .btlog differs from BT.CPP's FileLogger at record {at}: \
                 ours {:?}, BT.CPP's {:?}\nbefore: {:?}\ntree {}\ninstance XML:\n{}",
                case.name,
                a.get(at),
                b.get(at),
                &a[at.saturating_sub(12)..at],
                case.source,
                ours.xml
            );
        }
        records += a.len();
    }
    println!(
        "{} trees x {TICKS} ticks agree with BehaviorTree.CPP: {calls} leaf calls \
         ({halts} halts), {records} .btlog records",
        cases.len()
    );
    assert!(calls > 4_000 && halts > 300 && records > 15_000);
}

/// The documented differences from BehaviorTree.CPP 4.x (the `bt` crate's
/// "BehaviorTree.CPP's catalog"), each shown on both sides.
mod differences {
    use super::*;
    use bt::record::Recorder;
    use bt::{Ctx, NoFlags};
    use bt_difftest::btcpp::{A, Bw, drive_in};

    bt::behavior_tree! {
        tree RepeatYields(w: &mut Bw, cx: &Ctx<NoFlags, NoFlags, &Recorder>) {
            reactive_sequence { 'c1: cond w.c(1), repeat(2) { 'c2: cond w.c(2) } }
        }
        tree MemoryYields(w: &mut Bw, cx: &Ctx<NoFlags, NoFlags, &Recorder>) {
            reactive_sequence { 'c1: cond w.c(1), sequence_with_memory { 'c2: cond w.c(2), 'c3: cond w.c(3) } }
        }
        tree RunningCondition(w: &mut Bw, cx: &Ctx<NoFlags, NoFlags, &Recorder>) {
            while_do_else { sequence { 'c1: cond w.c(1), 'a2: A { id: 2 } }, 'a3: A { id: 3 }, 'a4: A { id: 4 } }
        }
        tree StatefulCondition(w: &mut Bw, cx: &Ctx<NoFlags, NoFlags, &Recorder>) {
            while_do_else { 'a1: A { id: 1 }, 'a2: A { id: 2 }, 'a3: A { id: 3 } }
        }
        tree IfWithoutElse(w: &mut Bw, cx: &Ctx<NoFlags, NoFlags, &Recorder>) {
            if_then_else { 'a1: A { id: 1 }, 'a2: A { id: 2 } }
        }
        tree AsyncYields(w: &mut Bw, cx: &Ctx<NoFlags, NoFlags, &Recorder>) {
            reactive_sequence { 'c1: cond w.c(1), async_sequence { 'c2: cond w.c(2), 'c3: cond w.c(3) } }
        }
        tree SwitchEq(w: &mut Bw, cx: &Ctx<NoFlags, NoFlags, &Recorder>) {
            switch_eq(w.v(0)) { 1 => 'a1: A { id: 1 }, 2 => 'c2: cond w.c(2), 3 => 'a3: A { id: 3 }, _ => 'a4: A { id: 4 } }
        }
        tree ForEach(w: &mut Bw, cx: &Ctx<NoFlags, NoFlags, &Recorder>) {
            reactive_sequence { 'c3: cond w.c(3), for_each(_x: u8 = w.q(2)) { sequence { 'c4: cond w.c(4), 'a5: A { id: 5 } } } }
        }
        tree RepeatInParallel(w: &mut Bw, cx: &Ctx<NoFlags, NoFlags, &Recorder>) {
            parallel(success = 2, failure = 1) { repeat(2) { 'c1: cond w.c(1) }, 'a2: A { id: 2 } }
        }
    }

    /// Runs one tree both ways with fixed scripts; returns (ours, BT.CPP's).
    fn both(case: Case, scripts: &[(usize, &str, Vec<u8>)], ticks: usize) -> (Ticks, Ticks) {
        let dir = scratch_dir(&format!("btcpp-{}", case.name));
        let named: Vec<(String, Vec<u8>)> = scripts
            .iter()
            .map(|(id, prefix, s)| (format!("{prefix}{id}"), s.clone()))
            .collect();
        let mut theirs = run_in_btcpp(&[&case], &named, ticks, "once", &dir);
        (case.run_ticks(ticks), theirs.remove(0).0)
    }

    trait RunTicks {
        fn run_ticks(&self, ticks: usize) -> Ticks;
    }

    impl RunTicks for Case {
        fn run_ticks(&self, ticks: usize) -> Ticks {
            (self.run)(ticks).ticks
        }
    }

    fn calls(ticks: &Ticks) -> Vec<Vec<&str>> {
        ticks
            .iter()
            .map(|(_, c)| c.iter().map(String::as_str).collect())
            .collect()
    }

    fn statuses(ticks: &Ticks) -> Vec<&str> {
        ticks.iter().map(|(s, _)| s.as_str()).collect()
    }

    macro_rules! case {
        ($tree:ident, $scripts:expr) => {
            Case {
                name: stringify!($tree),
                source: "",
                xml: <$tree as bt::BehaviorTree>::BTCPP_XML,
                run: |ticks| {
                    let scripts: Vec<(usize, Vec<u8>)> = $scripts
                        .iter()
                        .map(|(id, _, s): &(usize, &str, Vec<u8>)| (*id, s.clone()))
                        .collect();
                    drive_in::<$tree>(Bw::scripted(8, &scripts), ticks, |s, w, cx| s.tick(w, cx))
                },
            }
        };
    }

    fn always_success() -> Vec<(usize, &'static str, Vec<u8>)> {
        vec![(1, "c", vec![1]), (2, "c", vec![1]), (3, "c", vec![1])]
    }

    /// BT.CPP's `Repeat` yields after a run that started and finished in
    /// one tick and `tickOnce` ticks the tree again from the root, so the
    /// reactive condition is checked between runs; `repeat` runs again at
    /// once.
    #[test]
    fn repeat_runs_again_without_yielding() {
        if skipped() {
            return;
        }
        let (ours, theirs) = both(case!(RepeatYields, always_success()), &always_success(), 1);
        assert_eq!(calls(&ours), [["c1", "c2", "c2"]]);
        assert_eq!(calls(&theirs), [["c1", "c2", "c1", "c2"]]);
        assert_eq!(
            (statuses(&ours), statuses(&theirs)),
            (vec!["SUCCESS"], vec!["SUCCESS"])
        );
    }

    /// `switch_eq` with three cases is BT.CPP's `Switch3`: the same
    /// children run, and a change of case halts the running one, for a
    /// value that changes from tick to tick (BT.CPP reads it from the
    /// blackboard entry the export names).
    #[test]
    fn switch_eq_is_btcpp_switch() {
        if skipped() {
            return;
        }
        fn scripts() -> Vec<(usize, &'static str, Vec<u8>)> {
            vec![
                // The value, one per tick.
                (0, "switch_eq_n", vec![1, 1, 3, 3, 2, 9, 9, 1, 3, 3, 3, 4]),
                (1, "a", vec![0, 0, 1]),
                (2, "c", vec![1, 2]),
                (3, "a", vec![0, 2]),
                (4, "a", vec![0, 0, 1]),
            ]
        }
        assert!(
            <SwitchEq as bt::BehaviorTree>::BTCPP_XML
                .contains(r#"<Switch3 variable="{switch_eq_n0}" case_1="1" case_2="2" case_3="3""#)
        );
        let (ours, theirs) = both(case!(SwitchEq, scripts()), &scripts(), 12);
        assert_eq!(ours, theirs);
        // Every arm ran, and a change of case halted a running child.
        let all: Vec<&str> = calls(&ours).into_iter().flatten().collect();
        for call in [
            "start a1", "c2", "start a3", "start a4", "halt a1", "halt a3",
        ] {
            assert!(all.contains(&call), "{call} in {all:?}");
        }
    }

    /// `for_each` over `u8` items is BT.CPP's `LoopInt`: an item per run
    /// of the child, `Running` after each success, a failure ending the
    /// loop, a halt dropping the item, `if_empty` once the items are out.
    #[test]
    fn for_each_is_btcpp_loop() {
        if skipped() {
            return;
        }
        fn scripts() -> Vec<(usize, &'static str, Vec<u8>)> {
            vec![
                // The items.
                (2, "for_each_n", vec![5, 6, 7, 8, 9]),
                (5, "a", vec![1, 0, 1, 0, 0, 1]),
                (3, "c", vec![1, 1, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1]),
                (4, "c", vec![1, 1, 2, 1, 1]),
            ]
        }
        assert!(
            <ForEach as bt::BehaviorTree>::BTCPP_XML
                .contains(r#"<LoopInt queue="{for_each_n2}" if_empty="SUCCESS" value="{_x}""#)
        );
        let (ours, theirs) = both(case!(ForEach, scripts()), &scripts(), 20);
        assert_eq!(ours, theirs);
        let all: Vec<&str> = calls(&ours).into_iter().flatten().collect();
        assert!(all.contains(&"halt a5"), "{all:?}");
        // The items ran out: `if_empty`, and from then on at once.
        assert_eq!(statuses(&ours)[18..], ["SUCCESS", "SUCCESS"]);
    }

    /// `AsyncSequence` yields after a child that started and finished in
    /// one tick; `tickOnce` then ticks the tree again from the root at once,
    /// while `async_sequence` returns `Running`, as under `tickExactlyOnce`
    /// (which the random trees are compared with).
    #[test]
    fn async_sequence_returns_running_where_tick_once_ticks_again() {
        if skipped() {
            return;
        }
        let (ours, theirs) = both(case!(AsyncYields, always_success()), &always_success(), 2);
        assert_eq!(calls(&ours), [vec!["c1", "c2"], vec!["c1", "c3"]]);
        assert_eq!(
            (statuses(&ours), statuses(&theirs)),
            (vec!["RUNNING", "SUCCESS"], vec!["SUCCESS", "SUCCESS"])
        );
        assert_eq!(
            calls(&theirs),
            [["c1", "c2", "c1", "c3"], ["c1", "c2", "c1", "c3"]]
        );
    }

    /// The same for `SequenceWithMemory` after a child that started and
    /// finished in one tick.
    #[test]
    fn sequence_with_memory_goes_on_without_yielding() {
        if skipped() {
            return;
        }
        let (ours, theirs) = both(case!(MemoryYields, always_success()), &always_success(), 1);
        assert_eq!(calls(&ours), [["c1", "c2", "c3"]]);
        assert_eq!(calls(&theirs), [["c1", "c2", "c1", "c3"]]);
    }

    fn running_condition() -> Vec<(usize, &'static str, Vec<u8>)> {
        // c1 succeeds; a2 succeeds on its first tick; a3 and a4 run on.
        vec![
            (1, "c", vec![1]),
            (2, "a", vec![1]),
            (3, "a", vec![0]),
            (4, "a", vec![0]),
        ]
    }

    /// A `while_do_else` condition that runs again while the branch runs:
    /// we halt the branch, BT.CPP leaves it running, unticked.
    #[test]
    fn while_do_else_halts_the_branch_when_its_condition_runs() {
        if skipped() {
            return;
        }
        let (ours, theirs) = both(
            case!(RunningCondition, running_condition()),
            &running_condition(),
            3,
        );
        let tick0 = vec!["c1", "start a2"];
        let tick1 = vec!["tick a2", "start a3"];
        assert_eq!(
            calls(&ours),
            [
                tick0.clone(),
                tick1.clone(),
                vec!["c1", "start a2", "halt a3"]
            ]
        );
        assert_eq!(calls(&theirs), [tick0, tick1, vec!["c1", "start a2"]]);
    }

    fn stateful_condition() -> Vec<(usize, &'static str, Vec<u8>)> {
        vec![(1, "a", vec![1]), (2, "a", vec![0]), (3, "a", vec![0])]
    }

    /// A stateful leaf as a `while_do_else` condition is started again on
    /// each tick after it finished; BT.CPP keeps its finished status and
    /// returns it without calling it until the node finishes.
    #[test]
    fn while_do_else_starts_a_finished_stateful_condition_again() {
        if skipped() {
            return;
        }
        let (ours, theirs) = both(
            case!(StatefulCondition, stateful_condition()),
            &stateful_condition(),
            3,
        );
        assert_eq!(
            calls(&ours),
            [
                vec!["start a1"],
                vec!["tick a1", "start a2"],
                vec!["start a1", "halt a2"]
            ]
        );
        assert_eq!(
            calls(&theirs),
            [
                vec!["start a1"],
                vec!["tick a1", "start a2"],
                vec!["tick a2"]
            ]
        );
    }

    fn failing_condition() -> Vec<(usize, &'static str, Vec<u8>)> {
        vec![(1, "a", vec![2]), (2, "a", vec![1])]
    }

    /// A two-child `if_then_else` whose stateful condition failed runs the
    /// condition again when it is next entered; BT.CPP's `IfThenElse`
    /// returns the failure without resetting the condition, which then
    /// keeps its `FAILURE`: the node fails on every later tick, calling
    /// nothing.
    #[test]
    fn if_then_else_without_else_runs_a_failed_condition_again() {
        if skipped() {
            return;
        }
        let (ours, theirs) = both(
            case!(IfWithoutElse, failing_condition()),
            &failing_condition(),
            4,
        );
        assert_eq!(
            calls(&ours),
            [
                vec!["start a1"],
                vec!["tick a1"],
                vec!["start a1"],
                vec!["tick a1"]
            ]
        );
        assert_eq!(
            statuses(&ours),
            ["RUNNING", "FAILURE", "RUNNING", "FAILURE"]
        );
        assert_eq!(
            calls(&theirs),
            [vec!["start a1"], vec!["tick a1"], vec![], vec![]]
        );
        assert_eq!(
            statuses(&theirs),
            ["RUNNING", "FAILURE", "FAILURE", "FAILURE"]
        );
    }

    fn repeat_and_action() -> Vec<(usize, &'static str, Vec<u8>)> {
        vec![(1, "c", vec![1]), (2, "a", vec![1])]
    }

    /// BT.CPP's `Repeat` yields between runs inside a plain `Parallel` too:
    /// the parallel ticks its other children before `tickOnce` ticks the
    /// root again, so a sibling runs between the runs and the parallel can
    /// finish a tick earlier. `repeat` runs again at once.
    #[test]
    fn repeat_in_a_parallel_runs_again_before_its_siblings() {
        if skipped() {
            return;
        }
        let (ours, theirs) = both(
            case!(RepeatInParallel, repeat_and_action()),
            &repeat_and_action(),
            2,
        );
        assert_eq!(
            calls(&ours),
            [vec!["c1", "c1", "start a2"], vec!["tick a2"]]
        );
        assert_eq!(statuses(&ours), ["RUNNING", "SUCCESS"]);
        // Each tick of BT.CPP's starts over and finishes at once.
        let tick = vec!["c1", "start a2", "c1", "tick a2"];
        assert_eq!(calls(&theirs), [tick.clone(), tick]);
        assert_eq!(statuses(&theirs), ["SUCCESS", "SUCCESS"]);
    }
}

#[test]
fn the_compared_trees_export_valid_behaviortree_cpp_xml() {
    for (view, definition, instance) in trees::VIEWS {
        if let Err(e) = bt_difftest::xml_check::check(view, definition, instance) {
            panic!("tree {}: {e}\n{definition}", view.name);
        }
    }
}
