//! HTTP method tokens as the router sees them, plus the precomputed `Allow` header values
//! that a 405 answer hands out without allocating.

use std::sync::OnceLock;

/// The standard HTTP methods the router can register routes for.
///
/// Anything else (e.g. `PURGE`) is an "unknown token" and only reaches [`MethodSel::All`] routes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    Get,
    Head,
    Post,
    Put,
    Delete,
    Connect,
    Options,
    Trace,
    Patch,
}

/// Number of [`Method`] variants; sizes the per-endpoint method table.
pub(crate) const METHOD_COUNT: usize = 9;

impl Method {
    /// Every method in `Allow`-list order (also the bit order of allow masks).
    pub const VARIANTS: [Method; METHOD_COUNT] = [
        Method::Get,
        Method::Head,
        Method::Post,
        Method::Put,
        Method::Delete,
        Method::Connect,
        Method::Options,
        Method::Trace,
        Method::Patch,
    ];

    /// Parse a request-line method token. Exact and case-sensitive, as RFC 9110 requires:
    /// `b"get"` is an unknown token, not `GET`.
    pub fn from_bytes(b: &[u8]) -> Option<Method> {
        Some(match b {
            b"GET" => Method::Get,
            b"HEAD" => Method::Head,
            b"POST" => Method::Post,
            b"PUT" => Method::Put,
            b"DELETE" => Method::Delete,
            b"CONNECT" => Method::Connect,
            b"OPTIONS" => Method::Options,
            b"TRACE" => Method::Trace,
            b"PATCH" => Method::Patch,
            _ => return None,
        })
    }

    /// The canonical upper-case token, e.g. `"GET"`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Head => "HEAD",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Delete => "DELETE",
            Method::Connect => "CONNECT",
            Method::Options => "OPTIONS",
            Method::Trace => "TRACE",
            Method::Patch => "PATCH",
        }
    }

    /// Position in [`Method::VARIANTS`]; the enum is declared in that order.
    pub(crate) fn index(self) -> usize {
        self as usize
    }
}

/// Which methods a route answers: one method, or every method (`app.all()`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MethodSel {
    One(Method),
    /// `app.all()`: any method, including unknown tokens. A specific-method route on the same
    /// pattern takes precedence; `All` is the fallback.
    All,
}

impl MethodSel {
    /// `"GET"`, …, or `"ALL"`; used in error messages.
    pub fn as_str(&self) -> &'static str {
        match self {
            MethodSel::One(m) => m.as_str(),
            MethodSel::All => "ALL",
        }
    }
}

/// One `Allow` string per subset of methods (2^9 of them), stored in a single buffer.
/// Built once per process so that `find` can return any union of methods seen while
/// backtracking as a `&'static str` without allocating.
struct AllowTable {
    text: String,
    spans: Vec<(u32, u32)>,
}

fn allow_table() -> &'static AllowTable {
    static TABLE: OnceLock<AllowTable> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut text = String::with_capacity(16 * 1024);
        let mut spans = Vec::with_capacity(1 << METHOD_COUNT);
        for mask in 0u32..(1 << METHOD_COUNT) {
            let start = text.len();
            for (i, m) in Method::VARIANTS.iter().enumerate() {
                if mask & (1 << i) != 0 {
                    if text.len() > start {
                        text.push_str(", ");
                    }
                    text.push_str(m.as_str());
                }
            }
            // The table is ~15 KiB, far below u32::MAX.
            spans.push((start as u32, text.len() as u32));
        }
        AllowTable { text, spans }
    })
}

/// Make sure the table exists before the first `find`, so `find` never pays for building it.
pub(crate) fn warm_allow_table() {
    allow_table();
}

/// The `Allow` header value for a method bitmask (bit i = `Method::VARIANTS[i]`).
pub(crate) fn allow_str(mask: u16) -> &'static str {
    let table = allow_table();
    let (start, end) = table.spans[usize::from(mask) & ((1 << METHOD_COUNT) - 1)];
    &table.text[start as usize..end as usize]
}

/// The bit for `m` in an allow mask.
pub(crate) fn bit(m: Method) -> u16 {
    1 << m.index()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_bytes_round_trips_and_is_case_sensitive() {
        for m in Method::VARIANTS {
            assert_eq!(Method::from_bytes(m.as_str().as_bytes()), Some(m));
            assert_eq!(Method::VARIANTS[m.index()], m);
        }
        for bad in [&b"get"[..], b"Get", b"PURGE", b"", b"GET ", b"GETX"] {
            assert_eq!(Method::from_bytes(bad), None, "{:?}", bad);
        }
    }

    #[test]
    fn allow_strings() {
        let cases: &[(&[Method], &str)] = &[
            (&[], ""),
            (&[Method::Get], "GET"),
            (
                &[Method::Get, Method::Head, Method::Post],
                "GET, HEAD, POST",
            ),
            (&[Method::Patch, Method::Delete], "DELETE, PATCH"),
            (
                &Method::VARIANTS,
                "GET, HEAD, POST, PUT, DELETE, CONNECT, OPTIONS, TRACE, PATCH",
            ),
        ];
        for (methods, want) in cases {
            let mask = methods.iter().fold(0, |acc, &m| acc | bit(m));
            assert_eq!(allow_str(mask), *want);
        }
    }

    #[test]
    fn sel_as_str() {
        assert_eq!(MethodSel::All.as_str(), "ALL");
        assert_eq!(MethodSel::One(Method::Put).as_str(), "PUT");
    }
}
