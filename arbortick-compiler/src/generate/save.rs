//! Saving states: the tree's `LAYOUT_HASH`, and with `#[bt(serde)]` the
//! serde derives on every state type and the tree's own `Serialize` /
//! `Deserialize`, which carry and check the layout hash.
//!
//! Without the `serde` feature of `bt` (which turns on this crate's),
//! `#[bt(serde)]` is an error of `check`, so generation may assume serde.

use super::{Gen, names};
use crate::ir::{Kind, Names, Node, Shape};
use crate::kinds::Row as _;
use proc_macro2::{Literal, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use std::fmt::Write;
use syn::spanned::Spanned;

impl Gen<'_> {
    /// `const LAYOUT_HASH`'s value: the hash of this tree's own shape, mixed
    /// with the hashes of the trees it embeds (constants of their own).
    pub(super) fn layout_hash(&self) -> TokenStream {
        let seed = Literal::u64_suffixed(fnv1a(self.layout_text().as_bytes()));
        let embedded: Vec<&syn::Path> = self
            .tree
            .nodes
            .iter()
            .filter_map(|n| n.kind.subtree())
            .collect();
        if embedded.is_empty() {
            return quote!(#seed);
        }
        quote! {
            ::__bt::__private::layout_hash(#seed, &[#(<#embedded as ::__bt::BehaviorTree>::LAYOUT_HASH),*])
        }
    }

    /// What the layout hash covers, one line per node in pre-order: see the
    /// runtime's `save` module for the rule. Expressions are left out.
    fn layout_text(&self) -> String {
        // Decider groups' variants hold an activation time only with it.
        let mut text = format!("activation_times {}\n", self.tree.activation_times);
        for node in &self.tree.nodes {
            let _ = writeln!(
                text,
                "{} {:?} {} {:?} {:?} {:?} {} {}",
                node.row.info().keyword,
                node.parent,
                node.children.len(),
                node.label,
                node.shape,
                node.keep,
                params(node),
                types(node),
            );
        }
        text
    }

    /// A type definition, with the serde derives when the tree says
    /// `#[bt(serde)]`.
    pub(super) fn saved_type(&self, definition: TokenStream) -> TokenStream {
        if self.tree.serde.is_none() {
            return definition;
        }
        let serde = self.runtime_path("serde");
        quote! {
            #[derive(::__bt::__private::serde::Serialize, ::__bt::__private::serde::Deserialize)]
            #[serde(crate = #serde)]
            #definition
        }
    }

    /// The attribute of a field holding node `id`'s state: a running leaf's
    /// memory is saved as a sequence of none or one (`Option<()>` is
    /// ambiguous in JSON); in its parent's variant, as it is.
    pub(super) fn saved_state(&self, id: usize) -> TokenStream {
        let node = self.tree.node(id);
        let (path, module) = match (&node.shape, &node.kind) {
            (Shape::Leaf, Kind::Leaf { path, .. }) => (path, "slot"),
            (Shape::Memory, Kind::Leaf { path, .. }) => (path, "memory"),
            (Shape::Subtree, Kind::Subtree { path, .. }) if self.tree.serde.is_some() => {
                return self.saved_embedded(path, "active");
            }
            (Shape::Child, _) => return self.saved_state(node.children[0]),
            (Shape::LeafOf(leaf), _) => return self.saved_state(*leaf),
            _ => return TokenStream::new(),
        };
        if self.tree.serde.is_none() {
            return TokenStream::new();
        }
        // On the leaf's path: a memory type that cannot be saved is
        // reported there.
        let mut with = Literal::string(&self.runtime_path(module));
        with.set_span(path.span());
        quote!(#[serde(with = #with)])
    }

    /// The attributes of a field holding an embedded tree's `part`
    /// (`active` or `keep`): saved through the tree's `Embed`, so that a
    /// tree that is not saved is one error, that it is not `Saved`.
    pub(super) fn saved_embedded(&self, path: &syn::Path, part: &str) -> TokenStream {
        let mut path_text = path.to_token_stream().to_string();
        path_text.retain(|c| !c.is_whitespace());
        let function = |verb: &str| {
            let mut f = Literal::string(&format!(
                "{}::<{path_text}, _>",
                self.runtime_path(&format!("embedded::{verb}_{part}"))
            ));
            f.set_span(path.span());
            f
        };
        let (save, load) = (function("save"), function("load"));
        quote!(#[serde(serialize_with = #save, deserialize_with = #load)])
    }

    /// `Embed`'s saving and loading of this tree's parts, for the trees
    /// that embed it: through the derives.
    fn embed_parts(&self) -> TokenStream {
        let (active_ty, keep_ty) = (self.active_ident(), self.keep_ty());
        let serde = quote!(::__bt::__private::serde);
        quote! {
            fn save_active<S: #serde::Serializer>(active: &#active_ty, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                <#active_ty as #serde::Serialize>::serialize(active, serializer)
            }
            fn load_active<'de, D: #serde::Deserializer<'de>>(deserializer: D) -> ::core::result::Result<#active_ty, D::Error> {
                <#active_ty as #serde::Deserialize<'de>>::deserialize(deserializer)
            }
            fn save_keep<S: #serde::Serializer>(keep: &#keep_ty, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                <#keep_ty as #serde::Serialize>::serialize(keep, serializer)
            }
            fn load_keep<'de, D: #serde::Deserializer<'de>>(deserializer: D) -> ::core::result::Result<#keep_ty, D::Error> {
                <#keep_ty as #serde::Deserialize<'de>>::deserialize(deserializer)
            }
        }
    }

    /// The attribute of an `f64` time field: infinite deadlines are saved
    /// in a form JSON can hold.
    pub(super) fn saved_time(&self) -> TokenStream {
        if self.tree.serde.is_none() {
            return TokenStream::new();
        }
        let with = self.runtime_path("time");
        quote!(#[serde(with = #with)])
    }

    /// `Embed`'s checks of a loaded state, with `#[bt(serde)]`.
    pub(super) fn embed_checks(&self) -> TokenStream {
        if self.tree.serde.is_none() {
            return TokenStream::new();
        }
        let (active_ty, keep_ty) = (self.active_ident(), self.keep_ty());
        let (active, keep, held) = (names::active(), names::keep_part(), names::held());
        let (check_active, check_keep) = (self.check_active_body(), self.check_keep_body());
        let result = quote!(::core::result::Result<(), ::__bt::save::InvalidState>);
        let parts = self.embed_parts();
        quote! {
            #parts

            #[allow(unused_variables, clippy::all)]
            fn check_active(
                #active: &#active_ty,
                #held: &mut dyn ::core::ops::FnMut(&'static ::__bt::NodeInfo, ::__bt::__private::Held),
            ) -> #result {
                #check_active
                ::core::result::Result::Ok(())
            }

            #[allow(unused_variables, clippy::all)]
            fn check_keep(#keep: &#keep_ty) -> #result {
                #check_keep
                ::core::result::Result::Ok(())
            }
        }
    }

    /// The tree type's `Serialize` and `Deserialize`: layout first, checked
    /// on loading.
    pub(super) fn tree_serde(&self) -> TokenStream {
        if self.tree.serde.is_none() {
            return TokenStream::new();
        }
        let name = &self.tree.name;
        // Each embedded tree must be saved too; one from this invocation
        // was checked already, one from elsewhere is checked here, on its
        // path.
        let embedded = self.tree.nodes.iter().filter_map(|n| {
            let path = n.kind.subtree()?;
            let check = quote_spanned!(path.span()=> saved::<#path>);
            Some(quote!(let _ = #check;))
        });
        let embedded: Vec<TokenStream> = embedded.collect();
        let embedded = (!embedded.is_empty()).then(|| {
            quote! {
                const _: () = {
                    fn saved<T: ::__bt::__private::Saved>() {}
                    #(#embedded)*
                };
            }
        });
        let (active_ty, keep_ty) = (self.active_ident(), self.keep_ty());
        let (active, keep) = (names::active(), names::keep_part());
        let impls = serde_impls(name, quote!(serialize_tree));
        quote! {
            #embedded

            impl ::__bt::__private::Saved for #name {}

            impl<'de> ::__bt::__private::Load<'de> for #name {
                const NAME: &'static ::core::primitive::str = <Self as ::__bt::BehaviorTree>::NAME;
                const HASH: ::core::primitive::u64 = <Self as ::__bt::BehaviorTree>::LAYOUT_HASH;
                const FIELDS: &'static [&'static ::core::primitive::str] = &["layout", "active", "keep"];
                type Parts = (#active_ty, #keep_ty);
                fn assemble((#active, #keep): Self::Parts) -> ::core::result::Result<Self, ::__bt::save::InvalidState> {
                    ::__bt::__private::assemble_tree(#active, #keep)
                }
            }

            #impls
        }
    }

    /// `"::bt::__private::<item>"`, with the tree's runtime path: serde's
    /// attributes take paths as strings.
    fn runtime_path(&self, item: &str) -> String {
        let mut path = format!("{}::__private::{item}", self.tree.krate.to_token_stream());
        path.retain(|c| !c.is_whitespace());
        path
    }
}

/// `Serialize` through the runtime's `save` (`serialize_tree` or
/// `serialize_shared`: the layout hash first), and `Deserialize` through
/// its `deserialize_saved`, which checks it.
pub(super) fn serde_impls(ty: &proc_macro2::Ident, save: TokenStream) -> TokenStream {
    quote! {
        impl ::__bt::__private::serde::Serialize for #ty {
            fn serialize<S: ::__bt::__private::serde::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                ::__bt::__private::#save(self, serializer)
            }
        }

        impl<'de> ::__bt::__private::serde::Deserialize<'de> for #ty {
            fn deserialize<D: ::__bt::__private::serde::Deserializer<'de>>(deserializer: D) -> ::core::result::Result<Self, D::Error> {
                ::__bt::__private::deserialize_saved(deserializer)
            }
        }
    }
}

/// `Some(3)` or `None`: how an optional count has always been written in
/// the hash (a named one as its constant's name).
fn optional(count: &Option<crate::ir::Count>) -> String {
    match count {
        Some(count) => format!("Some({count})"),
        None => "None".to_string(),
    }
}

/// The integer parameters and policies of a node, which give saved counts
/// and masks their meaning.
fn params(node: &Node) -> String {
    match &node.kind {
        Kind::Parallel { success, failure } => format!("{success}/{failure}"),
        Kind::ParallelAll { max_failures } => format!("{max_failures}"),
        Kind::Repeat(n) | Kind::Retry(n) => optional(n),
        Kind::Decider {
            policy, redecides, ..
        } => format!("{policy:?} {}", optional(redecides)),
        Kind::RunOnce { skip } => format!("{skip:?}"),
        Kind::Gate(n) => format!("{n}"),
        Kind::Rendezvous { n, .. } => format!("{n}"),
        Kind::Monitor { index, .. } => format!("{index}"),
        Kind::Precondition { then, .. } => format!("{then:?}"),
        // The answer slot names the agent that asked.
        Kind::Request { .. } => "agent".to_string(),
        Kind::RunWhile { skip, .. } => format!("{skip:?}"),
        Kind::ForEach { then, .. } => format!("{then:?}"),
        // Nothing beyond the kind and the shape.
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
        | Kind::Scope { .. }
        | Kind::Wait(_)
        | Kind::Timeout(_)
        | Kind::Delay(_)
        | Kind::Cooldown(_)
        | Kind::Every(_)
        | Kind::After { .. }
        | Kind::GlobalCooldown(_)
        | Kind::Sync { .. }
        | Kind::Switch(_)
        | Kind::Cond(_)
        | Kind::Action(_)
        | Kind::Instant(_)
        | Kind::Constant(_)
        | Kind::Leaf { .. }
        | Kind::Subtree { .. } => String::new(),
    }
}

/// The types a node's state names: a leaf's or embedded tree's path as
/// written, a `when let` guard's type.
fn types(node: &Node) -> String {
    let mut types = match node.kind.names() {
        Names::Path(path) => path.to_token_stream().to_string(),
        Names::Item(ty) => format!("item{}", ty.to_token_stream()),
        Names::Nothing => String::new(),
    };
    if let Some((_, ty)) = node.guard.as_ref().and_then(|g| g.binding()) {
        types.push_str("let");
        types.push_str(&ty.to_token_stream().to_string());
    }
    // Without spaces, which token printing may place differently.
    types.retain(|c| !c.is_whitespace());
    types
}

/// 64-bit FNV-1a: stable across builds, platforms and compiler versions.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::fnv1a;

    #[test]
    fn fnv1a_matches_the_published_test_vectors() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }
}
