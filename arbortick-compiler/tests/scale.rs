//! Expansion cost of large and unusual trees: the output grows linearly
//! with the number of nodes, whatever the shape, and nothing in the macro
//! is repeated per level of nesting.

use proc_macro2::TokenStream;

/// `depth` levels of `open`, the leaf, then `depth` times `close`.
fn nested(open: &str, close: &str, depth: usize, leaf: &str) -> String {
    format!("{}{leaf}{}", open.repeat(depth), close.repeat(depth))
}

fn expanded_len(body: &str) -> usize {
    let tokens: TokenStream =
        format!("tree T(me: &mut A, cx: &Ctx, shared: &TShared) {{ {body} }}")
            .parse()
            .unwrap();
    let out = bt_compiler::expand(tokens).to_string();
    assert!(
        !out.contains("compile_error"),
        "the tree is valid: {body:.200}"
    );
    out.len()
}

/// The shapes that once grew faster than their node count, at size `n`.
fn shapes(n: usize) -> Vec<(&'static str, String)> {
    vec![
        (
            "nested scopes",
            nested("scope(exit = me.x()) { ", " }", n, "Walk"),
        ),
        ("nested timeouts", nested("timeout(1) { ", " }", n, "Walk")),
        ("nested repeats", nested("repeat(2) { ", " }", n, "Walk")),
        (
            "nested parallels",
            nested("parallel { Walk, ", " }", n, "Walk"),
        ),
        (
            "nested sequences",
            nested("sequence { Walk, ", " }", n, "Walk"),
        ),
        (
            "nested deciders",
            nested(
                "prioritized { when me.x() => Walk, else => ",
                " }",
                n,
                "Walk",
            ),
        ),
        (
            "wide select",
            format!("select {{ {} }}", vec!["Walk"; n * 20].join(", ")),
        ),
    ]
}

#[test]
fn output_grows_linearly_with_the_tree_whatever_its_shape() {
    let (small, large) = (shapes(25), shapes(50));
    for ((name, a), (_, b)) in small.iter().zip(&large) {
        let (a, b) = (expanded_len(a), expanded_len(b));
        // Twice the nodes: about twice the code (quadratic growth is 4x).
        let ratio = b as f64 / a as f64;
        assert!(
            ratio < 2.3,
            "{name}: {a} -> {b} bytes ({ratio:.2}x for 2x the nodes)"
        );
    }
}

#[test]
fn pathological_shapes_stay_under_a_per_node_bound() {
    for (name, body, nodes) in [
        (
            "50 nested scopes",
            nested("scope(exit = me.x()) { ", " }", 50, "Walk"),
            51,
        ),
        (
            "100 nested repeats",
            nested("repeat(2) { ", " }", 100, "Walk"),
            101,
        ),
        (
            "2,000-wide select",
            format!("select {{ {} }}", vec!["Walk"; 2000].join(", ")),
            2001,
        ),
    ] {
        let len = expanded_len(&body);
        assert!(len < nodes * 6_000, "{name}: {len} bytes for {nodes} nodes");
    }
}

#[test]
fn input_nested_beyond_any_tree_is_one_error_without_recursion() {
    // Built from the inside out, so that the test itself does not recurse.
    let mut body: TokenStream = "Walk".parse().unwrap();
    for _ in 0..5_000 {
        let group = proc_macro2::Group::new(proc_macro2::Delimiter::Brace, body);
        body = "sequence".parse::<TokenStream>().unwrap();
        body.extend([proc_macro2::TokenTree::Group(group)]);
    }
    let mut input: TokenStream = "tree T(me: &mut A)".parse().unwrap();
    input.extend([proc_macro2::TokenTree::Group(proc_macro2::Group::new(
        proc_macro2::Delimiter::Brace,
        body,
    ))]);
    let out = bt_compiler::expand(input.clone()).to_string();
    assert!(
        out.contains("brackets nested more than 400 deep"),
        "{out:.300}"
    );
    assert_eq!(out.matches("compile_error").count(), 1);
    // Dropping 5,000 nested groups recurses in the test's token type (not
    // in the compiler's): leak the input instead.
    std::mem::forget(input);
}
