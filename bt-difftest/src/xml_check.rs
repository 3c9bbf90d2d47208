//! Checks a tree's BehaviorTree.CPP XML, parsed with a real XML parser
//! (`roxmltree`), against BT.CPP 4's rules and against the tree's node
//! table, node for node. The rules are written here from BT.CPP's
//! documentation, not taken from the exporter.

use bt::NodeKind;
use bt::view::TreeView as View;

/// A tree's view, as the macro writes it.
type TreeView = View<'static>;
use roxmltree::{Document, Node};
use std::collections::{BTreeMap, BTreeSet};

/// BT.CPP's name and ports for our kinds that are its built-ins.
fn builtin(kind: NodeKind) -> Option<(&'static str, &'static [&'static str])> {
    use NodeKind as K;
    Some(match kind {
        K::Sequence => ("Sequence", &[]),
        K::AsyncSequence => ("AsyncSequence", &[]),
        K::AsyncSelect => ("AsyncFallback", &[]),
        K::TryCatch => ("TryCatch", &[]),
        K::SequenceWithMemory => ("SequenceWithMemory", &[]),
        K::ReactiveSequence => ("ReactiveSequence", &[]),
        K::Select => ("Fallback", &[]),
        K::ReactiveSelect => ("ReactiveFallback", &[]),
        K::IfThenElse => ("IfThenElse", &[]),
        K::WhileDoElse => ("WhileDoElse", &[]),
        K::Parallel => ("Parallel", &["success_count", "failure_count"]),
        K::ParallelAll => ("ParallelAll", &["max_failures"]),
        K::Invert => ("Inverter", &[]),
        K::ForceSuccess => ("ForceSuccess", &[]),
        K::ForceFailure => ("ForceFailure", &[]),
        K::KeepRunningUntilFailure => ("KeepRunningUntilFailure", &[]),
        K::Repeat => ("Repeat", &["num_cycles"]),
        K::Retry => ("RetryUntilSuccessful", &["num_attempts"]),
        K::Timeout => ("Timeout", &["msec"]),
        K::Delay => ("Delay", &["delay_msec"]),
        K::Wait => ("Sleep", &["msec"]),
        K::RunOnce => ("RunOnce", &["then_skip"]),
        K::Precondition => ("Precondition", &["if", "else"]),
        K::Subtree => ("SubTree", &[]),
        K::Success => ("AlwaysSuccess", &[]),
        K::Failure => ("AlwaysFailure", &[]),
        _ => return None,
    })
}

/// The `<TreeNodesModel>` category our other kinds are declared in:
/// groups are controls even with one child; BT.CPP decorators have exactly
/// one.
fn category(kind: NodeKind, children: usize) -> &'static str {
    use NodeKind as K;
    match (kind, children) {
        (K::Cond | K::Monitor, _) => "Condition",
        (
            K::Prioritized
            | K::Sequential
            | K::Random
            | K::Shuffle
            | K::Scored
            | K::Switch
            | K::SwitchEq,
            _,
        ) => "Control",
        (_, 0) => "Action",
        _ => "Decorator",
    }
}

/// BT.CPP's rule for model names (`docs/name_validation_rules.md`).
fn valid_model_name(name: &str) -> bool {
    !name.is_empty()
        && name != "Root"
        && !name
            .chars()
            .any(|c| c.is_whitespace() || "<>&\"'/\\:*?|.".contains(c))
}

fn elements<'a, 'i>(node: Node<'a, 'i>) -> impl Iterator<Item = Node<'a, 'i>> {
    node.children().filter(Node::is_element)
}

/// Every tree of `view`'s closure, by name.
fn closure(view: &'static TreeView, out: &mut BTreeMap<&'static str, &'static TreeView>) {
    out.insert(view.name, view);
    for sub in view.subtrees {
        closure(sub.view, out);
    }
}

/// Checks the definition form `definition` and the instance form
/// `instance` of the tree whose view is `view`.
pub fn check(view: &'static TreeView, definition: &str, instance: &str) -> Result<(), String> {
    let mut trees = BTreeMap::new();
    closure(view, &mut trees);
    let models = check_definition(view, &trees, definition)?;
    check_instance(view, &trees, instance, &models)
}

fn root<'a, 'i>(doc: &'a Document<'i>, view: &TreeView) -> Result<Node<'a, 'i>, String> {
    let root = doc.root_element();
    if root.tag_name().name() != "root" {
        return Err(format!("the root element is <{}>", root.tag_name().name()));
    }
    if root.attribute("BTCPP_format") != Some("4") {
        return Err("no BTCPP_format=\"4\"".into());
    }
    if root.attribute("main_tree_to_execute") != Some(view.name) {
        return Err("main_tree_to_execute is not the tree".into());
    }
    Ok(root)
}

/// The declared models, by ID: their category.
fn check_definition(
    view: &'static TreeView,
    trees: &BTreeMap<&'static str, &'static TreeView>,
    definition: &str,
) -> Result<BTreeMap<String, String>, String> {
    let doc = Document::parse(definition).map_err(|e| format!("not XML: {e}"))?;
    let root = root(&doc, view)?;
    let mut blocks = BTreeSet::new();
    let mut models: BTreeMap<String, String> = BTreeMap::new();
    let mut used: BTreeMap<String, String> = BTreeMap::new();
    let children: Vec<Node> = elements(root).collect();
    let (last, blocks_nodes) = children.split_last().ok_or("an empty file")?;
    if last.tag_name().name() != "TreeNodesModel" {
        return Err("the last element is not the one <TreeNodesModel>".into());
    }
    for model in elements(*last) {
        let id = model.attribute("ID").ok_or("a model without ID")?;
        if !valid_model_name(id) {
            return Err(format!("model name `{id}` breaks BT.CPP's naming rules"));
        }
        let tag = model.tag_name().name();
        if !["Action", "Condition", "Control", "Decorator"].contains(&tag) {
            return Err(format!("model <{tag}>"));
        }
        if models.insert(id.to_owned(), tag.to_owned()).is_some() {
            return Err(format!("model `{id}` declared twice"));
        }
    }
    for block in blocks_nodes {
        if block.tag_name().name() != "BehaviorTree" {
            return Err(format!("<{}> among the trees", block.tag_name().name()));
        }
        let id = block.attribute("ID").ok_or("a tree without ID")?;
        let tree = trees
            .get(id)
            .ok_or_else(|| format!("tree `{id}` is not in the closure"))?;
        if !blocks.insert(id) {
            return Err(format!("tree `{id}` written twice"));
        }
        let mut body = elements(*block);
        let (Some(top), None) = (body.next(), body.next()) else {
            return Err(format!("tree `{id}` does not have exactly one root node"));
        };
        let mut next = 0;
        check_node(tree, top, &mut next, &mut used)?;
        if next != tree.nodes.len() {
            return Err(format!(
                "tree `{id}`: {next} elements for {} nodes",
                tree.nodes.len()
            ));
        }
    }
    if blocks.len() != trees.len() {
        return Err(format!("{} trees written of {}", blocks.len(), trees.len()));
    }
    if used != models {
        return Err(format!("models used {used:?}, declared {models:?}"));
    }
    Ok(models)
}

/// Checks element `el` against node `*next` of `tree` and its subtree
/// against the following nodes (pre-order).
fn check_node(
    tree: &TreeView,
    el: Node,
    next: &mut usize,
    used: &mut BTreeMap<String, String>,
) -> Result<(), String> {
    let info = tree
        .nodes
        .get(*next)
        .ok_or_else(|| format!("more elements than nodes in `{}`", tree.name))?;
    *next += 1;
    let children = tree
        .nodes
        .iter()
        .filter(|n| n.parent == Some(info.id))
        .count();
    let at = format!("{} node {} ({})", tree.name, info.id, info.detail);
    let tag = el.tag_name().name();
    // A `switch_eq` of 2 to 6 cases is BT.CPP's `Switch2` to `Switch6`.
    const SWITCH_PORTS: [&str; 7] = [
        "variable", "case_1", "case_2", "case_3", "case_4", "case_5", "case_6",
    ];
    let switch = (info.kind == NodeKind::SwitchEq && (3..=7).contains(&children)).then(|| {
        let name: &'static str =
            ["Switch2", "Switch3", "Switch4", "Switch5", "Switch6"][children - 3];
        (name, &SWITCH_PORTS[..children])
    });
    // A `for_each` over a type BT.CPP has a loop for.
    let looped = (info.kind == NodeKind::ForEach && tag.starts_with("Loop"))
        .then_some((tag, &["queue", "if_empty", "value"][..]));
    let ports: &[&str] = match builtin(info.kind).or(switch).or(looped) {
        Some((name, ports)) => {
            if tag != name {
                return Err(format!("{at}: <{tag}>, not <{name}>"));
            }
            ports
        }
        None => {
            if !valid_model_name(tag) {
                return Err(format!("{at}: <{tag}> breaks BT.CPP's naming rules"));
            }
            used.insert(tag.to_owned(), category(info.kind, children).to_owned());
            if el.attribute("_description") != Some(info.detail) {
                return Err(format!("{at}: _description is not the node's source text"));
            }
            &[]
        }
    };
    if el.attribute("name") != info.label {
        return Err(format!(
            "{at}: name {:?} for label {:?}",
            el.attribute("name"),
            info.label
        ));
    }
    if el.attribute("_guard") != info.guard {
        return Err(format!(
            "{at}: _guard {:?} for guard {:?}",
            el.attribute("_guard"),
            info.guard
        ));
    }
    for port in ports {
        if el.attribute(*port).is_none() {
            return Err(format!("{at}: no {port}"));
        }
    }
    for attr in el.attributes() {
        let name = attr.name();
        let allowed = name == "name"
            || name.starts_with('_')
            || ports.contains(&name)
            || (info.kind == NodeKind::Subtree && name == "ID");
        if !allowed {
            return Err(format!(
                "{at}: attribute {name} is neither a port nor reserved"
            ));
        }
    }
    if info.kind == NodeKind::Subtree {
        if elements(el).next().is_some() {
            return Err(format!("{at}: a SubTree with children"));
        }
        return Ok(());
    }
    let kids: Vec<Node> = elements(el).collect();
    if kids.len() != children {
        return Err(format!(
            "{at}: {} child elements for {children} children",
            kids.len()
        ));
    }
    for kid in kids {
        check_node(tree, kid, next, used)?;
    }
    Ok(())
}

fn check_instance(
    view: &'static TreeView,
    trees: &BTreeMap<&'static str, &'static TreeView>,
    instance: &str,
    models: &BTreeMap<String, String>,
) -> Result<(), String> {
    let doc = Document::parse(instance).map_err(|e| format!("instance form is not XML: {e}"))?;
    let root = root(&doc, view)?;
    let mut blocks: BTreeMap<&str, Node> = BTreeMap::new();
    for block in elements(root).filter(|b| b.tag_name().name() == "BehaviorTree") {
        let path = block
            .attribute("_fullpath")
            .ok_or("an instance without _fullpath")?;
        if blocks.insert(path, block).is_some() {
            return Err(format!("instance `{path}` written twice"));
        }
    }
    let main = blocks.get("").ok_or("no main instance (_fullpath=\"\")")?;
    if main.attribute("ID") != Some(view.name) {
        return Err("the main instance is not the tree".into());
    }
    // Walk the instances as BT.CPP numbers them: pre-order, each
    // subtree's instance in place of its SubTree node.
    let mut uid = 0;
    walk(*main, "", &blocks, trees, &mut uid)?;
    if uid != view.size {
        return Err(format!("{uid} uids for {} nodes", view.size));
    }
    let mut model_ids = BTreeMap::new();
    for model in elements(root).filter(|b| b.tag_name().name() == "TreeNodesModel") {
        for m in elements(model) {
            model_ids.insert(
                m.attribute("ID").unwrap_or_default().to_owned(),
                m.tag_name().name().to_owned(),
            );
        }
    }
    if &model_ids != models {
        return Err("the instance form declares other models".into());
    }
    Ok(())
}

fn walk(
    block: Node,
    path: &str,
    blocks: &BTreeMap<&str, Node>,
    trees: &BTreeMap<&'static str, &'static TreeView>,
    uid: &mut usize,
) -> Result<(), String> {
    let id = block.attribute("ID").unwrap_or_default();
    if !trees.contains_key(id) {
        return Err(format!("instance of unknown tree `{id}`"));
    }
    for el in block.descendants().filter(Node::is_element).skip(1) {
        *uid += 1;
        let got = el.attribute("_uid").ok_or("a node without _uid")?;
        if got != uid.to_string() {
            return Err(format!(
                "instance `{path}`: _uid {got} where pre-order gives {uid}"
            ));
        }
        if el.tag_name().name() == "SubTree" {
            let sub = el.attribute("ID").ok_or("a SubTree without ID")?;
            let segment = match el.attribute("name") {
                Some(name) => name.to_owned(),
                None => format!("{sub}::{uid}"),
            };
            let full = if path.is_empty() {
                segment
            } else {
                format!("{path}/{segment}")
            };
            if el.attribute("_fullpath") != Some(full.as_str()) {
                return Err(format!(
                    "SubTree _fullpath {:?}, BT.CPP's rule gives {full:?}",
                    el.attribute("_fullpath")
                ));
            }
            let inner = blocks
                .get(full.as_str())
                .ok_or_else(|| format!("no instance block for `{full}`"))?;
            if inner.attribute("ID") != Some(sub) {
                return Err(format!("instance `{full}` is not of `{sub}`"));
            }
            walk(*inner, &full, blocks, trees, uid)?;
        }
    }
    Ok(())
}
