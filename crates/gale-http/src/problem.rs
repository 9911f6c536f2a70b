//! RFC 9457 problem documents for the answers the engine makes itself (404, 405, 413, 431, …) and the `Accept`
//! negotiation that picks them over plain text. The TypeScript side answers its own errors by the same rule
//! (packages/gale/src/problem.ts); tests on both sides hold them to the same table of Accept headers.

/// The media type of a problem document.
pub const PROBLEM_JSON: &[u8] = b"application/problem+json";

/// Whether a client that sent `accept` is better answered with JSON than with text: some JSON type
/// (`application/json`, `application/problem+json`, `application/*+json`) has a quality above 0 and at least that
/// of any text type or wildcard (`text/plain`, `text/html`, `text/*`, `*/*`). So `application/json` and axios's
/// `application/json, text/plain, */*` get JSON; `*/*` (fetch, curl) and a browser's `text/html,…,*/*;q=0.8` get
/// text. Malformed parts count for nothing.
///
/// ```
/// use gale_http::prefers_json;
/// assert!(prefers_json(b"application/json"));
/// assert!(prefers_json(b"application/json, text/plain, */*"));
/// assert!(!prefers_json(b"*/*"));
/// assert!(!prefers_json(b"text/html,application/xhtml+xml,*/*;q=0.8"));
/// assert!(!prefers_json(b"application/json;q=0, */*"));
/// ```
pub fn prefers_json(accept: &[u8]) -> bool {
    let mut json = 0u16;
    let mut text = 0u16;
    for range in accept.split(|&b| b == b',') {
        let mut parts = range.split(|&b| b == b';');
        let media = trim(parts.next().unwrap_or(b""));
        let mut q = 1000u16;
        for p in parts {
            let p = trim(p);
            if p.len() > 2 && p[..2].eq_ignore_ascii_case(b"q=") {
                q = quality(&p[2..]).unwrap_or(0);
            }
        }
        let Some(slash) = media.iter().position(|&b| b == b'/') else {
            continue;
        };
        let (ty, sub) = (&media[..slash], &media[slash + 1..]);
        if ty.eq_ignore_ascii_case(b"application")
            && (sub.eq_ignore_ascii_case(b"json")
                || (sub.len() > 5 && sub[sub.len() - 5..].eq_ignore_ascii_case(b"+json")))
        {
            json = json.max(q);
        } else if (ty == b"*" && sub == b"*")
            || (ty.eq_ignore_ascii_case(b"text")
                && (sub == b"*"
                    || sub.eq_ignore_ascii_case(b"plain")
                    || sub.eq_ignore_ascii_case(b"html")))
        {
            text = text.max(q);
        }
    }
    json > 0 && json >= text
}

/// A quality value (`0`, `0.5`, `1.000`) in thousandths; None when malformed.
fn quality(v: &[u8]) -> Option<u16> {
    let (int, frac) = match v.iter().position(|&b| b == b'.') {
        Some(i) => (&v[..i], &v[i + 1..]),
        None => (v, &b""[..]),
    };
    if int.len() != 1 || frac.len() > 3 || !frac.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut n = match int[0] {
        b'0' => 0u16,
        b'1' => 1000,
        _ => return None,
    };
    let mut scale = 100;
    for &d in frac {
        n += u16::from(d - b'0') * scale;
        scale /= 10;
    }
    (n <= 1000).then_some(n)
}

fn trim(b: &[u8]) -> &[u8] {
    let start = b
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(b.len());
    let end = b
        .iter()
        .rposition(|c| !c.is_ascii_whitespace())
        .map_or(start, |e| e + 1);
    &b[start..end]
}

/// The stable error code of an answer the engine makes with `status`, or None for a status it never answers on its
/// own as an error (those stay plain text). Codes are the ones `docs/errors.md` lists.
///
/// ```
/// assert_eq!(gale_http::status_error_code(404), Some("GALE_ERR_NOT_FOUND"));
/// assert_eq!(gale_http::status_error_code(301), None);
/// ```
pub fn status_error_code(status: u16) -> Option<&'static str> {
    Some(match status {
        400 => "GALE_ERR_BAD_REQUEST",
        403 => "GALE_ERR_FORBIDDEN",
        404 => "GALE_ERR_NOT_FOUND",
        405 => "GALE_ERR_METHOD_NOT_ALLOWED",
        408 => "GALE_ERR_REQUEST_TIMEOUT",
        411 => "GALE_ERR_LENGTH_REQUIRED",
        412 => "GALE_ERR_PRECONDITION_FAILED",
        413 => "GALE_ERR_BODY_TOO_LARGE",
        414 => "GALE_ERR_URI_TOO_LONG",
        416 => "GALE_ERR_RANGE_NOT_SATISFIABLE",
        417 => "GALE_ERR_EXPECTATION_FAILED",
        426 => "GALE_ERR_UPGRADE_REQUIRED",
        431 => "GALE_ERR_HEADERS_TOO_LARGE",
        501 => "GALE_ERR_NOT_IMPLEMENTED",
        503 => "GALE_ERR_UNAVAILABLE",
        505 => "GALE_ERR_VERSION_NOT_SUPPORTED",
        _ => return None,
    })
}

/// Appends the problem document of an answer: `type` `about:blank` (the status says it all), `title` the reason
/// phrase, `status`, `detail` (left out when empty or the same as the title) and Gale's `code`.
///
/// ```
/// let mut out = Vec::new();
/// gale_http::write_problem(&mut out, 404, "GALE_ERR_NOT_FOUND", "Not Found");
/// assert_eq!(
///     out,
///     br#"{"type":"about:blank","title":"Not Found","status":404,"code":"GALE_ERR_NOT_FOUND"}"#
/// );
/// ```
pub fn write_problem(out: &mut Vec<u8>, status: u16, code: &str, detail: &str) {
    let title = crate::reason(status);
    out.extend_from_slice(b"{\"type\":\"about:blank\",\"title\":");
    json_string(out, title);
    out.extend_from_slice(b",\"status\":");
    out.extend_from_slice(itoa::Buffer::new().format(status).as_bytes());
    if !detail.is_empty() && detail != title {
        out.extend_from_slice(b",\"detail\":");
        json_string(out, detail);
    }
    out.extend_from_slice(b",\"code\":");
    json_string(out, code);
    out.push(b'}');
}

/// `s` as a JSON string (RFC 8259: quote, backslash and control characters escaped).
fn json_string(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    for c in s.chars() {
        match c {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\r' => out.extend_from_slice(b"\\r"),
            '\t' => out.extend_from_slice(b"\\t"),
            c if (c as u32) < 0x20 => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                let n = c as usize;
                out.extend_from_slice(b"\\u00");
                out.push(HEX[n >> 4]);
                out.push(HEX[n & 15]);
            }
            c => {
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table packages/gale/src/problem.test.ts holds the TypeScript rule to as well.
    const ACCEPT: &[(&str, bool)] = &[
        ("application/json", true),
        ("application/problem+json", true),
        ("application/vnd.api+json", true),
        ("APPLICATION/JSON", true),
        ("application/json, text/plain, */*", true),
        ("text/plain;q=0.5, application/json", true),
        ("application/json;q=0.9, text/html", false),
        ("*/*", false),
        ("", false),
        (
            "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
            false,
        ),
        ("application/json;q=0", false),
        ("application/json;q=0, */*", false),
        ("application/json;q=0.8, */*;q=0.8", true),
        ("application/json;q=2", false),
        ("application/json;q=abc", false),
        ("application/jsonx", false),
        ("application/+json", false),
        ("text/*, application/json;q=0.1", false),
        ("image/png, application/json", true),
        ("application/json ; q=0.500 , text/plain;q=0.499", true),
    ];

    #[test]
    fn negotiation_table() {
        for (accept, want) in ACCEPT {
            assert_eq!(prefers_json(accept.as_bytes()), *want, "{accept:?}");
        }
    }

    #[test]
    fn quality_values() {
        assert_eq!(quality(b"1"), Some(1000));
        assert_eq!(quality(b"1.000"), Some(1000));
        assert_eq!(quality(b"1.001"), None);
        assert_eq!(quality(b"0.5"), Some(500));
        assert_eq!(quality(b"0.123"), Some(123));
        assert_eq!(quality(b"0.1234"), None);
        assert_eq!(quality(b"."), None);
        assert_eq!(quality(b""), None);
    }

    #[test]
    fn documents_are_json() {
        let mut out = Vec::new();
        write_problem(
            &mut out,
            413,
            "GALE_ERR_BODY_TOO_LARGE",
            "too \"big\"\\\n\u{1}é",
        );
        assert_eq!(
            std::str::from_utf8(&out).unwrap(),
            r#"{"type":"about:blank","title":"Content Too Large","status":413,"detail":"too \"big\"\\\n\u0001é","code":"GALE_ERR_BODY_TOO_LARGE"}"#
        );
        for status in 100..600 {
            if let Some(code) = status_error_code(status) {
                assert!(code.starts_with("GALE_ERR_"));
                assert!(status >= 400, "{status}");
            }
        }
    }
}
