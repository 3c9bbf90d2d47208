//! With `#[bt(reflect)]`, bevy's `Reflect` derive on the tree type and every
//! state type, so that an inspector shows which nodes run.
//!
//! Without the `bevy_reflect` feature of `bt` (which turns on this crate's
//! `reflect`), `#[bt(reflect)]` is an error of `check`, so generation may
//! assume the re-export exists.

use super::Gen;
use proc_macro2::TokenStream;
use quote::quote;

impl Gen<'_> {
    /// The derive for a state type (or the tree type) when the tree says
    /// `#[bt(reflect)]`: the derive macro is named through `bt`'s
    /// re-export, and its expansion finds `bevy_reflect` (or `bevy`) among
    /// the user's dependencies, as bevy's own derives do.
    pub(super) fn reflect_derive(&self) -> TokenStream {
        if self.tree.reflect.is_none() {
            return TokenStream::new();
        }
        quote!(#[derive(::__bt::__private::bevy_reflect::Reflect)])
    }

    /// `definition`, reflected when the tree says `#[bt(reflect)]`.
    pub(super) fn reflected(&self, definition: TokenStream) -> TokenStream {
        let derive = self.reflect_derive();
        quote!(#derive #definition)
    }
}
