//! JSON values as MessagePack, the encoding of Groot2's blackboard replies.

use serde_json::Value;

/// Appends `value` to `out`, each number and length in its smallest form;
/// floats as 64-bit floats.
pub fn encode(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Null => out.push(0xc0),
        Value::Bool(b) => out.push(if *b { 0xc3 } else { 0xc2 }),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                uint(u, out);
            } else if let Some(i) = n.as_i64() {
                int(i, out);
            } else {
                out.push(0xcb);
                out.extend_from_slice(&n.as_f64().unwrap_or(0.0).to_be_bytes());
            }
        }
        Value::String(s) => str(s, out),
        Value::Array(items) => {
            length(items.len(), 0x90, 0xdc, 0xdd, out);
            for item in items {
                encode(item, out);
            }
        }
        Value::Object(map) => {
            length(map.len(), 0x80, 0xde, 0xdf, out);
            for (k, v) in map {
                str(k, out);
                encode(v, out);
            }
        }
    }
}

/// Appends a string.
pub fn str(s: &str, out: &mut Vec<u8>) {
    let n = s.len();
    if n < 32 {
        out.push(0xa0 | n as u8);
    } else if n <= 0xff {
        out.extend_from_slice(&[0xd9, n as u8]);
    } else if n <= 0xffff {
        out.push(0xda);
        out.extend_from_slice(&(n as u16).to_be_bytes());
    } else {
        out.push(0xdb);
        out.extend_from_slice(&(n as u32).to_be_bytes());
    }
    out.extend_from_slice(s.as_bytes());
}

/// Appends the header of a map or array of `n` items.
pub fn length(n: usize, fix: u8, b16: u8, b32: u8, out: &mut Vec<u8>) {
    if n < 16 {
        out.push(fix | n as u8);
    } else if n <= 0xffff {
        out.push(b16);
        out.extend_from_slice(&(n as u16).to_be_bytes());
    } else {
        out.push(b32);
        out.extend_from_slice(&(n as u32).to_be_bytes());
    }
}

fn uint(u: u64, out: &mut Vec<u8>) {
    if u < 0x80 {
        out.push(u as u8);
    } else if u <= 0xff {
        out.extend_from_slice(&[0xcc, u as u8]);
    } else if u <= 0xffff {
        out.push(0xcd);
        out.extend_from_slice(&(u as u16).to_be_bytes());
    } else if u <= 0xffff_ffff {
        out.push(0xce);
        out.extend_from_slice(&(u as u32).to_be_bytes());
    } else {
        out.push(0xcf);
        out.extend_from_slice(&u.to_be_bytes());
    }
}

fn int(i: i64, out: &mut Vec<u8>) {
    if i >= -32 {
        out.push(i as i8 as u8);
    } else if i >= i64::from(i8::MIN) {
        out.extend_from_slice(&[0xd0, i as i8 as u8]);
    } else if i >= i64::from(i16::MIN) {
        out.push(0xd1);
        out.extend_from_slice(&(i as i16).to_be_bytes());
    } else if i >= i64::from(i32::MIN) {
        out.push(0xd2);
        out.extend_from_slice(&(i as i32).to_be_bytes());
    } else {
        out.push(0xd3);
        out.extend_from_slice(&i.to_be_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::encode;
    use serde_json::json;

    fn bytes(v: serde_json::Value) -> Vec<u8> {
        let mut out = Vec::new();
        encode(&v, &mut out);
        out
    }

    #[test]
    fn values_encode_as_the_msgpack_spec_writes_them() {
        // Examples worked from the MessagePack specification.
        assert_eq!(bytes(json!(null)), [0xc0]);
        assert_eq!(bytes(json!(true)), [0xc3]);
        assert_eq!(bytes(json!(5)), [0x05]);
        assert_eq!(bytes(json!(200)), [0xcc, 200]);
        assert_eq!(bytes(json!(-1)), [0xff]);
        assert_eq!(bytes(json!(-33)), [0xd0, 0xdf]);
        assert_eq!(bytes(json!(70000)), [0xce, 0, 1, 0x11, 0x70]);
        assert_eq!(bytes(json!(1.5)), [0xcb, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0]);
        assert_eq!(bytes(json!("ab")), [0xa2, b'a', b'b']);
        assert_eq!(bytes(json!([1, 2])), [0x92, 1, 2]);
        // BehaviorTree.CPP's reply for a tree `Main` with an empty blackboard.
        assert_eq!(bytes(json!({"Main": null})), b"\x81\xa4Main\xc0");
        let long = "x".repeat(40);
        let mut expected = vec![0xd9, 40];
        expected.extend_from_slice(long.as_bytes());
        assert_eq!(bytes(json!(long)), expected);
    }
}
