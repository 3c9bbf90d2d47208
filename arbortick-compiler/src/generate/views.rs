//! The tree's views, as constants of its `BehaviorTree` impl: the pieces
//! of its BehaviorTree.CPP XML (joined with the trees it embeds by the
//! runtime's `view` module, in const context), a Mermaid flowchart, a
//! Graphviz digraph, and the diagram in the type's documentation.
//!
//! The mapping to BT.CPP names and ports is documented in the runtime's
//! `view` module; the node-kind table says which kinds are built-ins.

use super::Gen;
use crate::ast::Arm;
use crate::ir::{Count, Kind, Node};
use crate::kinds::Row as _;
use crate::kinds::{Btcpp, Category, KINDS};
use bt_runtime::Status;
use bt_runtime::view::{Form, TreeView, XmlPart};
use proc_macro2::TokenStream;
use quote::quote;

/// Trees up to this many nodes get their diagram in their documentation;
/// larger ones would not be readable there (`MERMAID` still has them).
const DOC_DIAGRAM_NODES: usize = 120;

/// XML lines are indented two spaces per level down to this depth, and no
/// further: a chain thousands of nodes deep would otherwise make the file
/// quadratic in its depth.
const MAX_INDENT: usize = 24;

/// Node labels in diagrams are cut to this many characters.
const DIAGRAM_TEXT: usize = 48;

/// One piece of the XML body, as the runtime's `XmlPart`.
enum Part {
    Text(String),
    Uid,
    Subtree(usize),
}

impl Gen<'_> {
    /// The view constants of the `BehaviorTree` impl.
    pub(super) fn view_consts(&self) -> TokenStream {
        let name = &self.tree.name;
        let name_str = name.to_string();
        let (xml_parts, models) = self.xml_parts();
        let parts = xml_parts.iter().map(|p| match p {
            Part::Text(t) => quote!(::__bt::view::XmlPart::Text(#t)),
            Part::Uid => quote!(::__bt::view::XmlPart::Uid),
            Part::Subtree(k) => quote!(::__bt::view::XmlPart::Subtree(#k)),
        });
        let subtrees: Vec<(usize, &syn::Path)> = self
            .tree
            .nodes
            .iter()
            .filter_map(|n| Some((n.id, n.kind.subtree()?)))
            .collect();
        let embedded = subtrees.iter().map(|(node, path)| {
            quote!(::__bt::view::Embedded { node: #node, view: <#path as ::__bt::BehaviorTree>::VIEW })
        });
        let sizes = subtrees
            .iter()
            .map(|(_, path)| quote!(+ <#path as ::__bt::BehaviorTree>::VIEW.size));
        let own = self.tree.nodes.len();
        let (mermaid, dot) = (self.mermaid(), self.dot());
        let (definition, instance) = if subtrees.is_empty() {
            // Written here, by the runtime's own writer, as literals: rustc
            // would evaluate the constants below eagerly, slowly for large
            // trees.
            let write = |form| literal(&name_str, &xml_parts, &models, own, form);
            let (definition, instance) = (write(Form::Definition), write(Form::Instance));
            (quote!(#definition), quote!(#instance))
        } else {
            // Joined with the embedded trees' views in const evaluation.
            let document = |form: TokenStream| {
                quote! {{
                    const LEN: ::core::primitive::usize = <#name as ::__bt::BehaviorTree>::VIEW.xml_len(::__bt::view::Form::#form);
                    const BYTES: [::core::primitive::u8; LEN] = <#name as ::__bt::BehaviorTree>::VIEW.xml::<LEN>(::__bt::view::Form::#form);
                    ::__bt::view::text(&BYTES)
                }}
            };
            (document(quote!(Definition)), document(quote!(Instance)))
        };
        quote! {
            const VIEW: &'static ::__bt::view::TreeView<'static> = &::__bt::view::TreeView {
                name: #name_str,
                nodes: <Self as ::__bt::BehaviorTree>::NODES,
                xml: &[#(#parts),*],
                models: &[#(#models),*],
                subtrees: &[#(#embedded),*],
                size: #own #(#sizes)*,
            };
            const BTCPP_XML: &'static ::core::primitive::str = #definition;
            const BTCPP_INSTANCE_XML: &'static ::core::primitive::str = #instance;
            const MERMAID: &'static ::core::primitive::str = #mermaid;
            const DOT: &'static ::core::primitive::str = #dot;
        }
    }

    /// The type's documentation lines that show the tree as a diagram.
    pub(super) fn diagram_doc(&self) -> Vec<String> {
        if self.tree.nodes.len() > DOC_DIAGRAM_NODES {
            return vec![
                String::new(),
                format!(
                    " The tree has {} nodes, too many to draw here: see \
                     `BehaviorTree::MERMAID` and `BehaviorTree::DOT`.",
                    self.tree.nodes.len()
                ),
            ];
        }
        let mut lines = vec![String::new(), "<pre class=\"mermaid\">".to_owned()];
        lines.extend(self.mermaid().lines().map(html));
        lines.push("</pre>".to_owned());
        lines.push(
            "<script type=\"module\">import mermaid from \
             \"https://cdn.jsdelivr.net/npm/mermaid@11/dist/mermaid.esm.min.mjs\"; \
             mermaid.initialize({ startOnLoad: true });</script>"
                .to_owned(),
        );
        lines
    }

    /// The XML body in pieces, and the tree's model entries.
    fn xml_parts(&self) -> (Vec<Part>, Vec<String>) {
        let mut parts = Vec::new();
        let mut text = String::new();
        let mut models: Vec<String> = Vec::new();
        let mut subtrees = 0;
        self.xml_node(0, 2, &mut parts, &mut text, &mut models, &mut subtrees);
        if !text.is_empty() {
            parts.push(Part::Text(text));
        }
        (parts, models)
    }

    fn xml_node(
        &self,
        id: usize,
        depth: usize,
        parts: &mut Vec<Part>,
        text: &mut String,
        models: &mut Vec<String>,
        subtrees: &mut usize,
    ) {
        let node = self.tree.node(id);
        let indent = "  ".repeat(depth.min(MAX_INDENT));
        let tag = btcpp_id(node);
        text.push_str(&format!("{indent}<{tag}"));
        let flush = |parts: &mut Vec<Part>, text: &mut String, part: Part| {
            parts.push(Part::Text(std::mem::take(text)));
            parts.push(part);
        };
        if let Kind::Subtree { .. } = node.kind {
            flush(parts, text, Part::Subtree(*subtrees));
            *subtrees += 1;
        } else {
            flush(parts, text, Part::Uid);
        }
        if let Some(label) = &node.label {
            text.push_str(&format!(" name=\"{}\"", xml(label)));
        }
        let (ports, described) = ports(node, &self.tree.nodes);
        for (port, value) in ports {
            text.push_str(&format!(" {port}=\"{}\"", xml(&value)));
        }
        if described {
            text.push_str(&format!(" _description=\"{}\"", xml(&node.detail)));
        }
        if let Some(guard) = &node.guard {
            text.push_str(&format!(" _guard=\"{}\"", xml(&guard.text)));
        }
        if let Some(arm) = &node.arm {
            text.push_str(&format!(" _case=\"{}\"", xml(&tokens(arm))));
        }
        let builtin = switch_cases(node).is_some() || btcpp_loop(node).is_some();
        if let (Btcpp::Model(category), false) = (node.row.info().btcpp, builtin) {
            let model = format!("<{} ID=\"{tag}\" editable=\"true\"/>", category.tag());
            if !models.contains(&model) {
                models.push(model);
            }
        }
        if node.children.is_empty() {
            text.push_str("/>\n");
            return;
        }
        text.push_str(">\n");
        for &child in &node.children {
            self.xml_node(child, depth + 1, parts, text, models, subtrees);
        }
        text.push_str(&format!("{indent}</{tag}>\n"));
    }

    /// The tree as a Mermaid flowchart.
    pub(super) fn mermaid(&self) -> String {
        let mut out = String::from("flowchart TD\n");
        for node in &self.tree.nodes {
            let text = mermaid_text(&caption(node));
            let (open, close) = match shape(node) {
                Shape::Control => ("[", "]"),
                Shape::Decorator => ("(", ")"),
                Shape::Action => ("([", "])"),
                Shape::Condition => ("{{", "}}"),
                Shape::Subtree => ("[[", "]]"),
            };
            out.push_str(&format!("  n{}{open}\"{text}\"{close}\n", node.id));
        }
        for node in &self.tree.nodes {
            if let Some(parent) = node.parent {
                match edge(node) {
                    Some(label) => out.push_str(&format!(
                        "  n{parent} -->|\"{}\"| n{}\n",
                        mermaid_text(&label),
                        node.id
                    )),
                    None => out.push_str(&format!("  n{parent} --> n{}\n", node.id)),
                }
            }
        }
        out
    }

    /// The tree as a Graphviz digraph.
    pub(super) fn dot(&self) -> String {
        let mut out = format!(
            "digraph \"{}\" {{\n  node [fontname=\"Helvetica\"];\n",
            self.tree.name
        );
        for node in &self.tree.nodes {
            let style = match shape(node) {
                Shape::Control => "shape=box",
                Shape::Decorator => "shape=box, style=rounded",
                Shape::Action => "shape=ellipse",
                Shape::Condition => "shape=hexagon",
                Shape::Subtree => "shape=box, peripheries=2",
            };
            out.push_str(&format!(
                "  n{} [label=\"{}\", {style}];\n",
                node.id,
                dot_text(&caption(node))
            ));
        }
        for node in &self.tree.nodes {
            if let Some(parent) = node.parent {
                match edge(node) {
                    Some(label) => out.push_str(&format!(
                        "  n{parent} -> n{} [label=\"{}\"];\n",
                        node.id,
                        dot_text(&label)
                    )),
                    None => out.push_str(&format!("  n{parent} -> n{};\n", node.id)),
                }
            }
        }
        out.push_str("}\n");
        out
    }
}

/// Tree `name` of `program` as a view, with the trees it embeds, for a tree
/// read at run time (hot reload): its strings are leaked, and each tree's
/// node table is the one `tables` gives for its name.
pub(crate) fn leaked_view(
    program: &crate::interpret::Program,
    name: &str,
    tables: &dyn Fn(&str) -> Option<&'static [bt_runtime::NodeInfo]>,
) -> Option<&'static TreeView<'static>> {
    let leak = |s: &str| -> &'static str { Box::leak(s.to_string().into_boxed_str()) };
    let ir = program.tree(name)?.ir();
    let (parts, models) = Gen::new(ir).xml_parts();
    let xml: Vec<XmlPart<'static>> = (parts.iter())
        .map(|p| match p {
            Part::Text(t) => XmlPart::Text(leak(t)),
            Part::Uid => XmlPart::Uid,
            Part::Subtree(k) => XmlPart::Subtree(*k),
        })
        .collect();
    let models: Vec<&'static str> = models.iter().map(|m| leak(m)).collect();
    let mut subtrees = Vec::new();
    for node in &ir.nodes {
        if let Some(path) = node.kind.subtree() {
            let embedded = path.segments.last().map(|s| s.ident.to_string())?;
            let view = leaked_view(program, &embedded, tables)?;
            subtrees.push(bt_runtime::view::Embedded {
                node: node.id,
                view,
            });
        }
    }
    let size = ir.nodes.len() + subtrees.iter().map(|s| s.view.size).sum::<usize>();
    Some(Box::leak(Box::new(TreeView {
        name: leak(name),
        nodes: tables(name)?,
        xml: Box::leak(xml.into_boxed_slice()),
        models: Box::leak(models.into_boxed_slice()),
        subtrees: Box::leak(subtrees.into_boxed_slice()),
        size,
    })))
}

/// Tree `name` of `program` as Mermaid and DOT text.
pub(crate) fn diagrams(
    program: &crate::interpret::Program,
    name: &str,
) -> Option<(String, String)> {
    let g = Gen::new(program.tree(name)?.ir());
    Some((g.mermaid(), g.dot()))
}

/// A document of a tree without subtrees, written by the runtime's writer.
fn literal(name: &str, parts: &[Part], models: &[String], size: usize, form: Form) -> String {
    let xml: Vec<XmlPart> = parts
        .iter()
        .map(|p| match p {
            Part::Text(t) => XmlPart::Text(t),
            Part::Uid => XmlPart::Uid,
            Part::Subtree(k) => XmlPart::Subtree(*k),
        })
        .collect();
    let models: Vec<&str> = models.iter().map(String::as_str).collect();
    let view = TreeView {
        name,
        nodes: &[],
        xml: &xml,
        models: &models,
        subtrees: &[],
        size,
    };
    let mut buf = vec![0; view.write_xml(form, &mut [])];
    view.write_xml(form, &mut buf);
    String::from_utf8(buf).expect("the writer copies UTF-8 pieces whole")
}

/// How a diagram draws a node.
enum Shape {
    Control,
    Decorator,
    Action,
    Condition,
    Subtree,
}

fn shape(node: &Node) -> Shape {
    if let Kind::Subtree { .. } = node.kind {
        return Shape::Subtree;
    }
    match (node.row.info().btcpp, node.children.len()) {
        (Btcpp::Model(Category::Condition), _) => Shape::Condition,
        (_, 0) => Shape::Action,
        (_, 1) => Shape::Decorator,
        _ => Shape::Control,
    }
}

/// `'label: detail`, cut to [`DIAGRAM_TEXT`] characters.
fn caption(node: &Node) -> String {
    let text = match &node.label {
        Some(label) => format!("'{label}: {}", node.detail),
        None => node.detail.clone(),
    };
    cut(&text)
}

/// The text on the edge into `node`: its guard, or its `switch` pattern.
fn edge(node: &Node) -> Option<String> {
    if let Some(guard) = &node.guard {
        return Some(cut(&guard.text));
    }
    node.arm.as_ref().map(|arm| cut(&tokens(arm)))
}

fn cut(text: &str) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.chars().count() <= DIAGRAM_TEXT {
        return text;
    }
    let mut short: String = text.chars().take(DIAGRAM_TEXT - 1).collect();
    short.push('…');
    short
}

fn tokens(t: &impl quote::ToTokens) -> String {
    t.to_token_stream().to_string()
}

/// The BT.CPP ID a node is written under.
fn btcpp_id(node: &Node) -> String {
    if let Some(cases) = switch_cases(node) {
        return format!("Switch{cases}");
    }
    if let Some(name) = btcpp_loop(node) {
        return name.to_owned();
    }
    match (&node.kind, node.row.info().btcpp) {
        (_, Btcpp::Builtin(name)) => name.to_owned(),
        (Kind::Cond(_), _) => "Cond".to_owned(),
        (Kind::Action(_), _) => "Act".to_owned(),
        (Kind::Constant(Status::Running), _) => "AlwaysRunning".to_owned(),
        (Kind::Leaf { path, .. }, _) => flatten(path),
        (_, Btcpp::Model(_)) => camel(node.row.keyword()),
    }
}

/// BT.CPP's loop over items of a `for_each`'s type, if it has one.
fn btcpp_loop(node: &Node) -> Option<&'static str> {
    let Kind::ForEach { item, .. } = &node.kind else {
        return None;
    };
    let mut ty = tokens(&item.ty);
    ty.retain(|c| !c.is_whitespace());
    Some(match ty.as_str() {
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32" | "u64" | "u128"
        | "usize" => "LoopInt",
        "f32" | "f64" => "LoopDouble",
        "String" | "&str" | "&'staticstr" => "LoopString",
        "bool" => "LoopBool",
        _ => return None,
    })
}

/// BT.CPP's `SwitchN` ports, in order.
const CASE_PORTS: [&str; 6] = ["case_1", "case_2", "case_3", "case_4", "case_5", "case_6"];

/// The number of cases of a `switch_eq` that BT.CPP's `Switch2` to
/// `Switch6` can write: one per arm but the default.
fn switch_cases(node: &Node) -> Option<usize> {
    let cases = node.children.len().checked_sub(1)?;
    (node.row == crate::kinds::Kind::SwitchEq && (2..=6).contains(&cases)).then_some(cases)
}

/// `ai::MoveTo` -> `ai_MoveTo`: BT.CPP names may not hold `:`. A raw
/// identifier loses its `r#`, and a character an XML name may not hold
/// (some letters Rust identifiers allow) is written `_xHHHH_`, so that any
/// path is an element name. A name that BT.CPP or this file already uses
/// for something else (`Sleep`, `Cond`, `Root`) gets a `_` after it.
fn flatten(path: &syn::Path) -> String {
    use syn::ext::IdentExt;
    let name = path
        .segments
        .iter()
        .map(|s| s.ident.unraw().to_string())
        .filter(|s| !matches!(s.as_str(), "crate" | "self" | "super"))
        .collect::<Vec<_>>()
        .join("_");
    let name = xml_name(&name);
    let taken = name == "Root"
        || KINDS.iter().any(|k| match k.btcpp {
            Btcpp::Builtin(builtin) => builtin == name,
            Btcpp::Model(_) => camel(k.keyword) == name,
        })
        || BTCPP_OTHERS.contains(&name.as_str())
        || ["Cond", "Act", "AlwaysRunning"].contains(&name.as_str());
    if taken { name + "_" } else { name }
}

/// BT.CPP 4's other built-in IDs (registered by every factory).
const BTCPP_OTHERS: &[&str] = &[
    "AsyncSequence",
    "AsyncFallback",
    "Switch2",
    "Switch3",
    "Switch4",
    "Switch5",
    "Switch6",
    "Precondition",
    "Script",
    "ScriptCondition",
    "SetBlackboard",
    "UnsetBlackboard",
    "LoopInt",
    "LoopBool",
    "LoopDouble",
    "LoopString",
    "SkipUnlessUpdated",
    "WaitValueUpdate",
    "WasEntryUpdated",
    "TryCatch",
    "Action",
    "Condition",
    "Control",
    "Decorator",
    "BehaviorTree",
    "TreeNodesModel",
];

/// `global_cooldown` -> `GlobalCooldown`.
fn camel(keyword: &str) -> String {
    keyword
        .split('_')
        .map(|word| {
            let mut chars = word.chars();
            chars
                .next()
                .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// A built-in's ports, and whether the node's source text goes in
/// `_description` (for our own nodes, and built-ins whose arguments are
/// Rust expressions).
fn ports(node: &Node, nodes: &[Node]) -> (Vec<(&'static str, String)>, bool) {
    // A named count is written as a blackboard entry of its name, and the
    // node's source goes in `_description`.
    let count = |c: &Count| {
        c.literal()
            .map_or_else(|| format!("{{{c}}}"), |n| n.to_string())
    };
    let bound = |b: &Option<Count>| b.as_ref().map_or("-1".to_owned(), count);
    let named = |counts: &[Option<&Count>]| counts.iter().flatten().any(|c| c.literal().is_none());
    match &node.kind {
        Kind::Parallel { success, failure } => (
            vec![
                ("success_count", count(success)),
                ("failure_count", count(failure)),
            ],
            named(&[Some(success), Some(failure)]),
        ),
        Kind::ParallelAll { max_failures } => (
            vec![("max_failures", count(max_failures))],
            named(&[Some(max_failures)]),
        ),
        Kind::Repeat(n) => (vec![("num_cycles", bound(n))], named(&[n.as_ref()])),
        Kind::Retry(n) => (vec![("num_attempts", bound(n))], named(&[n.as_ref()])),
        Kind::Timeout(s) => msec(node, "msec", s),
        Kind::Delay(s) => msec(node, "delay_msec", s),
        Kind::Wait(s) => msec(node, "msec", s),
        Kind::RunOnce { skip } => (vec![("then_skip", skip.is_some().to_string())], false),
        Kind::Precondition {
            expr,
            then,
            when: false,
            skips,
        } => {
            // A literal `true` or `false` is a BT.CPP script as it is; any
            // other condition is named after the node, as set at run time.
            let script = match expr {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Bool(b),
                    ..
                }) => b.value.to_string(),
                _ => format!("{{{}_n{}}}", node.row.keyword(), node.id),
            };
            let otherwise = match then {
                _ if *skips => "SKIPPED",
                Status::Success => "SUCCESS",
                Status::Failure => "FAILURE",
                Status::Running => "RUNNING",
            };
            (
                vec![("if", script), ("else", otherwise.to_owned())],
                !matches!(expr, syn::Expr::Lit(_)),
            )
        }
        Kind::Subtree { .. } => (Vec::new(), true),
        Kind::ForEach { item, then, skips } => {
            // The items come from an expression: a blackboard reference
            // named after the node; the item is written to the entry named
            // like the binding.
            let if_empty = match then {
                _ if *skips => "SKIPPED",
                Status::Success => "SUCCESS",
                Status::Failure => "FAILURE",
                Status::Running => "RUNNING",
            };
            (
                vec![
                    ("queue", format!("{{{}_n{}}}", node.row.keyword(), node.id)),
                    ("if_empty", if_empty.to_owned()),
                    (
                        "value",
                        format!("{{{}}}", syn::ext::IdentExt::unraw(&item.name)),
                    ),
                ],
                true,
            )
        }
        Kind::Switch(_) if switch_cases(node).is_some() => {
            // The value and any case that is not a literal are set at run
            // time: blackboard references named after the node.
            let name = format!("{}_n{}", node.row.keyword(), node.id);
            let mut ports = vec![("variable", format!("{{{name}}}"))];
            for (k, &c) in node.children[..node.children.len() - 1].iter().enumerate() {
                let value = match &nodes[c].arm {
                    Some(Arm::Equals(syn::Expr::Lit(syn::ExprLit { lit, .. }))) => match lit {
                        syn::Lit::Str(s) => s.value(),
                        lit => tokens(lit),
                    },
                    _ => format!("{{{name}_case_{}}}", k + 1),
                };
                ports.push((CASE_PORTS[k], value));
            }
            (ports, true)
        }
        // No ports: a built-in as it is, our own nodes with their source.
        Kind::Sequence
        | Kind::SequenceWithMemory
        | Kind::ReactiveSequence
        | Kind::Select
        | Kind::ReactiveSelect
        | Kind::AsyncSequence
        | Kind::AsyncSelect
        | Kind::TryCatch
        | Kind::IfThenElse
        | Kind::WhileDoElse
        | Kind::Invert
        | Kind::ForceSuccess
        | Kind::ForceFailure
        | Kind::KeepRunningUntilFailure
        | Kind::Decider { .. }
        | Kind::Scope { .. }
        | Kind::Cooldown(_)
        | Kind::Every(_)
        | Kind::After { .. }
        | Kind::Precondition { .. }
        | Kind::RunWhile { .. }
        | Kind::Gate(_)
        | Kind::GlobalCooldown(_)
        | Kind::Rendezvous { .. }
        | Kind::Sync { .. }
        | Kind::Request { .. }
        | Kind::Monitor { .. }
        | Kind::Switch(_)
        | Kind::Cond(_)
        | Kind::Action(_)
        | Kind::Instant(_)
        | Kind::Constant(_)
        | Kind::Leaf { .. } => (Vec::new(), matches!(node.row.info().btcpp, Btcpp::Model(_))),
    }
}

/// Seconds as milliseconds when they are a number literal; otherwise a
/// blackboard reference named after the node, with the expression in
/// `_description`.
fn msec(
    node: &Node,
    port: &'static str,
    seconds: &syn::Expr,
) -> (Vec<(&'static str, String)>, bool) {
    let literal = match seconds {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse::<f64>().ok(),
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Float(f),
            ..
        }) => f.base10_parse::<f64>().ok(),
        _ => None,
    };
    match literal {
        Some(s) => (
            vec![(port, format!("{}", (s * 1000.0).round() as u64))],
            false,
        ),
        None => (
            vec![(port, format!("{{{}_n{}}}", node.row.keyword(), node.id))],
            true,
        ),
    }
}

/// Escapes an XML attribute value. Tabs and line breaks are written as
/// character references (a parser would turn them into spaces otherwise);
/// the characters XML 1.0 allows nowhere, not even as references (other
/// control characters, U+FFFE, U+FFFF), are written as Rust escapes
/// (`\u{1}`), as they would be in the source.
fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if let Some(entity) = bt_runtime::view::markup_entity(c, true) {
            out.push_str(entity);
            continue;
        }
        match c {
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32));
            }
            c => out.push(c),
        }
    }
    out
}

/// Whether XML 1.0 allows `c` at the start of a name (`NameStartChar`,
/// without `:`, which BT.CPP's names may not hold).
fn xml_name_start(c: char) -> bool {
    matches!(c,
        'A'..='Z' | '_' | 'a'..='z'
        | '\u{c0}'..='\u{d6}' | '\u{d8}'..='\u{f6}' | '\u{f8}'..='\u{2ff}'
        | '\u{370}'..='\u{37d}' | '\u{37f}'..='\u{1fff}' | '\u{200c}'..='\u{200d}'
        | '\u{2070}'..='\u{218f}' | '\u{2c00}'..='\u{2fef}' | '\u{3001}'..='\u{d7ff}'
        | '\u{f900}'..='\u{fdcf}' | '\u{fdf0}'..='\u{fffd}' | '\u{10000}'..='\u{effff}')
}

/// Whether XML 1.0 allows `c` after the first character of a name
/// (`NameChar`; `-` and `.` left out too, for BT.CPP).
fn xml_name_char(c: char) -> bool {
    xml_name_start(c)
        || matches!(c, '0'..='9' | '\u{b7}' | '\u{300}'..='\u{36f}' | '\u{203f}'..='\u{2040}')
}

/// `name` with every character an XML name may not hold there written as
/// `_xHHHH_` (its code point in hex).
fn xml_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for (i, c) in name.chars().enumerate() {
        let allowed = if i == 0 {
            xml_name_start(c)
        } else {
            xml_name_char(c)
        };
        if allowed {
            out.push(c);
        } else {
            out.push_str(&format!("_x{:04X}_", c as u32));
        }
    }
    out
}

/// Escapes text inside a `<pre>` of the documentation.
fn html(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    bt_runtime::view::write_markup(&mut out, line, false).expect("writing to a String cannot fail");
    out
}

/// Mermaid label text: quotes and angle brackets as Mermaid's entity codes.
fn mermaid_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' => out.push_str("#quot;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            '#' => out.push_str("#35;"),
            c => out.push(c),
        }
    }
    out
}

/// Graphviz label text.
fn dot_text(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

#[cfg(test)]
mod tests {
    use super::flatten;

    #[test]
    fn leaf_paths_become_btcpp_names_that_clash_with_nothing() {
        let name = |path: &str| flatten(&syn::parse_str(path).unwrap());
        assert_eq!(name("MoveTo"), "MoveTo");
        assert_eq!(name("ai::MoveTo"), "ai_MoveTo");
        assert_eq!(name("crate::ai::MoveTo"), "ai_MoveTo");
        assert_eq!(name("super::MoveTo"), "MoveTo");
        // Raw identifiers lose their `r#`; letters XML names do not allow
        // are spelled out.
        assert_eq!(name("r#type"), "type");
        assert_eq!(name("ai::r#loop::Walk"), "ai_loop_Walk");
        assert_eq!(name("Ünïcödé"), "Ünïcödé");
        assert_eq!(name("ªb"), "_x00AA_b");
        assert_eq!(name("aª"), "a_x00AA_");
        // BT.CPP's built-ins, our own model IDs and the reserved `Root`.
        for taken in [
            "Sleep",
            "Sequence",
            "Script",
            "Cond",
            "Act",
            "Gate",
            "GlobalCooldown",
            "Root",
        ] {
            assert_eq!(name(taken), format!("{taken}_"));
        }
    }
}
