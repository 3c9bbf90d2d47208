//! The `behavior_tree!` proc macro. Use it through the `bt` crate, whose
//! documentation is the DSL reference; the compiler itself lives in
//! `bt-compiler`.

use proc_macro::TokenStream;

/// Compiles behavior trees into Rust. See the `bt` crate for the DSL.
#[proc_macro]
pub fn behavior_tree(input: TokenStream) -> TokenStream {
    if cfg!(feature = "hot") {
        bt_compiler::expand_hot(input.into()).into()
    } else {
        bt_compiler::expand(input.into()).into()
    }
}

/// `bt::node!(Tree, 'label)`: the node of `Tree` labelled `'label`. Use it
/// through `bt::node!`.
#[doc(hidden)]
#[proc_macro]
pub fn __node(input: TokenStream) -> TokenStream {
    bt_compiler::expand_node(input.into()).into()
}
