//! The BehaviorTree.CPP XML of any tree is XML: random trees whose labels,
//! leaf paths (raw identifiers, letters XML names do not allow) and string
//! literals (quotes, `<&>`, `]]>`, tabs, raw control characters, as they
//! stand in the source) hold what an export must escape, expanded by
//! [`bt_compiler::expand`] and both their XML forms read by a real XML
//! parser (`roxmltree`): every node is an element, and every literal reads
//! back from an attribute as written (the characters XML allows nowhere as
//! Rust escapes).

use proc_macro2::{TokenStream, TokenTree};
use std::str::FromStr;

mod common;

use common::Rng;

/// Leaf paths, as Rust allows them.
const PATHS: &[&str] = &[
    "MoveTo",
    "r#type",
    "ai::r#loop::Walk",
    "crate::r#match::Go",
    "Ünïcödé",
    "ªlpha",
    "X·y",
    "日本::歩く",
    "self::Sleep",
    "Root",
];

/// Characters a string literal may hold raw, most of them ones an export
/// must escape.
const CHARS: &[&str] = &[
    "a", "Z", " ", "<", ">", "&", "'", "\\\"", "]]>", "\t", "\n", "\u{1}", "\u{7}", "\u{1b}",
    "\u{0}", "\u{7f}", "\u{85}", "\u{2028}", "\u{fffe}", "\u{ffff}", "é", "日", "🦀", "\\\\",
    "\\n", "\\u{2}", "{", "}", "#", "--", "?>",
];

/// Labels (lifetimes).
const LABELS: &[&str] = &["'a", "'ünï", "'日本", "'x_1", "'Root"];

/// A string literal's source text, kept in `written`.
fn literal(rng: &mut Rng, written: &mut Vec<String>) -> String {
    let mut s = String::from("\"");
    for _ in 0..rng.below(8) {
        s.push_str(CHARS[rng.below(CHARS.len())]);
    }
    s.push('"');
    written.push(s.clone());
    s
}

/// A random node, `depth` levels above the leaves at most.
fn node(
    rng: &mut Rng,
    depth: usize,
    labels: &mut Vec<&'static str>,
    literals: &mut Vec<String>,
    out: &mut String,
) {
    if rng.below(3) == 0
        && let Some(label) = labels.pop()
    {
        out.push_str(label);
        out.push_str(": ");
    }
    match if depth == 0 {
        rng.below(3)
    } else {
        rng.below(5)
    } {
        0 => out.push_str(&format!("cond me.has({})", literal(rng, literals))),
        1 => out.push_str(&format!("action me.act({})", literal(rng, literals))),
        2 => out.push_str(&format!("{} {{}}", PATHS[rng.below(PATHS.len())])),
        k => {
            out.push_str(if k == 3 { "sequence { " } else { "select { " });
            for _ in 0..1 + rng.below(3) {
                node(rng, depth - 1, labels, literals, out);
                out.push_str(", ");
            }
            out.push('}');
        }
    }
}

/// The value of the string constant `name` in an expansion.
fn constant(tokens: &TokenStream, name: &str) -> Option<String> {
    let mut stack = vec![tokens.clone().into_iter()];
    let mut seen = false;
    while let Some(level) = stack.last_mut() {
        match level.next() {
            Some(TokenTree::Group(g)) => stack.push(g.stream().into_iter()),
            Some(TokenTree::Ident(i)) if i == name => seen = true,
            Some(TokenTree::Literal(l)) if seen => {
                let lit: syn::LitStr = syn::parse2(TokenTree::Literal(l).into()).ok()?;
                return Some(lit.value());
            }
            Some(_) => {}
            None => {
                stack.pop();
            }
        }
    }
    None
}

/// `text` as the XML shows it: the characters XML 1.0 allows nowhere
/// written as Rust escapes.
fn as_exported(text: &str) -> String {
    text.chars()
        .map(|c| {
            let forbidden =
                (c < ' ' && !matches!(c, '\t' | '\n' | '\r')) || c == '\u{fffe}' || c == '\u{ffff}';
            if forbidden {
                format!("\\u{{{:x}}}", c as u32)
            } else {
                c.to_string()
            }
        })
        .collect()
}

#[test]
fn random_trees_export_xml_that_parses() {
    let mut rng = Rng(0x00C0_FFEE);
    for case in 0..300 {
        let mut labels = LABELS.to_vec();
        let (mut body, mut literals) = (String::new(), Vec::new());
        node(&mut rng, 3, &mut labels, &mut literals, &mut body);
        let source = format!("tree T(me: &mut Bot) {{ sequence {{ {body} }} }}");
        let tokens = TokenStream::from_str(&source).unwrap_or_else(|e| panic!("{e}: {source}"));
        let expansion = bt_compiler::expand(tokens);
        let text = expansion.to_string();
        assert!(
            !text.contains("compile_error"),
            "case {case} refused: {source}\n{text}"
        );
        // Every node of the tree is an element below `BehaviorTree`: the
        // root sequence, and one per `cond`, `action`, leaf or composite.
        let nodes = 1
            + body.matches("cond ").count()
            + body.matches("action ").count()
            + body.matches(" {}").count()
            + body.matches("sequence {").count()
            + body.matches("select {").count();
        for form in ["BTCPP_XML", "BTCPP_INSTANCE_XML"] {
            let xml = constant(&expansion, form).expect(form);
            let doc = roxmltree::Document::parse(&xml)
                .unwrap_or_else(|e| panic!("case {case} {form}: {e}\n{source}\n{xml}"));
            let tree = doc
                .descendants()
                .find(|n| n.has_tag_name("BehaviorTree"))
                .expect("a BehaviorTree element");
            let elements = tree.descendants().filter(|n| n.is_element()).count() - 1;
            assert_eq!(elements, nodes, "case {case} {form}: {source}\n{xml}");
            for lit in &literals {
                let expected = as_exported(lit);
                assert!(
                    doc.descendants()
                        .any(|n| n.attributes().any(|a| a.value().contains(&expected))),
                    "case {case} {form}: {expected:?} is in no attribute\n{xml}"
                );
            }
        }
    }
}
