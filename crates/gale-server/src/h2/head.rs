//! Transcoding between an HTTP/2 stream and the HTTP/1.1 forms the rest of the engine already handles, with no
//! socket in sight: a request's pseudo-headers and fields become an HTTP/1.1 head (parsed by gale-http like any
//! other, so limits, routing and the JS request API are the same), and the HTTP/1.1 response head the engine
//! wrote for a reply becomes the status and fields of an HTTP/2 HEADERS frame.

use bytes::Bytes;
use http::header::{HeaderName, HeaderValue, COOKIE, HOST};
use http::{HeaderMap, Response, StatusCode};

/// Writes the HTTP/1.1 request head equivalent to an HTTP/2 request into `out`: `:method :path HTTP/1.1`,
/// `Host` from `:authority` (a `host` field that names another authority stays too, so the head has two and is
/// refused with 400, as RFC 9113 §8.3.1 asks; with neither, an empty `Host`, as RFC 9112 §3.2 has for a target
/// without authority), the fields as sent, and the `cookie` fields joined into one with `; ` (RFC 9113 §8.2.3).
/// Field values cannot hold CR, LF or NUL (the http crate refuses them), so nothing can be smuggled into the head.
pub(crate) fn request_head(parts: &http::request::Parts, out: &mut Vec<u8>) {
    out.extend_from_slice(parts.method.as_str().as_bytes());
    out.push(b' ');
    match parts.uri.path_and_query() {
        Some(pq) if !pq.as_str().is_empty() => out.extend_from_slice(pq.as_str().as_bytes()),
        // CONNECT has no :path; its target is the authority.
        _ => match parts.uri.authority() {
            Some(a) => out.extend_from_slice(a.as_str().as_bytes()),
            None => out.push(b'/'),
        },
    }
    out.extend_from_slice(b" HTTP/1.1\r\n");
    let authority = parts.uri.authority().map(|a| a.as_str().as_bytes());
    match authority {
        Some(a) => field(out, b"host", a),
        None if !parts.headers.contains_key(HOST) => field(out, b"host", b""),
        None => {}
    }
    let mut cookies = 0;
    for (name, value) in &parts.headers {
        if name == COOKIE {
            cookies += 1;
            continue;
        }
        if name == HOST && authority.is_some_and(|a| a.eq_ignore_ascii_case(value.as_bytes())) {
            continue;
        }
        field(out, name.as_str().as_bytes(), value.as_bytes());
    }
    if cookies > 0 {
        out.extend_from_slice(b"cookie: ");
        for (i, v) in parts.headers.get_all(COOKIE).iter().enumerate() {
            if i > 0 {
                out.extend_from_slice(b"; ");
            }
            out.extend_from_slice(v.as_bytes());
        }
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"\r\n");
}

fn field(out: &mut Vec<u8>, name: &[u8], value: &[u8]) {
    out.extend_from_slice(name);
    out.extend_from_slice(b": ");
    out.extend_from_slice(value);
    out.extend_from_slice(b"\r\n");
}

/// Fields that describe an HTTP/1.1 connection, which HTTP/2 forbids (RFC 9113 §8.2.2): dropped.
fn connection_specific(name: &[u8]) -> bool {
    name.eq_ignore_ascii_case(b"connection")
        || name.eq_ignore_ascii_case(b"keep-alive")
        || name.eq_ignore_ascii_case(b"transfer-encoding")
        || name.eq_ignore_ascii_case(b"upgrade")
        || name.eq_ignore_ascii_case(b"proxy-connection")
}

/// Parses the HTTP/1.1 response head at the start of `out` (as the engine writes it: a status line, `Name: value`
/// lines, a blank line) into a response for HTTP/2. Returns the response and the head's length, or None when
/// `out` holds no complete head. Connection-specific fields are dropped; the reason phrase has no place in HTTP/2.
pub(crate) fn response_head(out: &[u8]) -> Option<(Response<()>, usize)> {
    let end = memchr_crlfcrlf(out)?;
    let head = &out[..end];
    let mut lines = head
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l));
    let status_line = lines.next()?;
    let code = status_line.get(9..12)?;
    if !status_line.starts_with(b"HTTP/1.") || !code.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let status = StatusCode::from_bytes(code).ok()?;
    let mut headers = HeaderMap::new();
    for line in lines {
        if line.is_empty() {
            continue;
        }
        let Some(colon) = line.iter().position(|&b| b == b':') else {
            continue;
        };
        let name = &line[..colon];
        if connection_specific(name) {
            continue;
        }
        let value = trim(&line[colon + 1..]);
        // The engine validated both when the app set them; anything the http crate still refuses is left out.
        if let (Ok(n), Ok(v)) = (
            HeaderName::from_bytes(name),
            HeaderValue::from_maybe_shared(Bytes::copy_from_slice(value)),
        ) {
            headers.append(n, v);
        }
    }
    let mut resp = Response::new(());
    *resp.status_mut() = status;
    *resp.headers_mut() = headers;
    Some((resp, end + 4))
}

/// Where the head's blank line starts (the index of `\r\n\r\n`).
fn memchr_crlfcrlf(b: &[u8]) -> Option<usize> {
    b.windows(4).position(|w| w == b"\r\n\r\n")
}

fn trim(v: &[u8]) -> &[u8] {
    let start = v
        .iter()
        .position(|&b| b != b' ' && b != b'\t')
        .unwrap_or(v.len());
    let end = v
        .iter()
        .rposition(|&b| b != b' ' && b != b'\t')
        .map_or(start, |e| e + 1);
    &v[start..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(req: http::Request<()>) -> http::request::Parts {
        req.into_parts().0
    }

    #[test]
    fn a_request_becomes_an_http1_head_gale_http_parses() {
        let req = http::Request::builder()
            .method("POST")
            .uri("https://example.com:8443/items/7?x=1&y=%20")
            .header("content-type", "application/json")
            .header("cookie", "a=1")
            .header("x-many", "one")
            .header("cookie", "b=2")
            .header("x-many", "two")
            .body(())
            .unwrap();
        let mut out = Vec::new();
        request_head(&parts(req), &mut out);
        let text = String::from_utf8(out.clone()).unwrap();
        assert!(text.starts_with("POST /items/7?x=1&y=%20 HTTP/1.1\r\nhost: example.com:8443\r\n"));
        assert!(text.ends_with("cookie: a=1; b=2\r\n\r\n"), "{text}");
        let mut spans = Vec::new();
        let head = gale_http::parse_head(&out, &gale_http::Limits::default(), &mut spans)
            .unwrap()
            .unwrap();
        assert_eq!(head.head_len, out.len());
        assert_eq!(head.path.get(&out), b"/items/7");
        assert_eq!(head.query.unwrap().get(&out), b"x=1&y=%20");
        let names: Vec<&[u8]> = spans.iter().map(|h| h.name.get(&out)).collect();
        assert_eq!(
            names,
            [
                &b"host"[..],
                b"content-type",
                b"x-many",
                b"x-many",
                b"cookie"
            ]
        );
    }

    #[test]
    fn host_and_authority_and_odd_targets() {
        let parse = |out: &[u8]| {
            gale_http::parse_head(out, &gale_http::Limits::default(), &mut Vec::new())
                .map(|h| h.is_some())
        };
        // The same authority twice: one Host.
        let req = http::Request::builder()
            .uri("http://a.example/")
            .header("host", "A.example")
            .body(())
            .unwrap();
        let mut out = Vec::new();
        request_head(&parts(req), &mut out);
        assert_eq!(out, b"GET / HTTP/1.1\r\nhost: a.example\r\n\r\n");
        // Two authorities: refused (400), as a request with two Host fields is.
        let req = http::Request::builder()
            .uri("http://a.example/")
            .header("host", "b.example")
            .body(())
            .unwrap();
        out.clear();
        request_head(&parts(req), &mut out);
        assert_eq!(parse(&out).unwrap_err().status(), 400);
        // A host field and no :authority.
        let req = http::Request::builder()
            .uri("/p")
            .header("host", "b.example")
            .body(())
            .unwrap();
        out.clear();
        request_head(&parts(req), &mut out);
        assert_eq!(out, b"GET /p HTTP/1.1\r\nhost: b.example\r\n\r\n");
        // Neither: an empty Host, which parses.
        let req = http::Request::builder().uri("/p").body(()).unwrap();
        out.clear();
        request_head(&parts(req), &mut out);
        assert_eq!(out, b"GET /p HTTP/1.1\r\nhost: \r\n\r\n");
        assert_eq!(parse(&out), Ok(true));

        let req = http::Request::builder()
            .method("OPTIONS")
            .uri("*")
            .body(())
            .unwrap();
        out.clear();
        request_head(&parts(req), &mut out);
        assert_eq!(out, b"OPTIONS * HTTP/1.1\r\nhost: \r\n\r\n");

        let req = http::Request::builder()
            .method("CONNECT")
            .uri("example.com:443")
            .body(())
            .unwrap();
        out.clear();
        request_head(&parts(req), &mut out);
        assert_eq!(
            out,
            b"CONNECT example.com:443 HTTP/1.1\r\nhost: example.com:443\r\n\r\n"
        );
    }

    #[test]
    fn an_engine_response_head_becomes_status_and_fields() {
        let out = b"HTTP/1.1 201 Created\r\nDate: Mon, 01 Jan 2024 00:00:00 GMT\r\nContent-Type: text/plain\r\n\
X-Two: a\r\nX-Two:  b \r\nConnection: close\r\nTransfer-Encoding: chunked\r\nKeep-Alive: timeout=5\r\n\
Content-Length: 5\r\n\r\nhello";
        let (resp, len) = response_head(out).unwrap();
        assert_eq!(&out[len..], b"hello");
        assert_eq!(resp.status(), 201);
        let h = resp.headers();
        assert_eq!(h["content-type"], "text/plain");
        assert_eq!(h["content-length"], "5");
        let two: Vec<_> = h.get_all("x-two").iter().collect();
        assert_eq!(two, ["a", "b"]);
        assert!(h.get("connection").is_none());
        assert!(h.get("transfer-encoding").is_none());
        assert!(h.get("keep-alive").is_none());
        assert_eq!(h.len(), 5);
    }

    #[test]
    fn an_incomplete_or_foreign_head_is_none() {
        assert!(response_head(b"HTTP/1.1 200 OK\r\nX: y\r\n").is_none());
        assert!(response_head(b"").is_none());
        assert!(response_head(b"HTTP/1.1 2x0 OK\r\n\r\n").is_none());
        assert!(response_head(b"SMTP 220\r\n\r\n").is_none());
        let (resp, len) = response_head(b"HTTP/1.1 404 Nope\r\n\r\n").unwrap();
        assert_eq!((resp.status().as_u16(), len), (404, 21));
    }
}
