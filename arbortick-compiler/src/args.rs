//! Arguments, read once against the node-kind table.
//!
//! Every keyword's parenthesised arguments (and those of the `every`,
//! `flags` and `stimuli` guard clauses) go through [`read`]: positional and
//! named arguments are matched to the keyword's [`Params`], each value is
//! checked against its [`ArgType`], and every problem is reported (unknown,
//! repeated, missing, extra, mistyped) while reading goes on. What comes out
//! is [`Values`]: typed, so lowering reads counts and durations without
//! re-parsing and without defaults.

use crate::ast::Args;
use crate::errors::Errors;
use crate::kinds::{ArgType, Param, Params, closest};
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Expr, Lit, UnOp};

/// One argument's value, typed.
#[derive(Clone)]
pub enum Value {
    Count(u32),
    /// `forever`, where a [`ArgType::Bound`] is read.
    Forever,
    /// A non-zero threshold; negative counts from the number of children.
    Threshold(i64),
    Flag(bool),
    Otherwise(crate::kinds::Otherwise),
    /// Seconds as an `f64` expression; an integer literal was made a float.
    Seconds(Expr),
    Expr(Expr),
    /// `name: Type = expression`.
    Item(Box<Item>),
}

/// The value of an [`ArgType::Item`] argument: `name: Type = expression`.
#[derive(Clone)]
pub struct Item {
    pub name: syn::Ident,
    pub ty: syn::Type,
    pub expr: Expr,
}

/// The arguments given to one keyword, in the order of its [`Params`].
#[derive(Clone, Default)]
pub struct Values {
    params: &'static [Param],
    /// `(value, span of the value)` per param, `None` if not given or bad.
    values: Vec<Option<(Value, Span)>>,
}

impl Values {
    fn get(&self, name: &str) -> Option<&(Value, Span)> {
        let index = self.params.iter().position(|p| p.name == name)?;
        self.values[index].as_ref()
    }

    /// A count argument, if given.
    pub fn count(&self, name: &str) -> Option<u32> {
        match self.get(name)? {
            (Value::Count(n), _) => Some(*n),
            _ => None,
        }
    }

    /// A bound: `Some(Some(n))` for a count, `Some(None)` for `forever`.
    pub fn bound(&self, name: &str) -> Option<Option<u32>> {
        match self.get(name)? {
            (Value::Count(n), _) => Some(Some(*n)),
            (Value::Forever, _) => Some(None),
            _ => None,
        }
    }

    /// A threshold argument, if given.
    pub fn threshold(&self, name: &str) -> Option<i64> {
        match self.get(name)? {
            (Value::Threshold(n), _) => Some(*n),
            _ => None,
        }
    }

    /// A `true`/`false` argument, if given.
    pub fn flag(&self, name: &str) -> Option<bool> {
        match self.get(name)? {
            (Value::Flag(b), _) => Some(*b),
            _ => None,
        }
    }

    /// An `otherwise` argument, if given.
    pub fn otherwise(&self, name: &str) -> Option<crate::kinds::Otherwise> {
        match self.get(name)? {
            (Value::Otherwise(o), _) => Some(*o),
            _ => None,
        }
    }

    /// A duration argument, if given.
    pub fn seconds(&self, name: &str) -> Option<&Expr> {
        match self.get(name)? {
            (Value::Seconds(e), _) => Some(e),
            _ => None,
        }
    }

    /// An expression argument, if given.
    pub fn expr(&self, name: &str) -> Option<&Expr> {
        match self.get(name)? {
            (Value::Expr(e), _) => Some(e),
            _ => None,
        }
    }

    /// A binding argument, if given.
    pub fn item(&self, name: &str) -> Option<&Item> {
        match self.get(name)? {
            (Value::Item(item), _) => Some(item),
            _ => None,
        }
    }

    /// Where an argument's value was written.
    pub fn span(&self, name: &str) -> Option<Span> {
        self.get(name).map(|(_, span)| *span)
    }

    /// The given arguments, in the order of the params: `(name, value)`.
    pub fn given(&self) -> impl Iterator<Item = (&'static str, &Value)> {
        self.params
            .iter()
            .zip(&self.values)
            .filter_map(|(p, v)| v.as_ref().map(|(value, _)| (p.name, value)))
    }
}

/// Reads `args` (the parenthesised list after `word`, if any) against
/// `params`. `example` is how the whole node is written after the arguments
/// (` { .. }` for a node with children), for messages.
pub fn read(
    word: &str,
    at: Span,
    args: Option<&Args>,
    params: &Params,
    example: &str,
    errors: &mut Errors,
) -> Values {
    let usage = format!("`{word}{}{example}`", params.usage);
    let mut values: Vec<Option<(Value, Span)>> = vec![None; params.list.len()];
    let mut given: Vec<Option<Span>> = vec![None; params.list.len()];
    let items = args.map(|a| a.items.as_slice()).unwrap_or_default();
    if params.list.is_empty() {
        if let Some(args) = args {
            errors.push(syn::Error::new(
                args.span,
                format!("`{word}` takes no arguments"),
            ));
        }
        return Values {
            params: params.list,
            values,
        };
    }
    let mut next_positional = params.list.iter().enumerate().filter(|(_, p)| p.positional);
    for arg in items {
        let index = match &arg.name {
            None => match next_positional.next() {
                Some((index, _)) => index,
                None => {
                    errors.push(syn::Error::new(
                        arg.value.span(),
                        format!("unexpected argument: `{word}` is written {usage}"),
                    ));
                    continue;
                }
            },
            Some(name) => {
                let key = name.to_string();
                match params.list.iter().position(|p| p.name == key) {
                    Some(index) => index,
                    None => {
                        errors.push(syn::Error::new(
                            name.span(),
                            unknown_argument(word, &key, params),
                        ));
                        continue;
                    }
                }
            }
        };
        let param = &params.list[index];
        let span = arg.name.as_ref().map_or(arg.value.span(), |n| n.span());
        if let Some(first) = given[index] {
            let mut error = syn::Error::new(span, format!("`{}` is given twice", param.name));
            error.combine(syn::Error::new(
                first,
                format!("`{}` first given here", param.name),
            ));
            errors.push(error);
            continue;
        }
        given[index] = Some(span);
        match typed(param.ty, arg) {
            Ok(value) => values[index] = Some((value, arg.value.span())),
            Err(error) => errors.push(error),
        }
    }
    for (param, given) in params.list.iter().zip(&given) {
        if param.required && given.is_none() {
            errors.push(syn::Error::new(
                args.map_or(at, |a| a.span),
                format!("`{word}` needs {}, as in {usage}", what(param)),
            ));
        }
    }
    // Arguments that were written but rejected were reported already.
    if params.at_least_one && items.is_empty() {
        let names: Vec<String> = params
            .list
            .iter()
            .map(|p| format!("`{}`", p.name))
            .collect();
        errors.push(syn::Error::new(
            args.map_or(at, |a| a.span),
            format!(
                "`{word}` needs at least one of {}, as in {usage}",
                names.join(", ")
            ),
        ));
    }
    Values {
        params: params.list,
        values,
    }
}

/// How a missing argument is named in messages.
fn what(param: &Param) -> String {
    match param.ty {
        ArgType::Count | ArgType::Bound if param.name == "count" => "a count".to_string(),
        ArgType::Seconds => "a duration in seconds".to_string(),
        _ if param.name == "rng" => "the random number generator to draw from".to_string(),
        _ => format!("its {}", param.name.replace('_', " ")),
    }
}

fn unknown_argument(word: &str, key: &str, params: &Params) -> String {
    let names: Vec<&str> = params.list.iter().map(|p| p.name).collect();
    let expected = match names.as_slice() {
        [one] => format!("`{one}`"),
        [rest @ .., last] => format!(
            "{} or `{last}`",
            rest.iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        [] => "none".to_string(),
    };
    let hint = closest(key, names.iter().copied())
        .map(|c| format!(" (did you mean `{c}`?)"))
        .unwrap_or_default();
    format!("unknown `{word}` argument `{key}`{hint}; expected {expected}")
}

fn typed(ty: ArgType, arg: &crate::ast::Arg) -> syn::Result<Value> {
    let value = &arg.value;
    match (&arg.binds, ty) {
        (Some((name, ty)), ArgType::Item) => {
            return Ok(Value::Item(Box::new(Item {
                name: name.clone(),
                ty: (**ty).clone(),
                expr: value.clone(),
            })));
        }
        (None, ArgType::Item) => {
            return Err(syn::Error::new(
                value.span(),
                "expected a name for each item, its type, and the expression that gives the \
                 items: `item: Type = me.queue.pop_front()`",
            ));
        }
        (Some((name, _)), _) => {
            return Err(syn::Error::new(
                name.span(),
                "unexpected binding: only `for_each` binds a name",
            ));
        }
        (None, _) => {}
    }
    Ok(match ty {
        ArgType::Item => unreachable!("read above"),
        ArgType::Count => Value::Count(count(value)?),
        ArgType::Seconds => Value::Seconds(seconds(value.clone())),
        ArgType::Expr => Value::Expr(value.clone()),
        ArgType::Bound => match value {
            Expr::Path(p) if p.path.is_ident("forever") => Value::Forever,
            Expr::Unary(unary) if matches!(unary.op, UnOp::Neg(_)) => {
                return Err(syn::Error::new(
                    value.span(),
                    "a count cannot be negative; for no bound write `forever` (BehaviorTree.CPP's \
                     `-1`)",
                ));
            }
            _ => Value::Count(
                count(value)
                    .map_err(|e| syn::Error::new(e.span(), format!("{e}, or `forever`")))?,
            ),
        },
        ArgType::Threshold => Value::Threshold(threshold(value)?),
        ArgType::Flag => match value {
            Expr::Lit(syn::ExprLit {
                lit: Lit::Bool(b), ..
            }) => Value::Flag(b.value),
            _ => return Err(syn::Error::new(value.span(), "expected `true` or `false`")),
        },
        ArgType::Otherwise => {
            let word = match value {
                Expr::Path(p) => p.path.get_ident().map(ToString::to_string),
                _ => None,
            };
            match crate::kinds::Otherwise::WORDS
                .iter()
                .find(|(w, _)| Some(*w) == word.as_deref())
            {
                Some((_, o)) => Value::Otherwise(*o),
                None => {
                    let words: Vec<String> = (crate::kinds::Otherwise::WORDS.iter())
                        .map(|(w, _)| format!("`{w}`"))
                        .collect();
                    let (last, rest) = words.split_last().expect("words");
                    let message = format!("expected {} or {last}", rest.join(", "));
                    return Err(syn::Error::new(value.span(), message));
                }
            }
        }
    })
}

/// A threshold: a non-zero integer literal, negative to count from the
/// number of children (`-1` is all of them).
fn threshold(expr: &Expr) -> syn::Result<i64> {
    let relative = "a negative threshold counts from the number of children (`-1` is all)";
    match expr {
        Expr::Unary(unary) if matches!(unary.op, UnOp::Neg(_)) => {
            count(&unary.expr).map(|n| -i64::from(n)).map_err(|_| {
                syn::Error::new(
                    expr.span(),
                    format!("expected a threshold such as `2` or `-1`; {relative}"),
                )
            })
        }
        _ => count(expr)
            .map(i64::from)
            .map_err(|e| syn::Error::new(e.span(), format!("{e}; {relative}"))),
    }
}

/// A count argument: an integer literal of at least 1.
pub fn count(expr: &Expr) -> syn::Result<u32> {
    let bad = |message: &str| Err(syn::Error::new(expr.span(), message));
    match expr {
        Expr::Lit(lit) => match &lit.lit {
            Lit::Int(int) => match int.base10_parse::<u32>() {
                Ok(0) => bad("a count must be at least 1"),
                Ok(n) => Ok(n),
                Err(_) => bad("a count must fit in a `u32`"),
            },
            Lit::Float(_) => bad("a count must be a whole number, as in `3`"),
            _ => bad("expected a count: an integer literal such as `3`"),
        },
        Expr::Unary(unary) if matches!(unary.op, UnOp::Neg(_)) => {
            bad("a count cannot be negative; expected an integer literal of at least 1")
        }
        _ => bad("expected a count: an integer literal such as `3`"),
    }
}

/// An integer literal without a suffix reads as seconds: `2` is `2.0`.
fn seconds(value: Expr) -> Expr {
    if let Expr::Lit(lit) = &value
        && let Lit::Int(int) = &lit.lit
        && int.suffix().is_empty()
    {
        let float = syn::LitFloat::new(&format!("{}.0", int.base10_digits()), int.span());
        return Expr::Lit(syn::ExprLit {
            attrs: Vec::new(),
            lit: Lit::Float(float),
        });
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinds::Row as _;

    fn read_str(word: &str, args: &str) -> (Vec<String>, Values) {
        let kind = crate::kinds::from_keyword(word).unwrap();
        let mut errors = Errors::default();
        let parsed: Option<Args> = if args.is_empty() {
            None
        } else {
            let tokens: proc_macro2::TokenStream = args.parse().unwrap();
            let parser = |input: syn::parse::ParseStream| crate::parse::parse_args(input);
            syn::parse::Parser::parse2(parser, tokens).unwrap()
        };
        let values = read(
            word,
            Span::call_site(),
            parsed.as_ref(),
            &kind.info().params,
            " { .. }",
            &mut errors,
        );
        (errors.messages(), values)
    }

    #[test]
    fn positional_and_named_values_are_typed() {
        let (errors, values) = read_str("parallel", "(success = 2, failure = 1)");
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(
            (values.threshold("success"), values.threshold("failure")),
            (Some(2), Some(1))
        );
        let (errors, values) = read_str("parallel", "(success = -1)");
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(values.threshold("success"), Some(-1));
        let (errors, values) = read_str("repeat", "(forever)");
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(values.bound("count"), Some(None));
        let (errors, _) = read_str("repeat", "(-1)");
        assert_eq!(
            errors,
            ["a count cannot be negative; for no bound write `forever` (BehaviorTree.CPP's `-1`)"]
        );
        let (errors, values) = read_str("run_once", "(then_skip = true)");
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(values.flag("then_skip"), Some(true));
        let (errors, _) = read_str("run_once", "(then_skip = 1)");
        assert_eq!(errors, ["expected `true` or `false`"]);
        let (errors, values) = read_str("timeout", "(3)");
        assert!(errors.is_empty());
        let seconds = values.seconds("seconds").unwrap();
        assert_eq!(quote::quote!(#seconds).to_string(), "3.0");
        let (_, values) = read_str("random", "(rng, redecides = 2)");
        assert!(values.expr("rng").is_some() && values.count("redecides") == Some(2));
    }

    #[test]
    fn every_problem_is_reported_once() {
        let (errors, values) = read_str("parallel", "(success = 0, sucess = 1, 2, success = 1)");
        assert_eq!(
            errors,
            [
                "a count must be at least 1; a negative threshold counts from the number of \
                 children (`-1` is all)",
                "unknown `parallel` argument `sucess` (did you mean `success`?); expected \
                 `success` or `failure`",
                "unexpected argument: `parallel` is written `parallel(success = N, failure = M) \
                 { .. }`",
                "`success` is given twice",
            ]
        );
        assert_eq!(values.count("success"), None);
        let (errors, _) = read_str("repeat", "");
        assert_eq!(errors, ["`repeat` needs a count, as in `repeat(3) { .. }`"]);
        let (errors, _) = read_str("scope", "()");
        assert_eq!(
            errors,
            [
                "`scope` needs at least one of `enter`, `tick`, `exit`, as in \
              `scope(enter = .., tick = .., exit = ..) { .. }`"
            ]
        );
        let (errors, _) = read_str("sequence", "(1)");
        assert_eq!(errors, ["`sequence` takes no arguments"]);
    }
}
