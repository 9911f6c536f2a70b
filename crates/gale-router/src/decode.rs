//! Percent-decoding of captured params, with `decodeURIComponent` semantics: `+` stays `+`,
//! malformed escapes and non-UTF-8 results are errors rather than passed through.

use std::fmt;

use memchr::memchr;

/// Why [`decode_param`] rejected a param.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// A `%` at byte offset `at` of the raw param is not followed by two hex digits.
    MalformedEscape { at: usize },
    /// The decoded bytes are not valid UTF-8.
    InvalidUtf8,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::MalformedEscape { at } => {
                write!(
                    f,
                    "malformed percent escape at byte {at} of route parameter"
                )
            }
            DecodeError::InvalidUtf8 => {
                f.write_str("route parameter is not valid UTF-8 once decoded")
            }
        }
    }
}

impl std::error::Error for DecodeError {}

fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Percent-decode a captured param into `out` (cleared first); Err if a `%` escape is
/// malformed or the result is not UTF-8. On success `out` holds valid UTF-8.
///
/// ```
/// let mut out = Vec::new();
/// gale_router::decode_param(b"hello%20%E4%B8%96", &mut out).unwrap();
/// assert_eq!(out, "hello 世".as_bytes());
/// ```
pub fn decode_param(raw: &[u8], out: &mut Vec<u8>) -> Result<(), DecodeError> {
    out.clear();
    let mut i = 0;
    // Copy runs between escapes in bulk; most params have no `%` at all.
    while let Some(off) = memchr(b'%', &raw[i..]) {
        let at = i + off;
        out.extend_from_slice(&raw[i..at]);
        let byte = match (
            raw.get(at + 1).copied().and_then(hex),
            raw.get(at + 2).copied().and_then(hex),
        ) {
            (Some(hi), Some(lo)) => hi << 4 | lo,
            _ => return Err(DecodeError::MalformedEscape { at }),
        };
        out.push(byte);
        i = at + 3;
    }
    out.extend_from_slice(&raw[i..]);
    match std::str::from_utf8(out) {
        Ok(_) => Ok(()),
        Err(_) => Err(DecodeError::InvalidUtf8),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes() {
        let cases: &[(&[u8], Result<&str, DecodeError>)] = &[
            (b"", Ok("")),
            (b"plain", Ok("plain")),
            (b"a%20b", Ok("a b")),
            (b"%E4%B8%96", Ok("世")),
            (b"%e4%b8%96%21", Ok("世!")),
            (b"a+b", Ok("a+b")),
            (b"%2F", Ok("/")),
            (b"%25zz", Ok("%zz")),
            (b"%zz", Err(DecodeError::MalformedEscape { at: 0 })),
            (b"ab%2", Err(DecodeError::MalformedEscape { at: 2 })),
            (b"ab%", Err(DecodeError::MalformedEscape { at: 2 })),
            (b"x%g0", Err(DecodeError::MalformedEscape { at: 1 })),
            (b"%E4", Err(DecodeError::InvalidUtf8)),
            (b"%E4%B8", Err(DecodeError::InvalidUtf8)),
            (b"%FF", Err(DecodeError::InvalidUtf8)),
            (b"\xff", Err(DecodeError::InvalidUtf8)),
        ];
        let mut out = b"stale".to_vec();
        for (raw, want) in cases {
            let got = decode_param(raw, &mut out).map(|()| std::str::from_utf8(&out).unwrap());
            assert_eq!(got, *want, "{:?}", String::from_utf8_lossy(raw));
        }
    }

    #[test]
    fn error_messages() {
        assert!(DecodeError::MalformedEscape { at: 3 }
            .to_string()
            .contains("byte 3"));
        assert!(DecodeError::InvalidUtf8.to_string().contains("UTF-8"));
    }
}
