//! The request-target beyond what httparse checks: split into path and query by its form
//! (origin, absolute, authority or asterisk), rejecting forms that do not fit the method.

use crate::error::{Error, Kind};

/// Path and query of a request-target as offsets into the target, `(path, query)`.
pub(crate) type Split = ((usize, usize), Option<(usize, usize)>);

/// Splits `target` (RFC 9112 §3.2) into path and query, rejecting forms that do not fit `method`.
pub(crate) fn split_target(method: &[u8], target: &[u8]) -> Result<Split, Error> {
    let bad = || Error::new(Kind::BadTarget);
    if !target.is_ascii() {
        // httparse lets bytes 0x80–0xFF through for old clients; node:http and RFC 3986 do not.
        return Err(Error::new(Kind::NonAsciiTarget));
    }
    if method == b"CONNECT" {
        // authority-form: there is no path; hand the whole authority over.
        return Ok(((0, target.len()), None));
    }
    let path_start = match target.first() {
        Some(b'/') => 0,
        Some(b'*') if target.len() == 1 => {
            return if method == b"OPTIONS" {
                Ok(((0, 1), None))
            } else {
                Err(bad())
            };
        }
        _ => authority_end(target).ok_or_else(bad)?,
    };
    let rest = &target[path_start..];
    Ok(match memchr::memchr(b'?', rest) {
        Some(q) => (
            (path_start, path_start + q),
            Some((path_start + q + 1, target.len())),
        ),
        None => ((path_start, target.len()), None),
    })
}

/// For absolute-form `scheme "://" authority [path] ["?" query]`, the offset where the
/// authority ends; None if `target` is not absolute-form.
fn authority_end(target: &[u8]) -> Option<usize> {
    let colon = memchr::memchr(b':', target)?;
    let scheme = &target[..colon];
    let scheme_ok = scheme.first().is_some_and(u8::is_ascii_alphabetic)
        && scheme
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'));
    if !scheme_ok || !target[colon..].starts_with(b"://") {
        return None;
    }
    let authority = colon + 3;
    Some(
        target[authority..]
            .iter()
            .position(|&b| b == b'/' || b == b'?')
            .map_or(target.len(), |p| authority + p),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{parse_head, Limits};

    /// Expected (path, query) of a row.
    type Want = Result<(&'static str, Option<&'static str>), Kind>;

    #[test]
    fn split_forms() {
        // (method, target, path, query)
        let table: &[(&str, &str, Want)] = &[
            ("GET", "/", Ok(("/", None))),
            ("GET", "/a/b?x=1&y", Ok(("/a/b", Some("x=1&y")))),
            ("GET", "/?", Ok(("/", Some("")))),
            ("GET", "/a?b?c", Ok(("/a", Some("b?c")))),
            ("GET", "//x", Ok(("//x", None))),
            ("GET", "http://h/p?q", Ok(("/p", Some("q")))),
            ("GET", "HTTPS://h:1/p", Ok(("/p", None))),
            ("GET", "http://h", Ok(("", None))),
            ("GET", "http://h?q", Ok(("", Some("q")))),
            ("OPTIONS", "*", Ok(("*", None))),
            ("CONNECT", "h:443", Ok(("h:443", None))),
            ("GET", "*", Err(Kind::BadTarget)),
            ("GET", "a/b", Err(Kind::BadTarget)),
            ("GET", "h:443", Err(Kind::BadTarget)),
            ("GET", "1http://h/", Err(Kind::BadTarget)),
            ("GET", "http:/h/", Err(Kind::BadTarget)),
            ("OPTIONS", "**", Err(Kind::BadTarget)),
            ("GET", "/caf\u{e9}", Err(Kind::NonAsciiTarget)),
            ("GET", "/a?q=\u{e9}", Err(Kind::NonAsciiTarget)),
            ("GET", "http://h\u{e9}/", Err(Kind::NonAsciiTarget)),
            ("GET", "/caf%C3%A9", Ok(("/caf%C3%A9", None))),
        ];
        for (method, target, want) in table {
            let got = split_target(method.as_bytes(), target.as_bytes())
                .map(|((ps, pe), q)| (&target[ps..pe], q.map(|(qs, qe)| &target[qs..qe])))
                .map_err(|e| e.kind());
            assert_eq!(got, *want, "{method} {target}");
        }
    }

    #[test]
    fn target_forms() {
        // (method, target, path, query)
        let table: &[(&str, &str, &str, Option<&str>)] = &[
            ("GET", "/", "/", None),
            ("GET", "/p?q=1&r", "/p", Some("q=1&r")),
            ("GET", "/p?", "/p", Some("")),
            ("GET", "http://h/p?q", "/p", Some("q")),
            ("GET", "http://h:8080", "", None),
            ("OPTIONS", "*", "*", None),
            ("CONNECT", "h:443", "h:443", None),
        ];
        for (method, target, path, query) in table {
            let req = format!("{method} {target} HTTP/1.1\r\nHost: h\r\n\r\n");
            let buf = req.as_bytes();
            let head = parse_head(buf, &Limits::default(), &mut Vec::new())
                .unwrap()
                .unwrap();
            assert_eq!(head.method.get(buf), method.as_bytes());
            assert_eq!(head.target.get(buf), target.as_bytes());
            assert_eq!(head.path.get(buf), path.as_bytes(), "{req}");
            assert_eq!(
                head.query.map(|q| q.get(buf)),
                query.map(str::as_bytes),
                "{req}"
            );
        }
    }

    #[test]
    fn raw_non_ascii_in_the_request_line_is_400() {
        // httparse accepts the bytes; the head is refused with a message saying to percent-encode.
        let err = parse_head(
            b"GET /caf\xc3\xa9 HTTP/1.1\r\nHost: h\r\n\r\n",
            &Limits::default(),
            &mut Vec::new(),
        )
        .unwrap_err();
        assert_eq!(err.status(), 400);
        assert!(
            err.message().contains("Percent-encode"),
            "{}",
            err.message()
        );
    }
}
