//! The interpreter tells a host which bindings are in scope where: each
//! expression resolves with the `when let` patterns and `for_each` items
//! around it, and each call names the places holding their values, so a
//! host with compiled expressions can keep the values by place.

use bt_compiler::interpret::{At, Expression, Host, Input, Program, Use};
use bt_runtime::Status;
use std::collections::BTreeMap;

const SOURCE: &str = "
    tree T(me: &mut M, cx: &Ctx) {
        prioritized {
            'eat: when let Some(food): Option<u32> = me.food() score me.taste(food) => sequence {
                action me.walk_to(food),
                for_each(bite: u32 = me.bites(food)) { action me.chew(food, bite) },
            },
            'idle: else => action me.idle(),
        }
    }
";

/// Each resolved expression: its text and scope.
fn resolved() -> BTreeMap<String, (Use, Vec<String>)> {
    let program = Program::parse(SOURCE).expect("valid");
    let mut interpreter = program.interpreter("T").unwrap();
    let mut seen = BTreeMap::new();
    interpreter
        .resolve(|e: &Expression| -> Result<u32, ()> {
            let scope = e.scope.iter().map(|s| s.replace(' ', "")).collect();
            seen.insert(e.text.replace(' ', ""), (e.used, scope));
            Ok(seen.len() as u32)
        })
        .unwrap();
    seen
}

#[test]
fn expressions_resolve_with_the_bindings_around_them() {
    let seen = resolved();
    let scope = |text: &str| seen[text].1.clone();
    let none: Vec<String> = Vec::new();
    let food = vec!["Some(food):Option<u32>".to_string()];
    let both = vec!["Some(food):Option<u32>".to_string(), "bite:u32".to_string()];
    assert_eq!(
        scope("me.food()"),
        none,
        "the when let's own value is not in its scope"
    );
    assert_eq!(seen["me.food()"].0, Use::Matches);
    assert_eq!(
        scope("me.taste(food)"),
        food,
        "a clause after the when let sees it"
    );
    assert_eq!(scope("me.walk_to(food)"), food);
    assert_eq!(
        scope("me.bites(food)"),
        food,
        "a for_each's value does not see its item"
    );
    assert_eq!(scope("me.chew(food,bite)"), both);
    assert_eq!(scope("me.idle()"), none, "another child sees nothing of it");
}

/// Records the places each call is told hold the bindings in scope.
#[derive(Default)]
struct Scopes {
    calls: Vec<(String, Vec<usize>, usize)>,
    bites: u32,
}

impl Host for Scopes {
    fn matches(&mut self, at: &At, expr: &str, _: &str) -> bool {
        self.calls
            .push((expr.replace(' ', ""), at.bound.to_vec(), at.place));
        true
    }
    fn score(&mut self, at: &At, expr: &str) -> f32 {
        self.calls
            .push((expr.replace(' ', ""), at.bound.to_vec(), at.place));
        1.0
    }
    fn action(&mut self, at: &At, expr: &str) -> Status {
        self.calls
            .push((expr.replace(' ', ""), at.bound.to_vec(), at.place));
        Status::Success
    }
    fn item(&mut self, at: &At, expr: &str) -> bool {
        self.calls
            .push((expr.replace(' ', ""), at.bound.to_vec(), at.place));
        self.bites += 1;
        self.bites <= 1
    }
}

#[test]
fn each_call_names_the_places_holding_the_values_in_scope() {
    let program = Program::parse(SOURCE).expect("valid");
    let interpreter = program.interpreter("T").unwrap();
    let (shared, mut agent) = (interpreter.shared(), interpreter.agent());
    let mut host = Scopes::default();
    interpreter.tick(&mut agent, &shared, &mut host, Input::default());
    interpreter.tick(&mut agent, &shared, &mut host, Input::default());
    // Places in pre-order: 0 prioritized, 1 'eat sequence, 2 walk_to,
    // 3 for_each, 4 chew, 5 'idle.
    let calls: Vec<(&str, &[usize])> = (host.calls.iter())
        .map(|(e, bound, _)| (e.as_str(), bound.as_slice()))
        .collect();
    assert_eq!(
        calls,
        [
            ("me.food()", &[][..]),
            ("me.taste(food)", &[1][..]),
            ("me.walk_to(food)", &[1][..]),
            ("me.bites(food)", &[1][..]),
            ("me.chew(food,bite)", &[1, 3][..]),
            ("me.bites(food)", &[1][..]),
        ]
    );
    assert_eq!(host.calls[2].2, 2, "walk_to at place 2");
}
