//! Arguments, read once into typed values.
//!
//! Every keyword's parenthesised arguments (and those of the `every`,
//! `flags` and `stimuli` guard clauses) are read by a [`Reader`] into the
//! struct of its parameter list: [`Parallel`], [`Seconds`], [`ForEach`]...
//! The node-kind table names each kind's struct, and
//! [`kinds::read_args`](crate::kinds::read_args) reads a keyword's
//! arguments into the kind's variant of [`Typed`](crate::kinds::Typed).
//!
//! Positional and named arguments are matched to the struct's
//! [`Params`]; each value is read as its field's type; every problem is
//! reported (unknown, repeated, missing, extra, mistyped) while reading
//! goes on. A struct comes out whole, its required fields present and its
//! defaults applied, or not at all: reading fails with the proof that the
//! missing or mistyped value was [`Reported`]. Nothing later reads an
//! argument by name.

use crate::ast::Arg;
use crate::errors::{Errors, Reported};
use crate::kinds::{ArgType, Otherwise, Param, Params, closest};
use proc_macro2::Span;
use syn::spanned::Spanned as _;
use syn::{Expr, Lit, UnOp};

/// A value with where it was written, for messages about it later.
#[derive(Clone, Copy, Debug)]
pub struct Spanned<T> {
    pub value: T,
    pub span: Span,
}

/// A count as written: an integer literal, or a named constant (any
/// constant expression of type `u32`, such as `MAX_REPAIRERS`), which
/// rustc type-checks and whose limits a compile-time assertion checks.
#[derive(Clone, Debug)]
pub enum Count {
    Literal(Spanned<u32>),
    Named(Box<Expr>),
}

/// A `parallel` threshold as written: an integer literal (negative counts
/// from the number of children), or a named constant of type `u32`.
#[derive(Clone, Debug)]
pub enum Threshold {
    Literal(Spanned<i64>),
    Named(Box<Expr>),
}

impl Count {
    /// The number, if written as a literal.
    pub fn literal(&self) -> Option<u32> {
        match self {
            Count::Literal(n) => Some(n.value),
            Count::Named(_) => None,
        }
    }
}

impl Threshold {
    /// The number, if written as a literal.
    pub fn literal(&self) -> Option<i64> {
        match self {
            Threshold::Literal(n) => Some(n.value),
            Threshold::Named(_) => None,
        }
    }
}

/// A parameter list: its [`Params`], and how its struct is read.
pub trait Read: Sized {
    /// The parameters, in the order [`Read::read`] reads them.
    const PARAMS: Params;
    /// Reads each parameter in order, then builds the struct; every
    /// parameter is read before any failure is returned, so each problem
    /// is reported.
    fn read(reader: &mut Reader) -> Result<Self, Reported>;

    /// Whether a node given these arguments can let its parent pass over
    /// it (Success under a sequence, Failure under a select).
    fn skips(&self) -> bool {
        false
    }
}

/// Reads the arguments written after one keyword against its [`Params`].
/// [`Reader::new`] matches each argument to its parameter; the parameter
/// list's [`Read::read`] then takes the parameters in order, each as its
/// type, with [`Reader::required`] or [`Reader::optional`].
pub struct Reader<'a> {
    word: &'a str,
    /// Where a message about a missing argument points.
    at: Span,
    /// How the whole node is written, for messages.
    usage: String,
    params: &'static [Param],
    /// The argument given for each parameter, if one was.
    given: Vec<Option<&'a Arg>>,
    /// The next parameter to read.
    next: usize,
    errors: &'a mut Errors,
}

/// How the arguments of a parameter list are read into a `T`.
pub type ReadFn<T> = fn(&mut Reader<'_>) -> Result<T, Reported>;

/// Reads `args` (the parenthesised list after `word`, if any) into `T`.
/// `example` is how the whole node is written after the arguments
/// (` { .. }` for a node with children), for messages.
pub fn read<T: Read>(
    word: &str,
    at: Span,
    args: Option<&crate::ast::Args>,
    example: &str,
    errors: &mut Errors,
) -> Result<T, Reported> {
    read_with(word, at, args, &T::PARAMS, example, errors, T::read)
}

/// [`read`], with `params` read by `read` into a `T`.
pub fn read_with<T>(
    word: &str,
    at: Span,
    args: Option<&crate::ast::Args>,
    params: &Params,
    example: &str,
    errors: &mut Errors,
    read: ReadFn<T>,
) -> Result<T, Reported> {
    let mut reader = Reader::new(word, at, args, params, example, errors);
    let value = read(&mut reader);
    reader.finish(value)
}

impl<'a> Reader<'a> {
    /// Matches every argument to its parameter, reporting unknown, extra
    /// and repeated ones, and a list that needs at least one argument.
    pub fn new(
        word: &'a str,
        at: Span,
        args: Option<&'a crate::ast::Args>,
        params: &Params,
        example: &str,
        errors: &'a mut Errors,
    ) -> Reader<'a> {
        let mut reader = Reader {
            word,
            at: args.map_or(at, |a| a.span),
            usage: format!("`{word}{}{example}`", params.usage),
            params: params.list,
            given: vec![None; params.list.len()],
            next: 0,
            errors,
        };
        let items = args.map(|a| a.items.as_slice()).unwrap_or_default();
        if params.list.is_empty() {
            if let Some(args) = args {
                reader.report(syn::Error::new(
                    args.span,
                    format!("`{word}` takes no arguments"),
                ));
            }
            return reader;
        }
        let mut positional = params.list.iter().enumerate().filter(|(_, p)| p.positional);
        for arg in items {
            let index = match &arg.name {
                None => match positional.next() {
                    Some((index, _)) => index,
                    None => {
                        let message =
                            format!("unexpected argument: `{word}` is written {}", reader.usage);
                        reader.report(syn::Error::new(arg.value.span(), message));
                        continue;
                    }
                },
                Some(name) => {
                    let key = name.to_string();
                    match params.list.iter().position(|p| p.name == key) {
                        Some(index) => index,
                        None => {
                            let message = unknown_argument(word, &key, params);
                            reader.report(syn::Error::new(name.span(), message));
                            continue;
                        }
                    }
                }
            };
            let param = &params.list[index];
            if let Some(first) = reader.given[index] {
                let span = arg.name.as_ref().map_or(arg.value.span(), |n| n.span());
                let first = first.name.as_ref().map_or(first.value.span(), |n| n.span());
                let message = format!("`{}` is given twice", param.name);
                reader.report(crate::errors::again(span, &message, "first", first));
                continue;
            }
            reader.given[index] = Some(arg);
        }
        if params.at_least_one && items.is_empty() {
            let names: Vec<String> = params
                .list
                .iter()
                .map(|p| format!("`{}`", p.name))
                .collect();
            let message = format!(
                "`{word}` needs at least one of {}, as in {}",
                names.join(", "),
                reader.usage
            );
            reader.report(syn::Error::new(reader.at, message));
        }
        reader
    }

    fn report(&mut self, error: syn::Error) -> Reported {
        self.errors.report(error)
    }

    /// The next parameter, and the argument given for it.
    fn take(&mut self) -> (&'static Param, Option<&'a Arg>) {
        let param = &self.params[self.next];
        let arg = self.given[self.next];
        self.next += 1;
        (param, arg)
    }

    /// Reads `arg` as the type of `param` with `read`, reporting a
    /// misplaced or missing `name: Type =` binding first.
    fn value<T>(
        &mut self,
        param: &Param,
        arg: &'a Arg,
        read: fn(&Arg) -> syn::Result<T>,
    ) -> Result<T, Reported> {
        match (&arg.binds, param.ty) {
            (Some((name, _)), ty) if ty != ArgType::Item => Err(self.report(syn::Error::new(
                name.span(),
                "unexpected binding: only `for_each` binds a name",
            ))),
            _ => read(arg).map_err(|error| self.report(error)),
        }
    }

    /// The next parameter, which must be given.
    pub fn required<T>(&mut self, read: fn(&Arg) -> syn::Result<T>) -> Result<T, Reported> {
        let (param, arg) = self.take();
        debug_assert!(param.required, "`{}` is optional", param.name);
        match arg {
            Some(arg) => self.value(param, arg, read),
            None => {
                let message = format!(
                    "`{}` needs {}, as in {}",
                    self.word,
                    what(param),
                    self.usage
                );
                Err(self.report(syn::Error::new(self.at, message)))
            }
        }
    }

    /// The next parameter, which may be left out.
    pub fn optional<T>(&mut self, read: fn(&Arg) -> syn::Result<T>) -> Result<Option<T>, Reported> {
        let (param, arg) = self.take();
        debug_assert!(!param.required, "`{}` is required", param.name);
        arg.map(|arg| self.value(param, arg, read)).transpose()
    }

    /// What was read. An argument that was not used (unknown, extra or
    /// repeated) was reported, but the struct is whole without it, so later
    /// rules still check the rest.
    fn finish<T>(self, read: Result<T, Reported>) -> Result<T, Reported> {
        debug_assert!(
            self.next == self.params.len(),
            "`{}` read {} of its {} parameters",
            self.word,
            self.next,
            self.params.len()
        );
        read
    }
}

/// Defines a parameter list: its struct, its [`Params`] and its [`Read`].
/// Each field is `name: Type = how`, where `how` is `required(read)`,
/// `optional(read)` or `default(read, value)`; the order of the fields is
/// the order of the parameters.
macro_rules! params {
    ($(
        $(#[$doc:meta])*
        $name:ident $usage:literal $(at_least_one $at_least_one:tt)?
            $(skips(|$this:ident| $skips:expr))? {
            $($(#[$field_doc:meta])* $field:ident: $ty:ty = $how:ident($kind:ident, $read:ident $(; $default:expr)?)),* $(,)?
        }
    )*) => {$(
        $(#[$doc])*
        #[derive(Clone)]
        pub struct $name {
            $($(#[$field_doc])* pub $field: $ty,)*
        }

        impl Read for $name {
            const PARAMS: Params = Params {
                list: &[$(params!(@param $how $field $kind)),*],
                at_least_one: params!(@at_least_one $($at_least_one)?),
                usage: $usage,
            };

            #[allow(unused_variables)]
            fn read(reader: &mut Reader) -> Result<Self, Reported> {
                $(let $field = params!(@read reader $how $read $(; $default)?);)*
                Ok($name { $($field: $field?,)* })
            }

            $(fn skips(&self) -> bool {
                let $this = self;
                $skips
            })?
        }
    )*};
    (@param required $field:ident $kind:ident) => {
        crate::kinds::positional(stringify!($field), ArgType::$kind)
    };
    (@param $how:ident $field:ident $kind:ident) => {
        crate::kinds::named(stringify!($field), ArgType::$kind)
    };
    (@at_least_one) => { false };
    (@at_least_one $yes:tt) => { true };
    (@read $reader:ident required $read:ident) => { $reader.required($read) };
    (@read $reader:ident optional $read:ident) => { $reader.optional($read) };
    (@read $reader:ident default $read:ident; $default:expr) => {
        $reader.optional($read).map(|value| value.unwrap_or($default))
    };
}

params! {
    /// No arguments.
    NoArgs "" {}

    /// `request(stream, request)`
    Request "(stream, request)" {
        /// The tree parameter holding the requests.
        stream: Expr = required(Expr, expr),
        /// The request value.
        request: Expr = required(Expr, expr),
    }

    /// `wait(2.5)`, `timeout(..)`, `every(..)`...
    Seconds "(2.5)" {
        /// Seconds, as an `f64` expression.
        seconds: Expr = required(Seconds, seconds),
    }

    /// `prioritized(redecides = N, skip_blocked = false)`, `sequential`,
    /// `scored`
    Redecides "(redecides = N)" {
        /// Decide again only every N ticks.
        redecides: Option<Count> = optional(Count, count),
        /// A child whose first step is a full gate or a cooling global
        /// cooldown is passed over (the default), or chosen and fails.
        skip_blocked: bool = default(Flag, flag; true),
    }

    /// `random(rng, redecides = N, skip_blocked = false)`, `shuffle`
    Drawn "(rng, redecides = N)" {
        /// The random number generator to draw from.
        rng: Expr = required(Expr, expr),
        /// Decide again only every N ticks.
        redecides: Option<Count> = optional(Count, count),
        /// As for [`Redecides`].
        skip_blocked: bool = default(Flag, flag; true),
    }

    /// `switch(..)`, `monitor(..)`, `success_if(..)`...
    Expression "(<expression>)" {
        /// The expression.
        expression: Expr = required(Expr, expr),
    }

    /// `skip_if(..)` and `run_while(..)`, which let their parent pass over
    /// them.
    Skipping "(<expression>)" skips(|_this| true) {
        /// The condition.
        expression: Expr = required(Expr, expr),
    }

    /// `precondition(condition, otherwise = failure)`
    Precondition "(<condition>, otherwise = failure)"
        skips(|this| this.otherwise == Otherwise::Skip) {
        /// The condition, checked before the child starts.
        condition: Expr = required(Expr, expr),
        /// What it returns when the condition does not hold.
        otherwise: Otherwise = default(Otherwise, otherwise; Otherwise::Failure),
    }

    /// `for_each(item: T = expression, if_empty = success)`
    ForEach "(item: Type = <Option<Type> expression>, if_empty = success)"
        skips(|this| this.if_empty == Otherwise::Skip) {
        /// The name, type and source of the items.
        item: Item = required(Item, item),
        /// What it returns once the expression gives `None`.
        if_empty: Otherwise = default(Otherwise, otherwise; Otherwise::Success),
    }

    /// `repeat(3)`, `retry(forever)`
    Bound "(3)" {
        /// The count; `None` for `forever`.
        count: Option<Count> = required(Bound, bound),
    }

    /// `parallel(success = N, failure = M)`
    Parallel "(success = N, failure = M)" {
        /// Children that must succeed (all by default).
        success: Option<Threshold> = optional(Threshold, threshold),
        /// Children that may fail before it fails (1 by default).
        failure: Option<Threshold> = optional(Threshold, threshold),
    }

    /// `parallel_all(max_failures = N)`
    ParallelAll "(max_failures = N)" {
        /// Failures at which it fails (1 by default).
        max_failures: Option<Threshold> = optional(Threshold, threshold),
    }

    /// `run_once(then_skip = true)`
    RunOnce "(then_skip = true)" skips(|this| this.then_skip) {
        /// Later ticks pass over the node instead of repeating the status.
        then_skip: bool = default(Flag, flag; false),
    }

    /// `after(success = .., failure = .., finished = .., halted = ..)`
    After "(success = .., failure = .., finished = .., halted = ..)" at_least_one yes {
        success: Option<Expr> = optional(Expr, expr),
        failure: Option<Expr> = optional(Expr, expr),
        finished: Option<Expr> = optional(Expr, expr),
        halted: Option<Expr> = optional(Expr, expr),
    }

    /// `scope(enter = .., tick = .., exit = ..)`
    Scope "(enter = .., tick = .., exit = ..)" at_least_one yes {
        enter: Option<Expr> = optional(Expr, expr),
        tick: Option<Expr> = optional(Expr, expr),
        exit: Option<Expr> = optional(Expr, expr),
    }

    /// `gate(3)`
    Gate "(3)" {
        /// Agents inside at once.
        capacity: Count = required(Count, count),
    }

    /// `rendezvous(2)`
    Rendezvous "(2)" {
        /// Agents that meet.
        members: Count = required(Count, count),
    }

    /// The `flags(..)` and `stimuli(..)` guard clauses.
    FlagClause "(any = A | B, none = C)" at_least_one yes {
        /// At least one of these flags is set.
        any: Option<Expr> = optional(Expr, expr),
        /// All of these flags are set.
        all: Option<Expr> = optional(Expr, expr),
        /// None of these flags is set.
        none: Option<Expr> = optional(Expr, expr),
    }
}

/// The value of a `for_each` item argument: `name: Type = expression`.
#[derive(Clone)]
pub struct Item {
    pub name: syn::Ident,
    pub ty: syn::Type,
    pub expr: Expr,
}

fn expr(arg: &Arg) -> syn::Result<Expr> {
    Ok(arg.value.clone())
}

fn item(arg: &Arg) -> syn::Result<Item> {
    match &arg.binds {
        Some((name, ty)) => Ok(Item {
            name: name.clone(),
            ty: (**ty).clone(),
            expr: arg.value.clone(),
        }),
        None => Err(syn::Error::new(
            arg.value.span(),
            "expected a name for each item, its type, and the expression that gives the items: \
             `item: Type = me.queue.pop_front()`",
        )),
    }
}

fn bound(arg: &Arg) -> syn::Result<Option<Count>> {
    let value = &arg.value;
    match value {
        Expr::Path(p) if p.path.is_ident("forever") => Ok(None),
        Expr::Unary(unary) if matches!(unary.op, UnOp::Neg(_)) => Err(syn::Error::new(
            value.span(),
            "a count cannot be negative; for no bound write `forever` (BehaviorTree.CPP's `-1`)",
        )),
        _ => count(arg)
            .map(Some)
            .map_err(|e| syn::Error::new(e.span(), format!("{e}, or `forever`"))),
    }
}

fn flag(arg: &Arg) -> syn::Result<bool> {
    match &arg.value {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Bool(b), ..
        }) => Ok(b.value),
        value => Err(syn::Error::new(value.span(), "expected `true` or `false`")),
    }
}

fn otherwise(arg: &Arg) -> syn::Result<Otherwise> {
    let value = &arg.value;
    let word = match value {
        Expr::Path(p) => p.path.get_ident().map(ToString::to_string),
        _ => None,
    };
    match Otherwise::WORDS
        .iter()
        .find(|(w, _)| Some(*w) == word.as_deref())
    {
        Some((_, o)) => Ok(*o),
        None => {
            let words: Vec<String> = (Otherwise::WORDS.iter())
                .map(|(w, _)| format!("`{w}`"))
                .collect();
            let message = match words.split_last() {
                Some((last, rest)) => format!("expected {} or {last}", rest.join(", ")),
                None => "expected a status".to_string(),
            };
            Err(syn::Error::new(value.span(), message))
        }
    }
}

/// A literal is checked here; anything else is a named count.
fn count(arg: &Arg) -> syn::Result<Count> {
    let value = &arg.value;
    if is_literal(value) {
        Ok(Count::Literal(Spanned {
            value: count_expr(value)?,
            span: value.span(),
        }))
    } else {
        Ok(Count::Named(Box::new(value.clone())))
    }
}

fn threshold(arg: &Arg) -> syn::Result<Threshold> {
    let value = &arg.value;
    if is_literal(value) {
        Ok(Threshold::Literal(Spanned {
            value: threshold_expr(value)?,
            span: value.span(),
        }))
    } else {
        Ok(Threshold::Named(Box::new(value.clone())))
    }
}

/// A literal, negated or not: what the macro reads as a number.
fn is_literal(expr: &Expr) -> bool {
    match expr {
        Expr::Lit(_) => true,
        Expr::Unary(unary) if matches!(unary.op, UnOp::Neg(_)) => is_literal(&unary.expr),
        Expr::Group(group) => is_literal(&group.expr),
        Expr::Paren(paren) => is_literal(&paren.expr),
        _ => false,
    }
}

/// Seconds: an integer literal without a suffix reads as seconds: `2` is
/// `2.0`.
fn seconds(arg: &Arg) -> syn::Result<Expr> {
    let value = arg.value.clone();
    if let Expr::Lit(lit) = &value
        && let Lit::Int(int) = &lit.lit
        && int.suffix().is_empty()
    {
        let float = syn::LitFloat::new(&format!("{}.0", int.base10_digits()), int.span());
        return Ok(Expr::Lit(syn::ExprLit {
            attrs: Vec::new(),
            lit: Lit::Float(float),
        }));
    }
    Ok(value)
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

/// A threshold: a non-zero integer literal, negative to count from the
/// number of children (`-1` is all of them).
fn threshold_expr(expr: &Expr) -> syn::Result<i64> {
    let relative = "a negative threshold counts from the number of children (`-1` is all)";
    match expr {
        Expr::Unary(unary) if matches!(unary.op, UnOp::Neg(_)) => {
            count_expr(&unary.expr).map(|n| -i64::from(n)).map_err(|_| {
                syn::Error::new(
                    expr.span(),
                    format!("expected a threshold such as `2` or `-1`; {relative}"),
                )
            })
        }
        _ => count_expr(expr)
            .map(i64::from)
            .map_err(|e| syn::Error::new(e.span(), format!("{e}; {relative}"))),
    }
}

/// A count argument: an integer literal of at least 1.
pub fn count_expr(expr: &Expr) -> syn::Result<u32> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinds::{Row as _, Typed};

    fn read_str(word: &str, args: &str) -> (Vec<String>, Option<Typed>) {
        let kind = crate::kinds::from_keyword(word).unwrap();
        let mut errors = Errors::default();
        let parsed: Option<crate::ast::Args> = if args.is_empty() {
            None
        } else {
            let tokens: proc_macro2::TokenStream = args.parse().unwrap();
            let parser = |input: syn::parse::ParseStream| crate::parse::parse_args(input);
            syn::parse::Parser::parse2(parser, tokens).unwrap()
        };
        let read = crate::kinds::read_args(kind).unwrap();
        let typed = read_with(
            word,
            Span::call_site(),
            parsed.as_ref(),
            &kind.info().params,
            " { .. }",
            &mut errors,
            read,
        );
        (errors.messages(), typed.ok())
    }

    #[test]
    fn positional_and_named_values_are_typed() {
        let (errors, typed) = read_str("parallel", "(success = 2, failure = 1)");
        assert!(errors.is_empty(), "{errors:?}");
        let Some(Typed::Parallel(p)) = typed else {
            panic!()
        };
        assert_eq!(
            (
                p.success.as_ref().and_then(Threshold::literal),
                p.failure.as_ref().and_then(Threshold::literal)
            ),
            (Some(2), Some(1))
        );
        let (errors, typed) = read_str("parallel", "(success = -1)");
        assert!(errors.is_empty(), "{errors:?}");
        let Some(Typed::Parallel(p)) = typed else {
            panic!()
        };
        assert_eq!(
            (
                p.success.as_ref().and_then(Threshold::literal),
                p.failure.is_none()
            ),
            (Some(-1), true)
        );
        let (errors, typed) = read_str("repeat", "(forever)");
        assert!(errors.is_empty(), "{errors:?}");
        assert!(matches!(typed, Some(Typed::Repeat(Bound { count: None }))));
        let (errors, typed) = read_str("repeat", "(-1)");
        assert_eq!(
            errors,
            ["a count cannot be negative; for no bound write `forever` (BehaviorTree.CPP's `-1`)"]
        );
        assert!(typed.is_none());
        let (errors, typed) = read_str("run_once", "(then_skip = true)");
        assert!(errors.is_empty(), "{errors:?}");
        assert!(matches!(
            typed,
            Some(Typed::RunOnce(RunOnce { then_skip: true }))
        ));
        let (_, typed) = read_str("run_once", "");
        assert!(matches!(
            typed,
            Some(Typed::RunOnce(RunOnce { then_skip: false }))
        ));
        let (errors, _) = read_str("run_once", "(then_skip = 1)");
        assert_eq!(errors, ["expected `true` or `false`"]);
        let (errors, typed) = read_str("timeout", "(3)");
        assert!(errors.is_empty());
        let Some(Typed::Timeout(Seconds { seconds })) = typed else {
            panic!()
        };
        assert_eq!(quote::quote!(#seconds).to_string(), "3.0");
        let (_, typed) = read_str("random", "(rng, redecides = 2)");
        let Some(Typed::Random(drawn)) = typed else {
            panic!()
        };
        assert_eq!(drawn.redecides.as_ref().and_then(Count::literal), Some(2));
        let (errors, typed) = read_str("repeat", "(TRIES)");
        assert!(errors.is_empty(), "{errors:?}");
        assert!(matches!(
            typed,
            Some(Typed::Repeat(Bound {
                count: Some(Count::Named(_))
            }))
        ));
        let (_, typed) = read_str("precondition", "(me.ok())");
        let Some(Typed::Precondition(p)) = typed else {
            panic!()
        };
        assert_eq!(p.otherwise, Otherwise::Failure, "the default");
    }

    #[test]
    fn every_problem_is_reported_once() {
        let (errors, typed) = read_str("parallel", "(success = 0, sucess = 1, 2, success = 1)");
        assert_eq!(
            errors,
            [
                "a count must be at least 1; a negative threshold counts from the number of \
                 children (`-1` is all)",
                "unknown `parallel` argument `sucess` (did you mean `success`?); expected \
                 `success` or `failure`",
                "unexpected argument: `parallel` is written `parallel(success = N, failure = M) \
                 { .. }`",
                "`success` is given twice (first at line 1, column 2)",
            ]
        );
        assert!(typed.is_none(), "a bad value leaves the struct unbuilt");
        let (errors, _) = read_str("repeat", "");
        assert_eq!(errors, ["`repeat` needs a count, as in `repeat(3) { .. }`"]);
        let (errors, _) = read_str("request", "");
        assert_eq!(
            errors,
            [
                "`request` needs its stream, as in `request(stream, request) { .. }`",
                "`request` needs its request, as in `request(stream, request) { .. }`"
            ],
            "every missing argument is reported"
        );
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
        let (errors, _) = read_str("wait", "(item: f64 = 2.0)");
        assert_eq!(errors, ["unexpected binding: only `for_each` binds a name"]);
    }

    /// Each struct reads its parameters in the order of its `Params`, and
    /// reads them all: what the `params!` macro promises, for every kind.
    #[test]
    fn every_kind_reads_its_whole_parameter_list() {
        for info in crate::kinds::KINDS {
            let Some(read) = crate::kinds::read_args(info.kind) else {
                continue;
            };
            let mut errors = Errors::default();
            // Without arguments: every parameter is taken, each required
            // one reported missing (the reader asserts the count in debug).
            let _ = read_with(
                info.keyword,
                Span::call_site(),
                None,
                &info.params,
                "",
                &mut errors,
                read,
            );
            let required = info.params.list.iter().filter(|p| p.required).count();
            let missing = errors
                .messages()
                .iter()
                .filter(|m| m.contains(" needs "))
                .count();
            let expected = if info.params.at_least_one {
                1
            } else {
                required
            };
            assert_eq!(missing, expected, "{}", info.keyword);
        }
    }
}
