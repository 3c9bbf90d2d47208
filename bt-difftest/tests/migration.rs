//! Hot reload's state migration, on random trees and random edits: the
//! interpreter runs an episode, the tree is edited part-way through, every
//! agent migrates, and the episode goes on with the edited tree.
//!
//! What must hold, whatever the edit: no stateful leaf run is ticked or
//! halted after it ended, every run that started ends exactly once (by
//! itself, by a halt at the migration, or by the final reset), and no gate
//! permit or rendezvous place is held once every agent is reset. A tree
//! reloaded from its own text changes nothing at all.

use bt_compiler::interpret::Program;
use bt_difftest::generator::{Generator, Rng};
use bt_difftest::{Episode, edit, interpret, interpret_edited};
use std::collections::{BTreeMap, BTreeSet};

/// A program of random trees: two library trees and `trees` trees that
/// may embed them.
fn program(seed: u64, trees: usize) -> (String, Vec<String>) {
    let (texts, names) = sources(seed, trees);
    (texts.concat(), names)
}

/// Each tree's text, and the names of the trees to test.
fn sources(seed: u64, trees: usize) -> (Vec<String>, Vec<String>) {
    let sources = Generator::new(seed).program(2, trees);
    let names = (sources.iter())
        .filter(|t| !t.library)
        .map(|t| t.name.clone())
        .collect();
    (sources.into_iter().map(|t| t.text).collect(), names)
}

/// The lines of a run, less the migration's.
fn without_migration(lines: &[String]) -> Vec<&String> {
    lines.iter().filter(|l| !l.contains(" migrate:")).collect()
}

#[test]
fn a_tree_reloaded_from_its_own_text_changes_nothing() {
    let mut checked = 0;
    for seed in 0..6u64 {
        let (text, names) = program(0x5eed_0000 + seed, 6);
        let old = Program::parse(&text).expect("generated trees are valid");
        let same = Program::parse(&text).expect("generated trees are valid");
        for (i, name) in names.iter().enumerate() {
            let episode = Episode::new(seed * 100 + i as u64, 3, 24);
            let plain = interpret(&old, name, &episode);
            let reloaded = interpret_edited(&old, Some((&same, 12)), name, &episode);
            for line in reloaded.iter().filter(|l| l.contains(" migrate:")) {
                assert!(
                    line.ends_with("migrate: "),
                    "{name}: reloading the same text did something: {line}"
                );
            }
            assert_eq!(
                without_migration(&reloaded),
                plain.iter().collect::<Vec<_>>(),
                "{name}"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 36);
}

/// Leaf runs started before tick `at` and ticked again after it: running
/// state that moved.
fn runs_kept(lines: &[String], at: usize) -> usize {
    let tick = |l: &str| -> Option<usize> { l.strip_prefix('t')?.split(' ').next()?.parse().ok() };
    let mut before = BTreeSet::new();
    let mut kept = BTreeSet::new();
    for line in lines {
        let Some(t) = tick(line) else { continue };
        let agent = line.split(' ').nth(1).unwrap_or_default().to_string();
        for word in line.split(' ') {
            let run = |prefix: char| {
                let rest = word.strip_prefix(prefix)?.strip_prefix('L')?;
                let run = rest.split('#').nth(1)?.split('=').next()?;
                Some((agent.clone(), run.to_string()))
            };
            if t < at
                && let Some(r) = run('+')
            {
                before.insert(r);
            }
            if t >= at
                && !line.contains(" migrate:")
                && let Some(r) = run('.')
                && before.contains(&r)
            {
                kept.insert(r);
            }
        }
    }
    kept.len()
}

#[test]
fn random_edits_halt_exactly_once_what_vanished_and_keep_what_stayed() {
    let mut edits: BTreeMap<&str, usize> = BTreeMap::new();
    let (mut kept, mut halted_at_migration) = (0, 0);
    for seed in 0..100u64 {
        let (texts, names) = sources(0xed17_0000 + seed, 4);
        let old = Program::parse(&texts.concat()).expect("generated trees are valid");
        let mut rng = Rng(seed);
        for (i, name) in names.iter().enumerate() {
            // The tree itself, or now and then a library tree it may embed.
            let edited = if rng.chance(15) { rng.below(2) } else { 2 + i };
            let whole = |text: &str| {
                let mut all = texts.clone();
                all[edited] = text.to_string();
                all.concat()
            };
            let valid = |text: &str| Program::parse(&whole(text)).is_ok();
            let Some(mut edit) = edit::edit(&texts[edited], &mut rng, valid) else {
                continue;
            };
            edit.text = whole(&edit.text);
            let new = Program::parse(&edit.text).expect("edit checks the program");
            *edits.entry(edit.what).or_default() += 1;
            let at = 4 + rng.below(16);
            let episode = Episode::new(seed * 1000 + i as u64, 3, 28);
            // Panics on a run ticked or halted after it ended; asserts every
            // run ended and nothing is held after the final resets.
            let lines = std::panic::catch_unwind(|| {
                interpret_edited(&old, Some((&new, at)), name, &episode)
            })
            .unwrap_or_else(|_| {
                panic!(
                    "tree {name} ({} edit), migrated at tick {at}:\n{}",
                    edit.what, edit.text
                )
            });
            kept += runs_kept(&lines, at);
            halted_at_migration += (lines.iter())
                .filter(|l| l.contains(" migrate:"))
                .map(|l| {
                    l.split(' ')
                        .filter(|w| w.starts_with("!L") || w.starts_with('h'))
                        .count()
                })
                .sum::<usize>();
        }
    }
    for what in ["remove", "swap", "wrap", "unwrap", "number", "duplicate"] {
        assert!(
            edits.get(what).copied().unwrap_or(0) >= 5,
            "too few `{what}` edits: {edits:?}"
        );
    }
    eprintln!("edits {edits:?}; runs kept {kept}; halted at migration {halted_at_migration}");
    assert!(kept >= 50, "running leaves kept across edits: {kept}");
    assert!(
        halted_at_migration >= 5,
        "running leaves and scopes halted by edits: {halted_at_migration}"
    );
}
