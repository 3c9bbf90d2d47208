//! [`ast`](crate::ast) -> [`ir`](crate::ir): flattens each checked tree into
//! a pre-order node table and computes the state layout facts.

use crate::args::{Value, Values};
use crate::ast::{self, NodeKind};
use crate::check;
use crate::ir::{self, Field, FlagMode, Keep, Kind, Node, Policy, Release, Shape, Tree};
use crate::kinds;
use crate::kinds::Otherwise;
use bt_runtime::Status;
use proc_macro2::Span;
use quote::ToTokens;

/// Lowers one tree that passed [`check`](crate::check). `None` only if the
/// tree holds something `check` should have rejected.
pub fn lower(tree: &ast::TreeDef) -> Option<Tree> {
    let mut nodes = Vec::new();
    push(tree.roots.first()?, None, 0, None, &mut nodes)?;
    let context = check::context_param(&tree.params).map(|p| p.name.clone());
    let activation_times = context.is_some() && tree.activation_times.is_some();
    analyse(&mut nodes, activation_times);
    Some(Tree {
        attrs: tree.attrs.clone(),
        vis: tree.vis.clone(),
        name: tree.name.clone(),
        params: tree.params.clone(),
        krate: tree
            .krate
            .clone()
            .unwrap_or_else(|| syn::parse_quote!(::bt)),
        serde: tree.serde,
        reflect: tree.reflect,
        activation_times,
        agent: tree
            .params
            .first()
            .and_then(|p| check::agent_type(&p.ty))
            .cloned(),
        context,
        shared: check::shared_param(&tree.name, &tree.params).map(|p| p.name.clone()),
        nodes,
    })
}

/// Appends `node` and its subtree in pre-order; returns its id.
/// `rendezvous` is the innermost enclosing rendezvous node.
fn push(
    node: &ast::Node,
    parent: Option<usize>,
    depth: usize,
    rendezvous: Option<usize>,
    nodes: &mut Vec<Node>,
) -> Option<usize> {
    let id = nodes.len();
    let start = node
        .label
        .as_ref()
        .map_or(node.span, |l| l.apostrophe)
        .start();
    let (kind, detail) = match &node.kind {
        NodeKind::Keyword {
            kind,
            ident,
            args,
            values,
            children,
            binding,
            ..
        } => {
            let mut detail = match args {
                Some(a) => format!("{ident}{}", source(a.span, || args_text(a))),
                None => ident.to_string(),
            };
            if let Some(binding) = binding {
                detail = format!("{detail} as {binding}");
            }
            let monitors = nodes
                .iter()
                .filter(|n| matches!(n.kind, Kind::Monitor { .. }))
                .count();
            let requests = nodes
                .iter()
                .filter(|n| matches!(n.kind, Kind::Request { .. }))
                .count();
            let skip = parent.and_then(|p| check::passes_over(nodes[p].row));
            let at = Place {
                children: children.len(),
                skip: skip.map(|success| {
                    if success {
                        Status::Success
                    } else {
                        Status::Failure
                    }
                }),
                binding: binding.as_ref(),
                rendezvous,
                monitors,
                requests,
            };
            (keyword_kind(*kind, values, at)?, detail)
        }
        NodeKind::Cond(e) => (Kind::Cond(e.clone()), format!("cond {}", expr_text(e))),
        NodeKind::Action(e) => (Kind::Action(e.clone()), format!("action {}", expr_text(e))),
        NodeKind::Instant(e) => (
            Kind::Instant(e.clone()),
            format!("instant {}", expr_text(e)),
        ),
        NodeKind::Leaf { path, literal } => (
            Kind::Leaf {
                path: path.clone(),
                literal: literal.clone(),
            },
            expr_text(literal),
        ),
        NodeKind::Subtree {
            path,
            args,
            paren,
            call,
        } => (
            Kind::Subtree {
                path: path.clone(),
                args: args.clone(),
                paren: *paren,
            },
            expr_text(call),
        ),
    };
    nodes.push(Node {
        id,
        row: node.kind(),
        parent,
        depth,
        children: Vec::new(),
        kind,
        label: node.label.as_ref().map(|l| l.ident.to_string()),
        line: u32::try_from(start.line).unwrap_or(u32::MAX),
        column: u32::try_from(start.column + 1).unwrap_or(u32::MAX),
        detail,
        guard: node.guard.as_ref().map(guard),
        arm: node.arm.as_deref().cloned(),
        can_run: false,
        has_state: false,
        shape: Shape::None,
        keep: Vec::new(),
    });
    let inner = if let Kind::Rendezvous { .. } = nodes[id].kind {
        Some(id)
    } else {
        rendezvous
    };
    for child in node.children() {
        let child_id = push(child, Some(id), depth + 1, inner, nodes)?;
        nodes[id].children.push(child_id);
    }
    Some(id)
}

/// What a keyword node's IR kind depends on besides its arguments.
struct Place<'a> {
    children: usize,
    /// The status the parent passes over (Success under a sequence,
    /// Failure under a select), if it has such a parent.
    skip: Option<Status>,
    binding: Option<&'a syn::Ident>,
    /// The innermost enclosing rendezvous.
    rendezvous: Option<usize>,
    /// Monitors before this node in the tree.
    monitors: usize,
    /// Request nodes before this node in the tree.
    requests: usize,
}

/// The IR kind of a keyword node, from its typed arguments. `None` when a
/// required argument is missing (reported while parsing).
fn keyword_kind(kind: kinds::Kind, values: &Values, at: Place) -> Option<Kind> {
    use kinds::Kind as K;
    let decider = |policy| Kind::Decider {
        policy,
        rng: values.expr("rng").cloned(),
        redecides: values.count("redecides"),
    };
    let seconds = || values.seconds("seconds").cloned();
    Some(match kind {
        K::Sequence => Kind::Sequence,
        K::SequenceWithMemory => Kind::SequenceWithMemory,
        K::IfThenElse => Kind::IfThenElse,
        K::WhileDoElse => Kind::WhileDoElse,
        K::ReactiveSequence => Kind::ReactiveSequence,
        K::Select => Kind::Select,
        K::ReactiveSelect => Kind::ReactiveSelect,
        K::AsyncSequence => Kind::AsyncSequence,
        K::AsyncSelect => Kind::AsyncSelect,
        K::TryCatch => Kind::TryCatch,
        K::Parallel => {
            let n = u32::try_from(at.children).ok()?;
            let threshold = |key| match values.threshold(key) {
                Some(given) => check::resolve_threshold(given, at.children),
                None => Some(if key == "success" { n } else { 1 }),
            };
            let success = threshold("success")?;
            // Success becomes impossible once more than `n - success` failed.
            let failure = threshold("failure")?.min(n - success + 1);
            Kind::Parallel { success, failure }
        }
        K::ParallelAll => Kind::ParallelAll {
            max_failures: match values.threshold("max_failures") {
                Some(given) => check::resolve_threshold(given, at.children)?,
                None => 1,
            },
        },
        K::Invert => Kind::Invert,
        K::ForceSuccess => Kind::ForceSuccess,
        K::ForceFailure => Kind::ForceFailure,
        K::KeepRunningUntilFailure => Kind::KeepRunningUntilFailure,
        K::Repeat => Kind::Repeat(values.bound("count")?),
        K::Retry => Kind::Retry(values.bound("count")?),
        K::Prioritized => decider(Policy::Prioritized),
        K::Sequential => decider(Policy::Sequential),
        K::Random => decider(Policy::Random),
        K::Shuffle => decider(Policy::Shuffle),
        K::Scored => decider(Policy::Scored),
        K::Scope => Kind::Scope {
            enter: values.expr("enter").cloned(),
            tick: values.expr("tick").cloned(),
            exit: values.expr("exit").cloned(),
        },
        K::Wait => Kind::Wait(seconds()?),
        K::Timeout => Kind::Timeout(seconds()?),
        K::Delay => Kind::Delay(seconds()?),
        K::Cooldown => Kind::Cooldown(seconds()?),
        K::RunOnce => Kind::RunOnce {
            skip: match values.flag("then_skip") {
                Some(true) => Some(at.skip?),
                _ => None,
            },
        },
        K::Every => Kind::Every(seconds()?),
        K::After => Kind::After {
            success: values.expr("success").cloned(),
            failure: values.expr("failure").cloned(),
            finished: values.expr("finished").cloned(),
            halted: values.expr("halted").cloned(),
        },
        K::SkipIf => Kind::Precondition {
            expr: values.expr("expression")?.clone(),
            then: at.skip?,
            when: true,
            skips: true,
        },
        K::SuccessIf => Kind::Precondition {
            expr: values.expr("expression")?.clone(),
            then: Status::Success,
            when: true,
            skips: false,
        },
        K::FailureIf => Kind::Precondition {
            expr: values.expr("expression")?.clone(),
            then: Status::Failure,
            when: true,
            skips: false,
        },
        K::ForEach => {
            let if_empty = values.otherwise("if_empty").unwrap_or(Otherwise::Success);
            Kind::ForEach {
                item: values.item("item")?.clone(),
                then: match if_empty {
                    Otherwise::Success => Status::Success,
                    Otherwise::Failure => Status::Failure,
                    Otherwise::Running => Status::Running,
                    Otherwise::Skip => at.skip?,
                },
                skips: if_empty == Otherwise::Skip,
            }
        }
        K::Precondition => {
            let otherwise = values.otherwise("otherwise").unwrap_or(Otherwise::Failure);
            Kind::Precondition {
                expr: values.expr("condition")?.clone(),
                then: match otherwise {
                    Otherwise::Success => Status::Success,
                    Otherwise::Failure => Status::Failure,
                    Otherwise::Running => Status::Running,
                    Otherwise::Skip => at.skip?,
                },
                when: false,
                skips: otherwise == Otherwise::Skip,
            }
        }
        K::RunWhile => Kind::RunWhile {
            expr: values.expr("expression")?.clone(),
            skip: at.skip?,
        },
        K::Gate => Kind::Gate(values.count("capacity")?),
        K::GlobalCooldown => Kind::GlobalCooldown(seconds()?),
        K::Rendezvous => Kind::Rendezvous {
            n: values.count("members")?,
            role: at.binding?.clone(),
        },
        K::Sync => Kind::Sync {
            rendezvous: at.rendezvous?,
        },
        K::Monitor => Kind::Monitor {
            expr: values.expr("expression")?.clone(),
            index: at.monitors,
        },
        K::Switch | K::SwitchEq => Kind::Switch(values.expr("expression")?.clone()),
        K::Request => Kind::Request {
            stream: match values.expr("stream")? {
                syn::Expr::Path(p) => p.path.get_ident()?.clone(),
                _ => return None,
            },
            request: values.expr("request")?.clone(),
            slot: u32::try_from(at.requests).ok()?,
        },
        K::Success => Kind::Constant(Status::Success),
        K::Failure => Kind::Constant(Status::Failure),
        K::Running => Kind::Constant(Status::Running),
        K::Cond | K::Action | K::Instant | K::Leaf | K::Subtree => return None,
    })
}

fn guard(guard: &ast::Guard) -> ir::Guard {
    let mut clauses = Vec::new();
    for clause in &guard.clauses {
        let text = tokens_text(clause.tokens.clone());
        let mut push = |kind| {
            clauses.push(ir::Clause {
                kind,
                text: text.clone(),
            })
        };
        match &clause.kind {
            ast::ClauseKind::When(e) => push(ir::ClauseKind::When(e.clone())),
            ast::ClauseKind::WhenLet { pat, ty, expr } => {
                if let Some(ty) = ty {
                    push(ir::ClauseKind::WhenLet {
                        pat: (**pat).clone(),
                        ty: (**ty).clone(),
                        expr: expr.clone(),
                    });
                }
            }
            ast::ClauseKind::Score(e) => push(ir::ClauseKind::Score(e.clone())),
            ast::ClauseKind::Every(values) => {
                if let Some(seconds) = values.seconds("seconds") {
                    push(ir::ClauseKind::Every(seconds.clone()));
                }
            }
            ast::ClauseKind::Flags { stimuli, values } => {
                for (name, value) in values.given() {
                    let mode = match name {
                        "all" => FlagMode::All,
                        "none" => FlagMode::None,
                        _ => FlagMode::Any,
                    };
                    if let Value::Expr(expr) = value {
                        push(ir::ClauseKind::Flags {
                            stimuli: *stimuli,
                            mode,
                            expr: expr.clone(),
                        });
                    }
                }
            }
        }
    }
    let text = if guard.clauses.is_empty() {
        "else".to_string()
    } else {
        tokens_text(guard.tokens.clone())
    };
    ir::Guard { clauses, text }
}

/// Bottom-up: children have larger ids than their parent, so a reverse
/// sweep sees every child before its parent. `times`: the tree records
/// activation times (`#[bt(activation_times)]` with a tick context).
fn analyse(nodes: &mut [Node], times: bool) {
    for id in (0..nodes.len()).rev() {
        let any_child_runs = nodes[id].children.iter().any(|&c| nodes[c].can_run);
        let only_child_state = nodes[id]
            .children
            .first()
            .is_some_and(|&c| nodes[c].has_state);
        let (can_run, has_state) = match &nodes[id].kind {
            Kind::Cond(_)
            | Kind::Instant(_)
            | Kind::Constant(Status::Success | Status::Failure) => (false, false),
            Kind::Action(_) | Kind::Constant(Status::Running) => (true, false),
            Kind::Leaf { .. } | Kind::Subtree { .. } => (true, true),
            Kind::Invert
            | Kind::ForceSuccess
            | Kind::ForceFailure
            | Kind::Cooldown(_)
            | Kind::RunOnce { .. } => (any_child_runs, only_child_state),
            // Success is reported as Running: it always runs.
            Kind::KeepRunningUntilFailure => (true, only_child_state),
            // Returns Running between runs, and remembers whether its
            // child is in the middle of one.
            Kind::Repeat(None) | Kind::Retry(None) => (true, true),
            // Returns `Running` between items, and holds the item.
            Kind::ForEach { .. } => (true, true),
            Kind::Wait(_)
            | Kind::Delay(_)
            | Kind::Rendezvous { .. }
            | Kind::Sync { .. }
            | Kind::Request { .. } => (true, true),
            Kind::Monitor { .. } => (false, false),
            // Returns `Running` between children, and remembers which is
            // next.
            Kind::AsyncSequence | Kind::AsyncSelect if nodes[id].children.len() > 1 => (true, true),
            // Returns `Running` instead of starting the child.
            Kind::Precondition {
                then: Status::Running,
                ..
            } => (true, any_child_runs),
            // Composites, deciders, branches and latched decorators: they
            // run while a child runs, and remember which (or that they
            // entered).
            Kind::Sequence
            | Kind::SequenceWithMemory
            | Kind::ReactiveSequence
            | Kind::Select
            | Kind::ReactiveSelect
            | Kind::IfThenElse
            | Kind::WhileDoElse
            | Kind::Parallel { .. }
            | Kind::ParallelAll { .. }
            | Kind::Repeat(Some(_))
            | Kind::Retry(Some(_))
            | Kind::Decider { .. }
            | Kind::Scope { .. }
            | Kind::Timeout(_)
            | Kind::Every(_)
            | Kind::After { .. }
            | Kind::Precondition { .. }
            | Kind::RunWhile { .. }
            | Kind::Gate(_)
            | Kind::GlobalCooldown(_)
            | Kind::AsyncSequence
            | Kind::AsyncSelect
            | Kind::TryCatch
            | Kind::Switch(_) => (any_child_runs, any_child_runs),
        };
        nodes[id].can_run = can_run;
        nodes[id].has_state = has_state;
        nodes[id].shape = shape(&nodes[id], only_child_state, times);
        nodes[id].keep = keep(&nodes[id]);
    }
    // A stateful leaf under a sequence or select lives in its parent's
    // variant, which says by itself that the leaf runs. So does a node that
    // runs exactly when such a leaf below it runs: an `invert`,
    // `force_success` or `force_failure` over it, or a small sequence or
    // select whose only child that can run leads to it. Such a node keeps
    // nothing but the leaf's memory: no enum or `Option` of its own, no
    // second tag to test on resume.
    let sizes = ir::subtree_sizes(nodes);
    // Bottom-up: the leaf whose memory would be all of a node's state.
    let mut leaf_below: Vec<Option<usize>> = vec![None; nodes.len()];
    for id in (0..nodes.len()).rev() {
        let node = &nodes[id];
        leaf_below[id] = match node.kind {
            Kind::Leaf { .. } => Some(id),
            Kind::Invert | Kind::ForceSuccess | Kind::ForceFailure => leaf_below[node.children[0]],
            Kind::Sequence | Kind::Select | Kind::ReactiveSequence | Kind::ReactiveSelect
                if sizes[id] <= COLLAPSE_NODES =>
            {
                let mut running = node.children.iter().filter(|&&c| nodes[c].can_run);
                match (running.next(), running.next()) {
                    (Some(&c), None) => leaf_below[c],
                    _ => None,
                }
            }
            _ => None,
        };
    }
    // Top-down: parents first.
    for id in 1..nodes.len() {
        let parent = nodes[id].parent.expect("only the root has no parent");
        let held = match nodes[parent].shape {
            Shape::LeafOf(_) => nodes[id].can_run,
            _ => holds_leaf_memory(&nodes[parent].kind),
        };
        match leaf_below[id] {
            Some(leaf) if held && leaf == id => nodes[id].shape = Shape::Memory,
            Some(leaf) if held => nodes[id].shape = Shape::LeafOf(leaf),
            _ => continue,
        }
        // A parallel says which of its children hold a running leaf's
        // memory with one bit each.
        if let Shape::Record(fields) = &mut nodes[parent].shape {
            for field in fields {
                if let Field::Masks { running, .. } = field {
                    *running = true;
                }
            }
        }
    }
    tag_shared_memory(nodes, &sizes);
}

/// A sequence or select that is a child of a parallel, and whose children
/// that keep state are all memories of one leaf type, stores which child
/// runs apart from that memory ([`Shape::Tagged`]), in two fields of the
/// parallel's record. Its subtree is small ([`TAG_NODES`]), so that none
/// of its code is outlined into a function that would take its state.
fn tag_shared_memory(nodes: &mut [Node], sizes: &[usize]) {
    for id in 1..nodes.len() {
        let node = &nodes[id];
        let parent = node.parent.expect("only the root has no parent");
        let fits = node.shape == Shape::OneOf
            && sizes[id] <= TAG_NODES
            && matches!(
                node.kind,
                Kind::Sequence | Kind::Select | Kind::ReactiveSequence | Kind::ReactiveSelect
            )
            && matches!(
                nodes[parent].kind,
                Kind::Parallel { .. } | Kind::ParallelAll { .. }
            );
        if !fits {
            continue;
        }
        let leaves: Option<Vec<usize>> = node
            .children
            .iter()
            .filter(|&&c| nodes[c].has_state)
            .map(|&c| match nodes[c].shape {
                Shape::Memory => Some(c),
                Shape::LeafOf(leaf) => Some(leaf),
                _ => None,
            })
            .collect();
        let path = |leaf: usize| match &nodes[leaf].kind {
            Kind::Leaf { path, .. } => path.to_token_stream().to_string(),
            _ => unreachable!("a memory is a leaf's"),
        };
        if let Some(&first) = leaves.as_ref().and_then(|l| l.first())
            && leaves.iter().flatten().all(|&l| path(l) == path(first))
        {
            nodes[id].shape = Shape::Tagged(first);
        }
    }
}

/// Nodes (itself included) of the largest sequence or select whose state
/// is a tag beside one memory ([`Shape::Tagged`]): below the size at which
/// code generation outlines a node (asserted there), and so also at most as
/// many children as one function of a wide composite runs.
pub(crate) const TAG_NODES: usize = 32;

/// Nodes (itself included) of the largest sequence or select that becomes
/// its leaf's memory ([`Shape::LeafOf`]): small enough that its code is
/// never outlined into a function of its own.
const COLLAPSE_NODES: usize = 16;

/// Whether a node of this kind holds a child that is a stateful leaf's
/// memory without an `Option`: a sequence or select in a variant of its own
/// enum that exists only while that child runs, a parallel in a field with
/// a running bit.
fn holds_leaf_memory(kind: &Kind) -> bool {
    matches!(
        kind,
        Kind::Sequence
            | Kind::SequenceWithMemory
            | Kind::Select
            | Kind::ReactiveSequence
            | Kind::ReactiveSelect
            | Kind::Parallel { .. }
            | Kind::ParallelAll { .. }
    )
}

/// The state layout of `node`, whose `has_state` is known.
/// `child_state`: its first child has state.
fn shape(node: &Node, child_state: bool, times: bool) -> Shape {
    // The fields, then the only child's state if it has one.
    let record = |fields: &[Field]| {
        let child = child_state.then_some(Field::Child);
        Shape::Record(fields.iter().copied().chain(child).collect())
    };
    let latch = |release, since: bool| {
        let latch = Field::Latch(release);
        if since {
            record(&[latch, Field::Since])
        } else {
            record(&[latch])
        }
    };
    match &node.kind {
        Kind::Leaf { .. } => Shape::Leaf,
        Kind::Subtree { .. } => Shape::Subtree,
        Kind::Wait(_) => Shape::Wait,
        Kind::Request { .. } => Shape::Ticket,
        Kind::Sync { .. } => Shape::Arrived,
        // Within a tick these use their record as scratch space.
        // Which children run is decided after the shapes below are known
        // (see `analyse`).
        Kind::Parallel { failure, .. } => Shape::Record(vec![
            Field::Masks {
                failed: *failure > 1,
                running: false,
            },
            Field::Children,
        ]),
        Kind::ParallelAll { .. } => Shape::Record(vec![
            Field::Masks {
                failed: true,
                running: false,
            },
            Field::Children,
        ]),
        Kind::Repeat(Some(n)) | Kind::Retry(Some(n)) => record(&[Field::Count(*n)]),
        Kind::Repeat(None) | Kind::Retry(None) => {
            record(&[Field::Latch(Release::Nothing), Field::Running])
        }
        Kind::Delay(_) => record(&[Field::Latch(Release::Nothing), Field::Since, Field::Passed]),
        Kind::ForEach { .. } => record(&[Field::Latch(Release::Nothing), Field::Item]),
        Kind::Rendezvous { .. } => record(&[Field::Member]),
        // Even without state: what runs below them is their child.
        Kind::Invert
        | Kind::ForceSuccess
        | Kind::ForceFailure
        | Kind::KeepRunningUntilFailure
        | Kind::Cooldown(_)
        | Kind::RunOnce { .. } => Shape::Child,
        _ if !node.has_state => Shape::None,
        Kind::Sequence
        | Kind::SequenceWithMemory
        | Kind::IfThenElse
        | Kind::WhileDoElse
        | Kind::ReactiveSequence
        | Kind::Select
        | Kind::ReactiveSelect
        | Kind::AsyncSequence
        | Kind::AsyncSelect
        | Kind::TryCatch
        | Kind::Switch(_) => Shape::OneOf,
        Kind::Decider { .. } => Shape::Decider,
        Kind::Scope { .. } => latch(node.kind.release(), times),
        Kind::Timeout(_) => latch(node.kind.release(), true),
        Kind::Gate(_)
        | Kind::GlobalCooldown(_)
        | Kind::Every(_)
        | Kind::After { .. }
        | Kind::Precondition { .. }
        | Kind::RunWhile { .. } => latch(node.kind.release(), false),
        Kind::Cond(_)
        | Kind::Action(_)
        | Kind::Instant(_)
        | Kind::Constant(_)
        | Kind::Monitor { .. } => Shape::None,
    }
}

/// What `node` remembers across activations.
fn keep(node: &Node) -> Vec<Keep> {
    let own = match &node.kind {
        Kind::Cooldown(_) => Some(Keep::Ready),
        Kind::RunOnce { .. } => Some(Keep::Once),
        Kind::Every(_) => Some(Keep::Period),
        Kind::SequenceWithMemory => Some(Keep::Next),
        Kind::Decider {
            policy: Policy::Sequential,
            ..
        } => Some(Keep::Next),
        Kind::Decider {
            policy: Policy::Shuffle,
            ..
        } => Some(Keep::Used),
        Kind::Subtree { .. } => Some(Keep::Subtree),
        Kind::Request { .. } => Some(Keep::Answer),
        Kind::Decider {
            policy: Policy::Prioritized | Policy::Random | Policy::Scored,
            ..
        }
        | Kind::Sequence
        | Kind::ReactiveSequence
        | Kind::Select
        | Kind::AsyncSequence
        | Kind::AsyncSelect
        | Kind::TryCatch
        | Kind::ReactiveSelect
        | Kind::IfThenElse
        | Kind::WhileDoElse
        | Kind::Parallel { .. }
        | Kind::ParallelAll { .. }
        | Kind::Invert
        | Kind::ForceSuccess
        | Kind::ForceFailure
        | Kind::KeepRunningUntilFailure
        | Kind::Repeat(_)
        | Kind::Retry(_)
        | Kind::ForEach { .. }
        | Kind::Scope { .. }
        | Kind::Wait(_)
        | Kind::Timeout(_)
        | Kind::Delay(_)
        | Kind::After { .. }
        | Kind::Precondition { .. }
        | Kind::RunWhile { .. }
        | Kind::Gate(_)
        | Kind::GlobalCooldown(_)
        | Kind::Rendezvous { .. }
        | Kind::Sync { .. }
        | Kind::Monitor { .. }
        | Kind::Switch(_)
        | Kind::Cond(_)
        | Kind::Action(_)
        | Kind::Instant(_)
        | Kind::Constant(_)
        | Kind::Leaf { .. } => None,
    };
    let every = node
        .guard
        .as_ref()
        .and_then(|g| g.has_every())
        .map(|_| Keep::Every);
    own.into_iter().chain(every).collect()
}

/// The user's own text where the compiler can give it, else the tokens.
fn source(span: Span, fallback: impl FnOnce() -> String) -> String {
    span.source_text().unwrap_or_else(fallback)
}

/// The user's text of an expression. Spans of whole expressions are not
/// available to stable proc macros, so the text is rebuilt from its tokens,
/// with a space wherever the source had a gap between two tokens.
fn expr_text(expr: &syn::Expr) -> String {
    tokens_text(expr.to_token_stream())
}

/// The user's text of a token sequence, as for [`expr_text`].
fn tokens_text(stream: proc_macro2::TokenStream) -> String {
    let mut tokens = Vec::new();
    flatten(stream, &mut tokens);
    let mut text = String::new();
    let mut last_end = None;
    for (token, start, end) in tokens {
        if last_end.is_some_and(|e: proc_macro2::LineColumn| e != start) {
            text.push(' ');
        }
        text.push_str(&token);
        last_end = Some(end);
    }
    text
}

/// Tokens as (text, start, end), delimiters included.
fn flatten(
    tokens: proc_macro2::TokenStream,
    out: &mut Vec<(String, proc_macro2::LineColumn, proc_macro2::LineColumn)>,
) {
    use proc_macro2::{Delimiter, TokenTree};
    for tt in tokens {
        match tt {
            TokenTree::Group(g) => {
                let (open, close) = match g.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Brace => ("{", "}"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::None => ("", ""),
                };
                // A delimiter is one character wide.
                let one_char = |span: Span| {
                    let start = span.start();
                    (
                        start,
                        proc_macro2::LineColumn {
                            line: start.line,
                            column: start.column + 1,
                        },
                    )
                };
                // syn re-creates groups with one span for the whole group, so
                // the closing delimiter is found from where the group ends.
                let end = g.span().end();
                let close_at = proc_macro2::LineColumn {
                    line: end.line,
                    column: end.column.saturating_sub(1),
                };
                let (o_start, o_end) = one_char(g.span_open());
                let (c_start, c_end) = (close_at, end);
                if !open.is_empty() {
                    out.push((open.to_string(), o_start, o_end));
                }
                flatten(g.stream(), out);
                if !close.is_empty() {
                    out.push((close.to_string(), c_start, c_end));
                }
            }
            other => {
                // Compilers report only where a token starts; it ends one
                // column per character later (multi-line literals aside).
                let (text, start) = (other.to_string(), other.span().start());
                let end = proc_macro2::LineColumn {
                    line: start.line,
                    column: start.column + text.chars().count(),
                };
                out.push((text, start, end));
            }
        }
    }
}

fn args_text(args: &ast::Args) -> String {
    let items: Vec<String> = args
        .items
        .iter()
        .map(|a| match (&a.name, &a.binds) {
            (Some(name), _) => format!("{name} = {}", a.value.to_token_stream()),
            (None, Some((name, ty))) => format!(
                "{name}: {} = {}",
                ty.to_token_stream(),
                a.value.to_token_stream()
            ),
            (None, None) => a.value.to_token_stream().to_string(),
        })
        .collect();
    format!("({})", items.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::errors::Errors;
    use proc_macro2::TokenStream;
    use quote::quote;

    fn lower_one(tokens: TokenStream) -> Tree {
        let mut errors = Errors::default();
        let input = crate::parse::parse(tokens, &mut errors);
        check::check(&input, &mut errors);
        assert!(errors.is_empty(), "{:?}", errors.messages());
        lower(&input.trees[0]).expect("a checked tree lowers")
    }

    #[test]
    fn pre_order_ids_parents_and_depths() {
        // Parsed from text, so tokens carry real positions.
        let tree = lower_one(
            "tree T(a: &mut A) { select { sequence { cond a.x(), action a.y() }, success } }"
                .parse()
                .unwrap(),
        );
        let shape: Vec<(usize, Option<usize>, usize)> = tree
            .nodes
            .iter()
            .map(|n| (n.id, n.parent, n.depth))
            .collect();
        assert_eq!(
            shape,
            [
                (0, None, 0),
                (1, Some(0), 1),
                (2, Some(1), 2),
                (3, Some(1), 2),
                (4, Some(0), 1)
            ]
        );
        assert_eq!(tree.nodes[0].children, [1, 4]);
        assert_eq!(tree.nodes[2].detail, "cond a.x()");
    }

    #[test]
    fn state_facts() {
        let tree = lower_one(quote! {
            tree T(a: &mut A) {
                sequence {
                    sequence { cond a.x(), success },
                    invert { action a.y() },
                    invert { Walk },
                    repeat(2) { cond a.z() },
                    parallel { cond a.x(), cond a.y() },
                }
            }
        });
        let facts: Vec<(bool, bool)> = tree
            .nodes
            .iter()
            .map(|n| (n.can_run, n.has_state))
            .collect();
        assert_eq!(
            facts,
            [
                (true, true),   // sequence: remembers its running child
                (false, false), // sequence of instant children
                (false, false),
                (false, false),
                (true, false), // invert over an action: runs, no memory
                (true, false),
                (true, true), // invert over a leaf: the leaf's memory
                (true, true),
                (false, false), // repeat over a cond: finishes within a tick
                (false, false),
                (false, false), // parallel of conds
                (false, false),
                (false, false),
            ]
        );
        assert!(tree.has_named_type(8) && tree.has_named_type(10) && !tree.has_named_type(1));
    }

    #[test]
    fn nodes_held_as_their_leafs_memory() {
        let tree = lower_one(quote! {
            tree T(a: &mut A) {
                select {
                    sequence { cond a.x(), Walk },
                    reactive_sequence { cond a.x(), force_success { invert { Walk } } },
                    sequence { cond a.y(), select { cond a.z(), Walk } },
                    sequence { Walk, Walk },
                    keep_running_until_failure { Walk },
                    parallel(success = 1, failure = 2) {
                        sequence { cond a.x(), Walk },
                        sequence { Walk, Walk },
                    },
                    sequence { cond a.x(), action a.y(), Walk },
                }
            }
        });
        let shapes: Vec<&Shape> = tree.nodes.iter().map(|n| &n.shape).collect();
        assert_eq!(
            shapes,
            [
                &Shape::OneOf,
                // A guarded leaf: the sequence is the leaf's memory.
                &Shape::LeafOf(3),
                &Shape::None,
                &Shape::Memory,
                // Through decorators that map statuses.
                &Shape::LeafOf(8),
                &Shape::None,
                &Shape::LeafOf(8),
                &Shape::LeafOf(8),
                &Shape::Memory,
                // Nested: both are the same memory.
                &Shape::LeafOf(13),
                &Shape::None,
                &Shape::LeafOf(13),
                &Shape::None,
                &Shape::Memory,
                // Two children can run: the sequence has its own enum.
                &Shape::OneOf,
                &Shape::Memory,
                &Shape::Memory,
                // Runs while its leaf does not: not the leaf's memory.
                &Shape::Child,
                &Shape::Leaf,
                // A parallel holds the memory in a field, with a running bit.
                &Shape::Record(vec![
                    Field::Masks {
                        failed: true,
                        running: true,
                    },
                    Field::Children,
                ]),
                &Shape::LeafOf(22),
                &Shape::None,
                &Shape::Memory,
                // Both children run one leaf type: a tag beside one memory.
                &Shape::Tagged(24),
                &Shape::Memory,
                &Shape::Memory,
                // The action can run too.
                &Shape::OneOf,
                &Shape::None,
                &Shape::None,
                &Shape::Memory,
            ]
        );
        // Larger than `COLLAPSE_NODES`: its own enum.
        let conds = (0..COLLAPSE_NODES).map(|_| quote!(cond a.x(),));
        let tree = lower_one(quote! {
            tree T(a: &mut A) { select { sequence { #(#conds)* Walk }, Walk } }
        });
        assert_eq!(tree.nodes[1].shape, Shape::OneOf);
        assert_eq!(tree.nodes[COLLAPSE_NODES + 2].shape, Shape::Memory);
    }

    #[test]
    fn exclusive_memories_of_one_leaf_type_in_a_parallel_share_a_field() {
        let wide = (0..TAG_NODES).map(|_| quote!(cond a.x(),));
        let tree = lower_one(quote! {
            tree T(a: &mut A) {
                parallel(success = 1, failure = 1) {
                    reactive_select {
                        reactive_sequence { cond a.x(), Walk },
                        sequence { cond a.y(), invert { Walk } },
                        action a.z(),
                        Walk,
                    },
                    select { Walk, Run },
                    select { Walk, keep_running_until_failure { Walk } },
                    select { #(#wide)* Walk, Walk },
                    sequence { cond a.x(), action a.y() },
                }
            }
        });
        let shape = |id: usize| &tree.nodes[id].shape;
        // Every running child with state is a `Walk`: the memory is the
        // first of them, and a child without state is a variant alone.
        assert_eq!(shape(1), &Shape::Tagged(4));
        assert_eq!(shape(2), &Shape::LeafOf(4));
        assert_eq!(shape(5), &Shape::LeafOf(8));
        assert_eq!(shape(10), &Shape::Memory);
        // Two leaf types, or a state that is not a leaf's memory: an enum.
        assert_eq!(shape(11), &Shape::OneOf);
        assert_eq!(shape(14), &Shape::OneOf);
        // Larger than `TAG_NODES`: an enum.
        assert_eq!(shape(18), &Shape::OneOf);
        // No child with state: the enum is a tag already.
        let last = tree.nodes[0].children[4];
        assert_eq!(shape(last), &Shape::OneOf);
    }

    #[test]
    fn parallels_keep_the_masks_they_read() {
        let masks = |tree: TokenStream| {
            let tree = lower_one(tree);
            let Shape::Record(fields) = &tree.nodes[0].shape else {
                panic!("a parallel's state is a record")
            };
            fields[0]
        };
        // The first failure ends a parallel with the default threshold: no
        // `failed` mask. A leaf child's memory runs while its bit is set.
        assert_eq!(
            masks(quote!(tree T(a: &mut A) { parallel { sequence { Walk, Walk }, Walk2 } })),
            Field::Masks {
                failed: false,
                running: true,
            }
        );
        assert_eq!(
            masks(
                quote!(tree T(a: &mut A) { parallel(success = 1, failure = 2) { action a.x(), action a.y() } })
            ),
            Field::Masks {
                failed: true,
                running: false,
            }
        );
        // Failures are counted at the end.
        assert_eq!(
            masks(quote!(tree T(a: &mut A) { parallel_all { action a.x(), action a.y() } })),
            Field::Masks {
                failed: true,
                running: false,
            }
        );
    }

    #[test]
    fn state_shapes_and_keep_slots() {
        let tree = lower_one(quote! {
            tree T(a: &mut A, #[context] cx: &Cx, shared: &TShared) {
                sequence {
                    scope(exit = a.leave()) { Walk },
                    timeout(1.0) { action a.y() },
                    gate(2) { Walk },
                    cooldown(1.0) { Walk },
                    repeat(300) { Walk },
                    run_once { cond a.x() },
                }
            }
        });
        let shapes: Vec<&Shape> = tree.nodes.iter().map(|n| &n.shape).collect();
        use Field::*;
        assert_eq!(
            shapes,
            [
                &Shape::OneOf,
                // No activation time without `#[bt(activation_times)]`.
                &Shape::Record(vec![Latch(Release::Exit), Child]),
                &Shape::Leaf,
                // The action has no state: the record has no child field.
                &Shape::Record(vec![Latch(Release::Nothing), Since]),
                &Shape::None,
                &Shape::Record(vec![Latch(Release::Permit), Child]),
                &Shape::Leaf,
                &Shape::Child,
                &Shape::Leaf,
                &Shape::Record(vec![Count(300), Child]),
                &Shape::Leaf,
                // A decorator is its child's state, none here.
                &Shape::Child,
                &Shape::None,
            ]
        );
        assert_eq!(tree.nodes[7].keep, [Keep::Ready]);
        assert_eq!(tree.nodes[11].keep, [Keep::Once]);
        assert!(tree.nodes[0].keep.is_empty());
    }

    #[test]
    fn parallel_failure_threshold_includes_impossible_success() {
        let tree = lower_one(quote! {
            tree T(a: &mut A) { parallel(success = 2, failure = 3) { running, running, running } }
        });
        assert!(matches!(
            tree.nodes[0].kind,
            Kind::Parallel {
                success: 2,
                failure: 2
            }
        ));
        let tree = lower_one(quote! { tree T(a: &mut A) { parallel { running, running } } });
        assert!(matches!(
            tree.nodes[0].kind,
            Kind::Parallel {
                success: 2,
                failure: 1
            }
        ));
    }
}
