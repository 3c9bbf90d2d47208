//! [`ast`](crate::ast) -> [`ir`](crate::ir): flattens each checked tree into
//! a pre-order node table and computes the state layout facts.

use crate::args;
use crate::ast::{self, NodeKind};
use crate::check;
use crate::errors::{Errors, Reported};
use crate::ir::{self, Count, Field, FlagMode, Keep, Kind, Node, Policy, Release, Shape, Tree};
use crate::kinds;
use crate::kinds::{Otherwise, Typed};
use bt_runtime::Status;
use proc_macro2::Span;
use quote::ToTokens;

/// Lowers one tree that passed [`check`](crate::check). Each fact lowering
/// needs (a kind's arguments, where a skipping node sits, a `parallel`'s
/// thresholds...) comes from the rule that checked it, so lowering fails
/// only with that rule's own error, which `check` reported already.
pub fn lower(tree: &ast::TreeDef, errors: &mut Errors) -> Result<Tree, Reported> {
    let mut nodes = Vec::new();
    let root = check::root(tree).map_err(|e| errors.report(e))?;
    let mut lowering = Lowering {
        tree,
        nodes: &mut nodes,
        errors,
        rooms: Vec::new(),
    };
    // Pre-order, without recursion (a tree may nest hundreds deep):
    // children go on the stack last first, so the first child's subtree is
    // numbered before the second child.
    let mut stack = vec![(root, None, 0, None)];
    while let Some((node, parent, depth, rendezvous)) = stack.pop() {
        let id = lowering.push(node, parent, depth, rendezvous)?;
        if let Some(parent) = parent {
            lowering.nodes[parent].children.push(id);
        }
        let inner = if let Kind::Rendezvous { .. } = lowering.nodes[id].kind {
            Some(id)
        } else {
            rendezvous
        };
        for child in node.children().iter().rev() {
            stack.push((child, Some(id), depth + 1, inner));
        }
    }
    lowering.resolve_rooms()?;
    refusals(&mut nodes);
    let context = check::context_param(&tree.params).map(|p| p.name.clone());
    let activation_times = context.is_some() && tree.activation_times.is_some();
    analyse(&mut nodes, activation_times);
    Ok(Tree {
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

struct Lowering<'a> {
    tree: &'a ast::TreeDef,
    nodes: &'a mut Vec<Node>,
    errors: &'a mut Errors,
    /// `room('label)` clauses: the node whose guard holds one, the
    /// clause's index, and the label it asks.
    rooms: Vec<(usize, usize, syn::Lifetime)>,
}

impl Lowering<'_> {
    /// Points each `room('label)` clause at the node of its label.
    fn resolve_rooms(&mut self) -> Result<(), Reported> {
        for (id, index, label) in std::mem::take(&mut self.rooms) {
            let name = label.ident.to_string();
            let target = self.nodes.iter().position(|n| {
                n.label.as_deref() == Some(&name) && matches!(n.kind.entry(), ir::Entry::Refuses)
            });
            let Some(target) = target else {
                let error = check::room_target(self.tree, &label).err();
                let error = error.unwrap_or_else(|| {
                    syn::Error::new(label.span(), "`room` names no gate or global cooldown")
                });
                return Err(self.errors.report(error));
            };
            let text = refusal_text(&self.nodes[target]);
            if let Some(guard) = &mut self.nodes[id].guard
                && let ir::ClauseKind::Room(refusal) = &mut guard.clauses[index].kind
            {
                *refusal = ir::Refusal { node: target, text };
            }
        }
        Ok(())
    }
}

impl Lowering<'_> {
    /// Appends `node` (without its children); returns its id.
    /// `rendezvous` is the innermost enclosing rendezvous node.
    fn push(
        &mut self,
        node: &ast::Node,
        parent: Option<usize>,
        depth: usize,
        rendezvous: Option<usize>,
    ) -> Result<usize, Reported> {
        let id = self.nodes.len();
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
                typed,
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
                let count = |matches: fn(&Kind) -> bool| {
                    let n = self.nodes.iter().filter(|n| matches(&n.kind)).count();
                    u32::try_from(n).unwrap_or(u32::MAX)
                };
                let at = Place {
                    kind: *kind,
                    ident,
                    parent: parent.map(|p| self.nodes[p].row),
                    children: children.len(),
                    binding: binding.as_ref(),
                    rendezvous,
                    monitors: count(|k| matches!(k, Kind::Monitor { .. })),
                    requests: count(|k| matches!(k, Kind::Request { .. })),
                };
                let typed = typed.as_deref().map_err(|reported| *reported)?;
                (self.keyword_kind(typed, at)?, detail)
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
        let guard = match &node.guard {
            Some(g) => Some(self.guard(g)?),
            None => None,
        };
        self.nodes.push(Node {
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
            guard,
            refusals: Vec::new(),
            arm: node.arm.as_deref().cloned(),
            can_run: false,
            has_state: false,
            shape: Shape::None,
            keep: Vec::new(),
        });
        Ok(id)
    }

    /// Reports an error of the rule that checked a fact (so already
    /// reported by `check`).
    fn checked<T>(&mut self, fact: syn::Result<T>) -> Result<T, Reported> {
        fact.map_err(|e| self.errors.report(e))
    }

    /// The IR kind of a keyword node, from its typed arguments and its place.
    fn keyword_kind(&mut self, typed: &Typed, at: Place) -> Result<Kind, Reported> {
        let skip =
            |this: &mut Self| this.checked(check::passed_over_as(at.parent, at.kind, at.ident));
        // What a node that does not run its child returns, as `otherwise`
        // says.
        let status = |this: &mut Self, otherwise| match otherwise {
            Otherwise::Success => Ok(Status::Success),
            Otherwise::Failure => Ok(Status::Failure),
            Otherwise::Running => Ok(Status::Running),
            Otherwise::Skip => skip(this),
        };
        let n = at.children;
        let all = u32::try_from(n).unwrap_or(u32::MAX);
        let what = |key: &str| format!("`{key}` of `{}`", at.kind.keyword());
        let threshold = |this: &mut Self, key: &str, given: &Option<args::Threshold>, default| {
            Ok(match given {
                Some(args::Threshold::Literal(given)) => {
                    Count::Literal(this.checked(check::threshold(at.kind, key, *given, n))?)
                }
                Some(args::Threshold::Named(expr)) => Count::Named {
                    expr: expr.clone(),
                    min: 1,
                    max: all,
                    what: what(key),
                },
                None => Count::Literal(default),
            })
        };
        let count = |given: &args::Count, max: u32, what: String| match given {
            args::Count::Literal(n) => Count::Literal(n.value),
            args::Count::Named(expr) => Count::Named {
                expr: expr.clone(),
                min: 1,
                max,
                what,
            },
        };
        let decider =
            |policy, rng: Option<&syn::Expr>, redecides: &Option<args::Count>, skip_blocked| {
                Kind::Decider {
                    policy,
                    rng: rng.cloned(),
                    redecides: redecides
                        .as_ref()
                        .map(|c| count(c, u32::MAX, what("redecides"))),
                    skip_blocked,
                }
            };
        Ok(match typed {
            Typed::Sequence(_) => Kind::Sequence,
            Typed::SequenceWithMemory(_) => Kind::SequenceWithMemory,
            Typed::IfThenElse(_) => Kind::IfThenElse,
            Typed::WhileDoElse(_) => Kind::WhileDoElse,
            Typed::ReactiveSequence(_) => Kind::ReactiveSequence,
            Typed::Select(_) => Kind::Select,
            Typed::ReactiveSelect(_) => Kind::ReactiveSelect,
            Typed::AsyncSequence(_) => Kind::AsyncSequence,
            Typed::AsyncSelect(_) => Kind::AsyncSelect,
            Typed::TryCatch(_) => Kind::TryCatch,
            Typed::Parallel(p) => {
                let success = threshold(self, "success", &p.success, all)?;
                let failure = threshold(self, "failure", &p.failure, 1)?;
                Kind::Parallel {
                    failure: reachable_failure(success.clone(), failure, all),
                    success,
                }
            }
            Typed::ParallelAll(p) => Kind::ParallelAll {
                max_failures: threshold(self, "max_failures", &p.max_failures, 1)?,
            },
            Typed::Invert(_) => Kind::Invert,
            Typed::ForceSuccess(_) => Kind::ForceSuccess,
            Typed::ForceFailure(_) => Kind::ForceFailure,
            Typed::KeepRunningUntilFailure(_) => Kind::KeepRunningUntilFailure,
            Typed::Repeat(b) => {
                Kind::Repeat(b.count.as_ref().map(|c| count(c, u32::MAX, what("count"))))
            }
            Typed::Retry(b) => {
                Kind::Retry(b.count.as_ref().map(|c| count(c, u32::MAX, what("count"))))
            }
            Typed::Prioritized(d) => {
                decider(Policy::Prioritized, None, &d.redecides, d.skip_blocked)
            }
            Typed::Sequential(d) => decider(Policy::Sequential, None, &d.redecides, d.skip_blocked),
            Typed::Random(d) => decider(Policy::Random, Some(&d.rng), &d.redecides, d.skip_blocked),
            Typed::Shuffle(d) => {
                decider(Policy::Shuffle, Some(&d.rng), &d.redecides, d.skip_blocked)
            }
            Typed::Scored(d) => decider(Policy::Scored, None, &d.redecides, d.skip_blocked),
            Typed::Scope(s) => Kind::Scope {
                enter: s.enter.clone(),
                tick: s.tick.clone(),
                exit: s.exit.clone(),
            },
            Typed::Wait(s) => Kind::Wait(s.seconds.clone()),
            Typed::Timeout(s) => Kind::Timeout(s.seconds.clone()),
            Typed::Delay(s) => Kind::Delay(s.seconds.clone()),
            Typed::Cooldown(s) => Kind::Cooldown(s.seconds.clone()),
            Typed::RunOnce(r) => Kind::RunOnce {
                skip: if r.then_skip { Some(skip(self)?) } else { None },
            },
            Typed::Every(s) => Kind::Every(s.seconds.clone()),
            Typed::After(a) => Kind::After {
                success: a.success.clone(),
                failure: a.failure.clone(),
                finished: a.finished.clone(),
                halted: a.halted.clone(),
            },
            Typed::SkipIf(s) => Kind::Precondition {
                expr: s.expression.clone(),
                then: skip(self)?,
                when: true,
                skips: true,
            },
            Typed::SuccessIf(e) => Kind::Precondition {
                expr: e.expression.clone(),
                then: Status::Success,
                when: true,
                skips: false,
            },
            Typed::FailureIf(e) => Kind::Precondition {
                expr: e.expression.clone(),
                then: Status::Failure,
                when: true,
                skips: false,
            },
            Typed::ForEach(f) => Kind::ForEach {
                item: f.item.clone(),
                then: status(self, f.if_empty)?,
                skips: f.if_empty == Otherwise::Skip,
            },
            Typed::Precondition(p) => Kind::Precondition {
                expr: p.condition.clone(),
                then: status(self, p.otherwise)?,
                when: false,
                skips: p.otherwise == Otherwise::Skip,
            },
            Typed::RunWhile(s) => Kind::RunWhile {
                expr: s.expression.clone(),
                skip: skip(self)?,
            },
            Typed::Gate(g) => Kind::Gate(count(&g.capacity, u32::MAX, what("capacity"))),
            Typed::GlobalCooldown(s) => Kind::GlobalCooldown(s.seconds.clone()),
            Typed::Rendezvous(r) => Kind::Rendezvous {
                n: count(&r.members, 255, what("members")),
                role: self
                    .checked(check::role(at.kind, at.ident, at.binding))?
                    .clone(),
            },
            Typed::Sync(_) => Kind::Sync {
                rendezvous: match at.rendezvous {
                    Some(r) => r,
                    None => return Err(self.errors.report(check::sync_outside(at.ident))),
                },
            },
            Typed::Monitor(e) => Kind::Monitor {
                expr: e.expression.clone(),
                index: at.monitors as usize,
            },
            Typed::Switch(e) | Typed::SwitchEq(e) => Kind::Switch(e.expression.clone()),
            Typed::Request(r) => Kind::Request {
                stream: self
                    .checked(check::request_stream(self.tree, &r.stream))?
                    .clone(),
                request: r.request.clone(),
                slot: at.requests,
            },
            Typed::Success(_) => Kind::Constant(Status::Success),
            Typed::Failure(_) => Kind::Constant(Status::Failure),
            Typed::Running(_) => Kind::Constant(Status::Running),
        })
    }
}

/// A `parallel`'s effective failure threshold: also reached once `success`
/// became impossible, after more than `all - success` failures.
fn reachable_failure(success: Count, failure: Count, all: u32) -> Count {
    match (&success, &failure) {
        (Count::Literal(s), Count::Literal(f)) => Count::Literal((*f).min(all - s + 1)),
        _ => {
            let (s, f) = (count_expr(&success), count_expr(&failure));
            Count::Named {
                expr: Box::new(syn::parse_quote!({
                    let __reachable: ::core::primitive::u32 = #all - #s + 1;
                    let __failure: ::core::primitive::u32 = #f;
                    if __failure < __reachable { __failure } else { __reachable }
                })),
                min: 1,
                max: all,
                what: "`failure` of `parallel`".to_string(),
            }
        }
    }
}

/// A count as an expression of type `u32`.
fn count_expr(count: &Count) -> syn::Expr {
    match count {
        Count::Literal(n) => syn::parse_quote!(#n),
        Count::Named { expr, .. } => (**expr).clone(),
    }
}

/// The shared nodes each child of a decider group enters before doing
/// anything else ([`Kind::entry`]), unless the group says
/// `skip_blocked = false`.
fn refusals(nodes: &mut [Node]) {
    for id in 0..nodes.len() {
        if let Kind::Decider {
            skip_blocked: true, ..
        } = nodes[id].kind
        {
            for k in 0..nodes[id].children.len() {
                let child = nodes[id].children[k];
                let found = entered_first(nodes, child);
                nodes[child].refusals = found;
            }
        }
    }
}

/// The shared nodes that may refuse an agent entering `id`, before it does
/// anything else: down first children, through nodes that pass their
/// first child's failure on at once.
fn entered_first(nodes: &[Node], id: usize) -> Vec<ir::Refusal> {
    let mut found = Vec::new();
    let mut at = id;
    loop {
        let node = &nodes[at];
        match node.kind.entry() {
            ir::Entry::Refuses => found.push(ir::Refusal {
                node: at,
                text: refusal_text(node),
            }),
            ir::Entry::PassesThrough => {}
            ir::Entry::Acts => return found,
        }
        match node.children.first() {
            Some(&first) => at = first,
            None => return found,
        }
    }
}

/// What a guard's trace says when `node` (a gate or global cooldown)
/// refuses: "'repair: gate(3) is full".
fn refusal_text(node: &Node) -> String {
    let label = node
        .label
        .as_ref()
        .map(|l| format!("'{l}: "))
        .unwrap_or_default();
    let state = if let Kind::Gate(_) = node.kind {
        "is full"
    } else {
        "is cooling down"
    };
    format!("{label}{} {state}", node.detail)
}

/// Where a keyword node sits: what its IR kind depends on besides its
/// arguments.
struct Place<'a> {
    kind: kinds::Kind,
    /// Its keyword as written.
    ident: &'a syn::Ident,
    /// The parent's kind, unless it is the root.
    parent: Option<kinds::Kind>,
    children: usize,
    binding: Option<&'a syn::Ident>,
    /// The innermost enclosing rendezvous.
    rendezvous: Option<usize>,
    /// Monitors before this node in the tree.
    monitors: u32,
    /// Request nodes before this node in the tree.
    requests: u32,
}

impl Lowering<'_> {
    fn guard(&mut self, guard: &ast::Guard) -> Result<ir::Guard, Reported> {
        let mut clauses = Vec::new();
        for clause in &guard.clauses {
            let text = tokens_text(clause.tokens.clone());
            let index = clauses.len();
            let mut push = |kind| {
                clauses.push(ir::Clause {
                    kind,
                    text: text.clone(),
                })
            };
            match &clause.kind {
                ast::ClauseKind::When(e) => push(ir::ClauseKind::When(e.clone())),
                ast::ClauseKind::WhenLet { pat, ty, expr } => push(ir::ClauseKind::WhenLet {
                    pat: (**pat).clone(),
                    ty: self
                        .checked(check::when_let_type(pat, ty.as_deref()))?
                        .clone(),
                    expr: expr.clone(),
                }),
                ast::ClauseKind::Score(e) => push(ir::ClauseKind::Score(e.clone())),
                // The node it asks is found once every node is lowered
                // ([`Lowering::rooms`]).
                ast::ClauseKind::Room(label) => {
                    self.rooms.push((self.nodes.len(), index, label.clone()));
                    push(ir::ClauseKind::Room(ir::Refusal {
                        node: 0,
                        text: String::new(),
                    }))
                }
                ast::ClauseKind::Every(every) => {
                    let every = every.as_ref().map_err(|reported| *reported)?;
                    push(ir::ClauseKind::Every(every.seconds.clone()));
                }
                ast::ClauseKind::Flags { stimuli, flags } => {
                    let flags = flags.as_deref().map_err(|reported| *reported)?;
                    let modes = [
                        (FlagMode::Any, &flags.any),
                        (FlagMode::All, &flags.all),
                        (FlagMode::None, &flags.none),
                    ];
                    for (mode, expr) in modes {
                        if let Some(expr) = expr {
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
        Ok(ir::Guard { clauses, text })
    }
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
        leaf_below[id] = match node.kind.memory_of() {
            ir::MemoryOf::Leaf => Some(id),
            ir::MemoryOf::Child => leaf_below[node.children[0]],
            ir::MemoryOf::OnlyRunningChild => {
                let mut running = node.children.iter().filter(|&&c| nodes[c].can_run);
                match (running.next(), running.next()) {
                    (Some(&c), None) if sizes[id] <= COLLAPSE_NODES => leaf_below[c],
                    _ => None,
                }
            }
            ir::MemoryOf::Own => None,
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
        let path = |leaf: usize| {
            nodes[leaf]
                .kind
                .leaf()
                .map(|p| p.to_token_stream().to_string())
        };
        if let Some(&first) = leaves.as_ref().and_then(|l| l.first())
            && path(first).is_some()
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
                // A named threshold may be more than 1.
                failed: failure.literal() != Some(1),
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
        Kind::Repeat(Some(n)) | Kind::Retry(Some(n)) => record(&[Field::Count(n.most())]),
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
    let own = node.kind.keeps();
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
        lower(&input.trees[0], &mut Errors::default()).expect("a checked tree lowers")
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
        let thresholds = |kind: &Kind| match kind {
            Kind::Parallel { success, failure } => (success.literal(), failure.literal()),
            _ => (None, None),
        };
        assert_eq!(thresholds(&tree.nodes[0].kind), (Some(2), Some(2)));
        let tree = lower_one(quote! { tree T(a: &mut A) { parallel { running, running } } });
        assert_eq!(thresholds(&tree.nodes[0].kind), (Some(2), Some(1)));
        // Named: the clamp is left to rustc.
        let tree = lower_one(quote! {
            tree T(a: &mut A) { parallel(success = NEED) { running, running } }
        });
        assert_eq!(thresholds(&tree.nodes[0].kind), (None, None));
    }
}
