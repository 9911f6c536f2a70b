//! Entity tags in the format of the `etag` npm package (and so Express): `"<length in hex>-<base64 SHA-1, 27
//! characters>"`, `W/`-prefixed when weak; and the base64 of a SHA-1 digest, which the WebSocket accept key uses too.

use sha1::{Digest, Sha1};

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Base64 of a SHA-1 digest: 20 bytes make 27 characters and one `=`.
///
/// ```
/// assert_eq!(&gale_http::base64_20(&[0; 20]), b"AAAAAAAAAAAAAAAAAAAAAAAAAAA=");
/// ```
pub fn base64_20(d: &[u8; 20]) -> [u8; 28] {
    let mut out = [b'='; 28];
    for (i, c) in d.chunks(3).enumerate() {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for j in 0..=c.len() {
            out[i * 4 + j] = B64[(n >> (18 - 6 * j) & 63) as usize];
        }
    }
    out
}

/// The entity tag of `body`, appended to `out`: what `etag(body, { weak })` gives in Node (Express's default
/// `etag fn` is the weak one). At most 2 + 1 + 16 + 1 + 27 + 1 = 48 bytes.
///
/// ```
/// let mut out = Vec::new();
/// gale_http::entity_tag(b"{\"hello\":\"world\"}", true, &mut out);
/// assert_eq!(out, b"W/\"11-IkjuL6CqqtmReFMfkkvwC0sKj04\"");
/// ```
pub fn entity_tag(body: &[u8], weak: bool, out: &mut Vec<u8>) {
    if weak {
        out.extend_from_slice(b"W/");
    }
    out.push(b'"');
    if body.is_empty() {
        // The etag package's constant for an empty body: SHA-1 of nothing.
        out.extend_from_slice(b"0-2jmj7l5rSw0yVb/vlWAYkK/YBwk\"");
        return;
    }
    let mut hex = [0u8; 16];
    let mut n = body.len();
    let mut i = hex.len();
    loop {
        i -= 1;
        hex[i] = b"0123456789abcdef"[n & 15];
        n >>= 4;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&hex[i..]);
    out.push(b'-');
    let digest: [u8; 20] = Sha1::digest(body).into();
    out.extend_from_slice(&base64_20(&digest)[..27]);
    out.push(b'"');
}

/// The last body tagged (up to `TagMemo::MAX` bytes) with its weakness and tag: a route answering the same bytes every
/// time (a constant, a cached page) is hashed once; another body costs a comparison that stops at its first
/// differing byte, and a copy.
pub struct TagMemo {
    body: Vec<u8>,
    weak: bool,
    tag: Vec<u8>,
}

impl TagMemo {
    /// Bodies over this many bytes are hashed every time and not kept.
    pub const MAX: usize = 16 * 1024;

    /// An empty memo (usable in a `const` thread-local).
    pub const fn new() -> TagMemo {
        TagMemo {
            body: Vec::new(),
            weak: false,
            tag: Vec::new(),
        }
    }

    /// Appends `body`'s entity tag to `out` (as `entity_tag`), remembered from the last call for the same body.
    pub fn tag(&mut self, body: &[u8], weak: bool, out: &mut Vec<u8>) {
        if body.len() > Self::MAX {
            entity_tag(body, weak, out);
            return;
        }
        if self.tag.is_empty() || self.weak != weak || self.body != body {
            self.body.clear();
            self.body.extend_from_slice(body);
            self.weak = weak;
            self.tag.clear();
            entity_tag(body, weak, &mut self.tag);
        }
        out.extend_from_slice(&self.tag);
    }
}

impl Default for TagMemo {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_memo_gives_what_entity_tag_gives() {
        let mut memo = TagMemo::new();
        let big = vec![b'x'; TagMemo::MAX + 1];
        let bodies: [(&[u8], bool); 9] = [
            (b"", true),
            (b"", false),
            (b"hello", true),
            (b"hello", true),
            (b"hello", false),
            (b"hellp", false),
            (b"hello", false),
            (&big, true),
            (&big, true),
        ];
        for (body, weak) in bodies {
            let mut got = b"ETag: ".to_vec();
            memo.tag(body, weak, &mut got);
            let mut want = b"ETag: ".to_vec();
            entity_tag(body, weak, &mut want);
            assert_eq!(got, want, "{} bytes, weak {weak}", body.len());
        }
    }

    fn tag(body: &[u8], weak: bool) -> String {
        let mut out = Vec::new();
        entity_tag(body, weak, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn matches_the_etag_package() {
        // Values printed by `require('etag')(body, { weak })` in Node.
        assert_eq!(tag(b"", false), "\"0-2jmj7l5rSw0yVb/vlWAYkK/YBwk\"");
        assert_eq!(tag(b"", true), "W/\"0-2jmj7l5rSw0yVb/vlWAYkK/YBwk\"");
        assert_eq!(tag(b"hello", false), "\"5-qvTGHdzF6KLavt4PO0gs2a6pQ00\"");
        assert_eq!(
            tag(b"{\"hello\":\"world\"}", true),
            "W/\"11-IkjuL6CqqtmReFMfkkvwC0sKj04\""
        );
        let big = vec![b'x'; 70_000];
        assert_eq!(tag(&big, true), "W/\"11170-xHAynMYk3AlxAutPyHoOz98BMYY\"");
    }
}
