//! Views of a tree computed when it is compiled: BehaviorTree.CPP 4 XML
//! (the file Groot2 opens, and the instance form `.btlog` files carry),
//! and the layout of the tree with its subtrees expanded in place.
//!
//! The macro writes each tree's part of these views as constants; the
//! functions here join a tree with the views of the trees it embeds, in
//! `const` context, so [`BehaviorTree::BTCPP_XML`] and
//! [`BehaviorTree::BTCPP_INSTANCE_XML`] are `&'static str` constants that
//! cannot drift from the code.
//!
//! # BehaviorTree.CPP names
//!
//! | DSL | BT.CPP | ports |
//! |---|---|---|
//! | `sequence` | `Sequence` | |
//! | `sequence_with_memory` | `SequenceWithMemory` | |
//! | `reactive_sequence` | `ReactiveSequence` | |
//! | `select` | `Fallback` | |
//! | `reactive_select` | `ReactiveFallback` | |
//! | `async_sequence` | `AsyncSequence` | |
//! | `async_select` | `AsyncFallback` | |
//! | `try_catch` | `TryCatch` | |
//! | `switch_eq(v)` with 2 to 6 cases | `Switch2` to `Switch6` | `variable` (`{switch_eq_nN}`), `case_1`.. (a literal case as its value, any other as `{switch_eq_nN_case_K}`) |
//! | `if_then_else` | `IfThenElse` | |
//! | `while_do_else` | `WhileDoElse` | |
//! | `parallel(success = s, failure = f)` | `Parallel` | `success_count`, `failure_count` (the effective counts) |
//! | `parallel_all(max_failures = m)` | `ParallelAll` | `max_failures` |
//! | `invert` | `Inverter` | |
//! | `force_success`, `force_failure` | `ForceSuccess`, `ForceFailure` | |
//! | `keep_running_until_failure` | `KeepRunningUntilFailure` | |
//! | `repeat(n)` | `Repeat` | `num_cycles` (`forever` is `-1`) |
//! | `retry(n)` | `RetryUntilSuccessful` | `num_attempts` (`forever` is `-1`) |
//! | `timeout(s)` | `Timeout` | `msec` |
//! | `delay(s)` | `Delay` | `delay_msec` |
//! | `wait(s)` | `Sleep` | `msec` |
//! | `run_once(then_skip = b)` | `RunOnce` | `then_skip` |
//! | `for_each(x: T = e, if_empty = s)` | `LoopInt` (integer `T`), `LoopDouble` (`f32`, `f64`), `LoopString` (`String`, `&str`), `LoopBool` (`bool`); other types under their own model `ForEach` | `queue` (`{for_each_nN}`), `if_empty`, `value` (`{x}`) |
//! | `precondition(c, otherwise = s)` | `Precondition` | `if` (`true` or `false` for a literal, else `{precondition_nN}`), `else` (`SKIPPED` for `skip`) |
//! | `success`, `failure` | `AlwaysSuccess`, `AlwaysFailure` | |
//! | a subtree call `Patrol(me)` | `SubTree ID="Patrol"` | |
//!
//! Seconds written as a number literal become milliseconds; any other
//! expression becomes a blackboard reference named after the node
//! (`msec="{timeout_n4}"`), BT.CPP's way of saying "set at run time".
//!
//! Every other node is written under its own model ID, declared once in the
//! file's `<TreeNodesModel>`: a stateful leaf under its type's name (a
//! path's segments joined by `_`, since BT.CPP names may not hold `:`),
//! `cond` as the condition `Cond`, `action` as the action `Act`, `instant` as the action `Instant`,
//! `monitor`
//! as the condition `Monitor`, `sync` and `running` as the actions `Sync`
//! and `AlwaysRunning`, the decider groups and `switch` as controls, and
//! the remaining decorators (`scope`, `gate`, `cooldown`, ...) as
//! decorators, each named by its keyword in upper camel case
//! (`GlobalCooldown`).
//!
//! Labels become `name`. The source text of a node that is not a BT.CPP
//! built-in (a `cond`'s expression, a leaf literal, a decorator with its
//! arguments) goes in `_description`, and a decider child's guard in
//! `_guard`: BT.CPP accepts attributes that start with `_`, so the file
//! loads in BehaviorTree.CPP as soon as the models are registered.
//!
//! # Node ids and uids
//!
//! The instance form numbers nodes as BT.CPP does: in depth-first
//! pre-order from 1, with every subtree expanded in place after its
//! `SubTree` node. In a tree without subtrees, node `id` has uid `id + 1`;
//! in general, `uid = base + id + (sizes of the subtrees embedded by nodes
//! before id)`, where `base` is 1 for the tree itself and the uid of the
//! `SubTree` node plus one for an embedded instance ([`TreeView::offset`]
//! and [`expand`] compute it). Each embedded instance's `_fullpath` is its label, or
//! `ID::uid` without one, after the path of the instance that embeds it
//! and a `/`, as BT.CPP writes them.
//!
//! [`BehaviorTree::BTCPP_XML`]: crate::BehaviorTree::BTCPP_XML
//! [`BehaviorTree::BTCPP_INSTANCE_XML`]: crate::BehaviorTree::BTCPP_INSTANCE_XML

use crate::node::NodeInfo;

/// One tree's views, written by the macro as a constant
/// ([`BehaviorTree::VIEW`](crate::BehaviorTree::VIEW)).
#[derive(Debug, PartialEq)]
pub struct TreeView<'a> {
    /// The tree's name (its BT.CPP `ID`).
    pub name: &'a str,
    /// The tree's own node table.
    pub nodes: &'a [NodeInfo],
    /// The tree's `<BehaviorTree>` body, in pieces.
    #[doc(hidden)]
    pub xml: &'a [XmlPart<'a>],
    /// `<TreeNodesModel>` entries of this tree's own nodes, one line each,
    /// without duplicates.
    #[doc(hidden)]
    pub models: &'a [&'a str],
    /// The trees embedded by this one, in the order of their nodes.
    pub subtrees: &'a [Embedded<'a>],
    /// Nodes with every subtree expanded in place.
    pub size: usize,
}

/// A subtree node and the view of the tree it embeds.
#[derive(Debug, PartialEq)]
pub struct Embedded<'a> {
    /// The id of the subtree node in the embedding tree.
    pub node: usize,
    /// The embedded tree.
    pub view: &'a TreeView<'a>,
}

/// A piece of a tree's XML body.
#[doc(hidden)]
#[derive(Debug, PartialEq)]
pub enum XmlPart<'a> {
    /// Text written as is.
    Text(&'a str),
    /// ` _uid="N"` of the next node in the instance form; nothing in the
    /// definition form.
    Uid,
    /// ` ID="Name"` of the `n`-th embedded tree, and in the instance form its
    /// `_fullpath` and `_uid`.
    Subtree(usize),
}

/// Which of the two XML documents.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// One `<BehaviorTree>` per tree: the file Groot2 edits.
    Definition,
    /// One `<BehaviorTree>` per embedded instance, every node with its
    /// `_uid`: the header of a `.btlog` file.
    Instance,
}

/// Where bytes go: counted only, or written into a buffer.
struct Out<'a> {
    buf: &'a mut [u8],
    len: usize,
}

impl Out<'_> {
    /// Appends `s` in one copy: const evaluation runs a loop byte by byte
    /// orders of magnitude slower.
    const fn str(&mut self, s: &str) {
        let bytes = s.as_bytes();
        if self.len + bytes.len() <= self.buf.len() {
            let (_, rest) = self.buf.split_at_mut(self.len);
            let (into, _) = rest.split_at_mut(bytes.len());
            into.copy_from_slice(bytes);
        }
        self.len += bytes.len();
    }

    const fn num(&mut self, mut n: usize) {
        let mut digits = [0u8; 20];
        let mut k = 0;
        loop {
            digits[k] = b'0' + (n % 10) as u8;
            k += 1;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        while k > 0 {
            k -= 1;
            if self.len < self.buf.len() {
                self.buf[self.len] = digits[k];
            }
            self.len += 1;
        }
    }
}

/// The path of an embedded instance: its parent's path, then its own
/// segment (a label, or `ID::uid`).
struct Path<'a> {
    parent: Option<&'a Path<'a>>,
    label: Option<&'a str>,
    id: &'a str,
    uid: usize,
}

impl Path<'_> {
    const fn write(&self, out: &mut Out<'_>) {
        if let Some(parent) = self.parent {
            parent.write(out);
            out.str("/");
        }
        match self.label {
            Some(label) => out.str(label),
            None => {
                out.str(self.id);
                out.str("::");
                out.num(self.uid);
            }
        }
    }
}

const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

impl<'a> TreeView<'a> {
    /// Offset of node `id` from the tree's root in the expanded pre-order.
    pub const fn offset(&self, id: usize) -> usize {
        let mut offset = id;
        let mut k = 0;
        while k < self.subtrees.len() && self.subtrees[k].node < id {
            offset += self.subtrees[k].view.size;
            k += 1;
        }
        offset
    }

    /// Writes the `<BehaviorTree>` body with the first node numbered
    /// `first` (instance form), then in the instance form the blocks of
    /// the instances it embeds.
    const fn body(&self, form: Form, first: usize, path: Option<&Path<'a>>, out: &mut Out<'_>) {
        let instance = matches!(form, Form::Instance);
        out.str("  <BehaviorTree ID=\"");
        out.str(self.name);
        out.str("\"");
        if instance {
            out.str(" _fullpath=\"");
            if let Some(path) = path {
                path.write(out);
            }
            out.str("\"");
        }
        out.str(">\n");
        let mut uid = first;
        let mut i = 0;
        while i < self.xml.len() {
            match self.xml[i] {
                XmlPart::Text(text) => out.str(text),
                XmlPart::Uid => {
                    if instance {
                        out.str(" _uid=\"");
                        out.num(uid);
                        out.str("\"");
                    }
                    uid += 1;
                }
                XmlPart::Subtree(k) => {
                    let sub = &self.subtrees[k];
                    out.str(" ID=\"");
                    out.str(sub.view.name);
                    out.str("\"");
                    if instance {
                        let here = Path {
                            parent: path,
                            label: self.nodes[sub.node].label,
                            id: sub.view.name,
                            uid,
                        };
                        out.str(" _fullpath=\"");
                        here.write(out);
                        out.str("\" _uid=\"");
                        out.num(uid);
                        out.str("\"");
                    }
                    uid += 1 + sub.view.size;
                }
            }
            i += 1;
        }
        out.str("  </BehaviorTree>\n");
        if instance {
            let mut k = 0;
            while k < self.subtrees.len() {
                let sub = &self.subtrees[k];
                let at = first + self.offset(sub.node);
                let here = Path {
                    parent: path,
                    label: self.nodes[sub.node].label,
                    id: sub.view.name,
                    uid: at,
                };
                sub.view.body(form, at + 1, Some(&here), out);
                k += 1;
            }
        }
    }

    /// The `n`-th tree of the depth-first walk over this tree and the ones
    /// it embeds (repeats included), and how many were walked.
    const fn walk(&'a self, n: usize) -> (Option<&'a TreeView<'a>>, usize) {
        if n == 0 {
            return (Some(self), 1);
        }
        let mut seen = 1;
        let mut k = 0;
        while k < self.subtrees.len() {
            let (found, count) = self.subtrees[k].view.walk(n - seen);
            if found.is_some() {
                return (found, 0);
            }
            seen += count;
            k += 1;
        }
        (None, seen)
    }

    /// Whether the `n`-th tree of the walk is the first with its name.
    const fn first_of_name(&'a self, n: usize) -> bool {
        let Some(tree) = self.walk(n).0 else {
            return false;
        };
        let mut m = 0;
        while m < n {
            if let Some(earlier) = self.walk(m).0
                && same(earlier.name, tree.name)
            {
                return false;
            }
            m += 1;
        }
        true
    }

    /// Whether `model` is declared by a tree walked before the `n`-th.
    const fn model_seen(&'a self, n: usize, model: &str) -> bool {
        let mut m = 0;
        while m < n {
            if let Some(earlier) = self.walk(m).0 {
                let mut j = 0;
                while j < earlier.models.len() {
                    if same(earlier.models[j], model) {
                        return true;
                    }
                    j += 1;
                }
            }
            m += 1;
        }
        false
    }

    const fn document(&'a self, form: Form, out: &mut Out<'_>) {
        out.str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<root BTCPP_format=\"4\" main_tree_to_execute=\"");
        out.str(self.name);
        out.str("\">\n");
        let trees = self.walk(usize::MAX).1;
        match form {
            Form::Instance => self.body(form, 1, None, out),
            Form::Definition => {
                let mut n = 0;
                while n < trees {
                    if self.first_of_name(n)
                        && let Some(tree) = self.walk(n).0
                    {
                        tree.body(form, 1, None, out);
                    }
                    n += 1;
                }
            }
        }
        out.str("  <TreeNodesModel>\n");
        let mut n = 0;
        while n < trees {
            if let Some(tree) = self.walk(n).0 {
                let mut j = 0;
                while j < tree.models.len() {
                    if n == 0 || !self.model_seen(n, tree.models[j]) {
                        out.str("    ");
                        out.str(tree.models[j]);
                        out.str("\n");
                    }
                    j += 1;
                }
            }
            n += 1;
        }
        out.str("  </TreeNodesModel>\n</root>\n");
    }

    /// Length in bytes of the XML document in `form`.
    #[doc(hidden)]
    pub const fn xml_len(&'a self, form: Form) -> usize {
        let mut out = Out {
            buf: &mut [],
            len: 0,
        };
        self.document(form, &mut out);
        out.len
    }

    /// The XML document in `form`, as `N` bytes (`N` from
    /// [`xml_len`](Self::xml_len)).
    #[doc(hidden)]
    pub const fn xml<const N: usize>(&'a self, form: Form) -> [u8; N] {
        let mut buf = [0u8; N];
        let mut out = Out {
            buf: &mut buf,
            len: 0,
        };
        self.document(form, &mut out);
        assert!(out.len == N, "the XML length changed between passes");
        buf
    }
}

impl TreeView<'_> {
    /// Writes the document in `form` into `buf`, as much as fits, and
    /// returns its whole length: what [`xml`](Self::xml) makes, outside
    /// const evaluation (the macro writes trees without subtrees this way,
    /// as literals, which costs rustc nothing to evaluate).
    #[doc(hidden)]
    pub fn write_xml(&self, form: Form, buf: &mut [u8]) -> usize {
        let mut out = Out { buf, len: 0 };
        self.document(form, &mut out);
        out.len
    }
}

/// Bytes of a generated document as text; const, for the macro's constants.
/// Writes `text` as XML or HTML text: `&`, `<`, `>` as entities, and in an
/// attribute value (`quoted`) the two quotes. Its [`markup_entity`] is the
/// one table of markup escapes: the XML views, the tree diagram in a
/// type's documentation and the recording's page all escape through it.
#[doc(hidden)]
pub fn write_markup(
    out: &mut impl core::fmt::Write,
    text: &str,
    quoted: bool,
) -> core::fmt::Result {
    for c in text.chars() {
        match markup_entity(c, quoted) {
            Some(entity) => out.write_str(entity)?,
            None => out.write_char(c)?,
        }
    }
    Ok(())
}

/// The entity for one character: see [`write_markup`].
#[doc(hidden)]
pub const fn markup_entity(c: char, quoted: bool) -> Option<&'static str> {
    match c {
        '&' => Some("&amp;"),
        '<' => Some("&lt;"),
        '>' => Some("&gt;"),
        '"' if quoted => Some("&quot;"),
        '\'' if quoted => Some("&apos;"),
        _ => None,
    }
}

#[doc(hidden)]
pub const fn text(bytes: &'static [u8]) -> &'static str {
    match core::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(_) => panic!("generated XML is UTF-8"),
    }
}

/// One node of a tree with its subtrees expanded in place, as [`expand`]
/// lists them.
#[derive(Clone, Copy, Debug)]
pub struct Placed {
    /// The node (from the table of the tree it belongs to).
    pub info: &'static NodeInfo,
    /// Its uid: position in the expanded pre-order, from 1.
    pub uid: usize,
    /// The uid of its parent (for the root of an embedded instance, the
    /// `SubTree` node); 0 for the root.
    pub parent: usize,
    /// Distance from the root of the expanded tree.
    pub depth: usize,
}

/// Walks the expanded tree of `view`, calling `visit` for each node in uid
/// order with the node, its uid, its parent's uid (0 for the root) and its
/// depth in the expanded tree.
pub fn expand(view: &'static TreeView<'static>, visit: &mut dyn FnMut(Placed)) {
    fn walk(
        view: &'static TreeView<'static>,
        first: usize,
        parent: usize,
        depth: usize,
        visit: &mut dyn FnMut(Placed),
    ) {
        let mut k = 0;
        for info in view.nodes {
            let uid = first + view.offset(info.id);
            let up = info.parent.map_or(parent, |p| first + view.offset(p));
            visit(Placed {
                info,
                uid,
                parent: up,
                depth: depth + info.depth,
            });
            if k < view.subtrees.len() && view.subtrees[k].node == info.id {
                walk(
                    view.subtrees[k].view,
                    uid + 1,
                    uid,
                    depth + info.depth + 1,
                    visit,
                );
                k += 1;
            }
        }
    }
    walk(view, 1, 0, 0, visit)
}
