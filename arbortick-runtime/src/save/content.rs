//! A self-describing value read whole and read again later: the fields of
//! a saved state met before its `layout` are kept as [`Content`] until the
//! layout is known to match, then loaded as their types.
//!
//! Only self-describing formats (JSON, RON, MessagePack, ...) write a saved
//! state as a map whose keys may come in any order, and those are exactly
//! the formats whose values can be read without knowing their type
//! (`deserialize_any`). Borrowed strings and bytes are copied.

use core::fmt;
use core::marker::PhantomData;
use serde::de::{
    self, DeserializeSeed, EnumAccess, Error as _, IntoDeserializer, MapAccess, SeqAccess,
    VariantAccess, Visitor,
};
use serde::{Deserialize, forward_to_deserialize_any};
use std::boxed::Box;
use std::string::String;
use std::vec::Vec;

/// A value as the format described it.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Content {
    Bool(bool),
    U64(u64),
    I64(i64),
    U128(u128),
    I128(i128),
    F64(f64),
    Char(char),
    String(String),
    Bytes(Vec<u8>),
    None,
    Some(Box<Content>),
    Unit,
    Newtype(Box<Content>),
    Seq(Vec<Content>),
    Map(Vec<(Content, Content)>),
}

impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ContentVisitor)
    }
}

struct ContentVisitor;

impl<'de> Visitor<'de> for ContentVisitor {
    type Value = Content;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Content, E> {
        Ok(Content::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Content, E> {
        Ok(Content::I64(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Content, E> {
        Ok(Content::U64(v))
    }
    fn visit_i128<E>(self, v: i128) -> Result<Content, E> {
        Ok(Content::I128(v))
    }
    fn visit_u128<E>(self, v: u128) -> Result<Content, E> {
        Ok(Content::U128(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Content, E> {
        Ok(Content::F64(v))
    }
    fn visit_char<E>(self, v: char) -> Result<Content, E> {
        Ok(Content::Char(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Content, E> {
        Ok(Content::String(v.into()))
    }
    fn visit_string<E>(self, v: String) -> Result<Content, E> {
        Ok(Content::String(v))
    }
    fn visit_bytes<E>(self, v: &[u8]) -> Result<Content, E> {
        Ok(Content::Bytes(v.into()))
    }
    fn visit_byte_buf<E>(self, v: Vec<u8>) -> Result<Content, E> {
        Ok(Content::Bytes(v))
    }
    fn visit_none<E>(self) -> Result<Content, E> {
        Ok(Content::None)
    }
    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Content, D::Error> {
        Content::deserialize(d).map(|c| Content::Some(Box::new(c)))
    }
    fn visit_unit<E>(self) -> Result<Content, E> {
        Ok(Content::Unit)
    }
    fn visit_newtype_struct<D: de::Deserializer<'de>>(self, d: D) -> Result<Content, D::Error> {
        Content::deserialize(d).map(|c| Content::Newtype(Box::new(c)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Content, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Content::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Content, A::Error> {
        let mut entries = Vec::new();
        while let Some(entry) = map.next_entry()? {
            entries.push(entry);
        }
        Ok(Content::Map(entries))
    }
    fn visit_enum<A: EnumAccess<'de>>(self, _: A) -> Result<Content, A::Error> {
        Err(A::Error::custom(
            "an enum written as such by the format cannot be kept until the state's `layout` \
             is read: write `layout` first",
        ))
    }
}

/// Reads a [`Content`] as the format would have read it: `human` is the
/// format's [`is_human_readable`](de::Deserializer::is_human_readable).
pub(super) struct Deserializer<E> {
    content: Content,
    human: bool,
    error: PhantomData<E>,
}

impl<E> Deserializer<E> {
    pub(super) fn new(content: Content, human: bool) -> Self {
        Deserializer {
            content,
            human,
            error: PhantomData,
        }
    }
}

impl<'de, E: de::Error> de::Deserializer<'de> for Deserializer<E> {
    type Error = E;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
        let human = self.human;
        match self.content {
            Content::Bool(v) => visitor.visit_bool(v),
            Content::U64(v) => visitor.visit_u64(v),
            Content::I64(v) => visitor.visit_i64(v),
            Content::U128(v) => visitor.visit_u128(v),
            Content::I128(v) => visitor.visit_i128(v),
            Content::F64(v) => visitor.visit_f64(v),
            Content::Char(v) => visitor.visit_char(v),
            Content::String(v) => visitor.visit_string(v),
            Content::Bytes(v) => visitor.visit_byte_buf(v),
            Content::None => visitor.visit_none(),
            Content::Some(v) => visitor.visit_some(Deserializer::new(*v, human)),
            Content::Unit => visitor.visit_unit(),
            Content::Newtype(v) => visitor.visit_newtype_struct(Deserializer::new(*v, human)),
            Content::Seq(items) => {
                let mut seq = Seq {
                    items: items.into_iter(),
                    human,
                    error: PhantomData,
                };
                let value = visitor.visit_seq(&mut seq)?;
                match seq.items.len() {
                    0 => Ok(value),
                    left => Err(E::invalid_length(left, &"fewer elements")),
                }
            }
            Content::Map(entries) => {
                let mut map = Map {
                    entries: entries.into_iter(),
                    value: None,
                    human,
                    error: PhantomData,
                };
                let value = visitor.visit_map(&mut map)?;
                match map.entries.len() {
                    0 => Ok(value),
                    left => Err(E::invalid_length(left, &"fewer entries")),
                }
            }
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
        match self.content {
            Content::None | Content::Unit => visitor.visit_none(),
            Content::Some(v) => visitor.visit_some(Deserializer::new(*v, self.human)),
            content => visitor.visit_some(Deserializer::new(content, self.human)),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, E> {
        match self.content {
            Content::Newtype(v) => visitor.visit_newtype_struct(Deserializer::new(*v, self.human)),
            content => visitor.visit_newtype_struct(Deserializer::new(content, self.human)),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, E> {
        let human = self.human;
        let (variant, value) = match self.content {
            // A unit variant.
            variant @ (Content::String(_) | Content::U64(_)) => (variant, None),
            // `{ "Variant": value }`.
            Content::Map(entries) if entries.len() == 1 => {
                let (variant, value) = entries.into_iter().next().expect("one entry");
                (variant, Some(value))
            }
            other => {
                return Err(E::invalid_type(unexpected(&other), &"an enum variant"));
            }
        };
        visitor.visit_enum(Enum {
            variant,
            value,
            human,
            error: PhantomData,
        })
    }

    fn is_human_readable(&self) -> bool {
        self.human
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct
        identifier ignored_any
    }
}

/// What a [`Content`] is, for error messages.
fn unexpected(content: &Content) -> de::Unexpected<'_> {
    match content {
        Content::Bool(v) => de::Unexpected::Bool(*v),
        Content::U64(v) => de::Unexpected::Unsigned(*v),
        Content::I64(v) => de::Unexpected::Signed(*v),
        Content::U128(_) | Content::I128(_) => de::Unexpected::Other("a 128-bit integer"),
        Content::F64(v) => de::Unexpected::Float(*v),
        Content::Char(v) => de::Unexpected::Char(*v),
        Content::String(v) => de::Unexpected::Str(v),
        Content::Bytes(v) => de::Unexpected::Bytes(v),
        Content::None | Content::Some(_) => de::Unexpected::Option,
        Content::Unit => de::Unexpected::Unit,
        Content::Newtype(_) => de::Unexpected::NewtypeStruct,
        Content::Seq(_) => de::Unexpected::Seq,
        Content::Map(_) => de::Unexpected::Map,
    }
}

impl<'de, E: de::Error> IntoDeserializer<'de, E> for Deserializer<E> {
    type Deserializer = Self;
    fn into_deserializer(self) -> Self {
        self
    }
}

struct Seq<E> {
    items: std::vec::IntoIter<Content>,
    human: bool,
    error: PhantomData<E>,
}

impl<'de, E: de::Error> SeqAccess<'de> for Seq<E> {
    type Error = E;
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, E> {
        match self.items.next() {
            Some(item) => seed
                .deserialize(Deserializer::new(item, self.human))
                .map(Some),
            None => Ok(None),
        }
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

struct Map<E> {
    entries: std::vec::IntoIter<(Content, Content)>,
    value: Option<Content>,
    human: bool,
    error: PhantomData<E>,
}

impl<'de, E: de::Error> MapAccess<'de> for Map<E> {
    type Error = E;
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, E> {
        match self.entries.next() {
            Some((key, value)) => {
                self.value = Some(value);
                seed.deserialize(Deserializer::new(key, self.human))
                    .map(Some)
            }
            None => Ok(None),
        }
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, E> {
        match self.value.take() {
            Some(value) => seed.deserialize(Deserializer::new(value, self.human)),
            None => Err(E::custom("a map value was read before its key")),
        }
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

struct Enum<E> {
    variant: Content,
    value: Option<Content>,
    human: bool,
    error: PhantomData<E>,
}

impl<'de, E: de::Error> EnumAccess<'de> for Enum<E> {
    type Error = E;
    type Variant = Variant<E>;
    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Variant<E>), E> {
        let variant = seed.deserialize(Deserializer::new(self.variant, self.human))?;
        Ok((
            variant,
            Variant {
                value: self.value,
                human: self.human,
                error: PhantomData,
            },
        ))
    }
}

struct Variant<E> {
    value: Option<Content>,
    human: bool,
    error: PhantomData<E>,
}

impl<'de, E: de::Error> VariantAccess<'de> for Variant<E> {
    type Error = E;
    fn unit_variant(self) -> Result<(), E> {
        match self.value {
            None | Some(Content::Unit) => Ok(()),
            Some(other) => Err(E::invalid_type(unexpected(&other), &"a unit variant")),
        }
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, E> {
        match self.value {
            Some(value) => seed.deserialize(Deserializer::new(value, self.human)),
            None => Err(E::invalid_type(
                de::Unexpected::UnitVariant,
                &"a newtype variant",
            )),
        }
    }
    fn tuple_variant<V: Visitor<'de>>(self, _: usize, visitor: V) -> Result<V::Value, E> {
        match self.value {
            Some(value @ Content::Seq(_)) => {
                de::Deserializer::deserialize_any(Deserializer::new(value, self.human), visitor)
            }
            _ => Err(E::invalid_type(
                de::Unexpected::UnitVariant,
                &"a tuple variant",
            )),
        }
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, E> {
        match self.value {
            Some(value @ (Content::Map(_) | Content::Seq(_))) => {
                de::Deserializer::deserialize_any(Deserializer::new(value, self.human), visitor)
            }
            _ => Err(E::invalid_type(
                de::Unexpected::UnitVariant,
                &"a struct variant",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Content, Deserializer};
    use serde::Deserialize;
    use serde::de::value::Error;

    #[test]
    fn a_kept_value_reads_back_as_its_type() {
        #[derive(Deserialize, Debug, PartialEq)]
        #[serde(crate = "serde")]
        enum E {
            Unit,
            New(u8),
            Tuple(u8, Option<u16>),
        }
        let content = Content::Seq(std::vec![
            Content::String("Unit".into()),
            Content::Map(std::vec![(Content::String("New".into()), Content::U64(7))]),
            Content::Map(std::vec![(
                Content::String("Tuple".into()),
                Content::Seq(std::vec![Content::U64(1), Content::None]),
            )]),
        ]);
        let read = <std::vec::Vec<E>>::deserialize(Deserializer::<Error>::new(content, true));
        assert_eq!(
            read.unwrap(),
            std::vec![E::Unit, E::New(7), E::Tuple(1, None)]
        );
        // Out of range for the type: refused as the type would refuse it.
        let big = Deserializer::<Error>::new(Content::U64(300), true);
        assert!(u8::deserialize(big).is_err());
    }
}
