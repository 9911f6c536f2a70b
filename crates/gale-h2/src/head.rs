//! Between an HTTP/2 stream and the forms the rest of the engine handles, with no socket in sight: a request's
//! pseudo-headers and fields become an HTTP/1.1 head (parsed by gale-http like any other, so limits, routing and
//! the JS request API are the same), and a reply's fields (gale-http's `ResponseHead`, the same the HTTP/1.1
//! encoder takes) become the status and fields of an HTTP/2 HEADERS frame.

use gale_http::{field_lines, has_no_body, ResponseHead};
use http::header::{HeaderName, HeaderValue, CONTENT_LENGTH, CONTENT_TYPE, COOKIE, HOST};
use http::{HeaderMap, Response, StatusCode};

/// Writes the HTTP/1.1 request head equivalent to an HTTP/2 request into `out`: `:method :path HTTP/1.1`,
/// `Host` from `:authority` (a `host` field that names another authority stays too, so the head has two and is
/// refused with 400, as RFC 9113 §8.3.1 asks; with neither, an empty `Host`, as RFC 9112 §3.2 has for a target
/// without authority), the fields as sent, and the `cookie` fields joined into one with `; ` (RFC 9113 §8.2.3).
/// Field values cannot hold CR, LF or NUL (the http crate refuses them), so nothing can be smuggled into the head.
pub fn request_head(parts: &http::request::Parts, out: &mut Vec<u8>) {
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

/// Fields that describe an HTTP/1.1 connection, which HTTP/2 and HTTP/3 forbid (RFC 9113 §8.2.2, RFC 9114 §4.2):
/// dropped.
///
/// ```
/// assert!(gale_h2::connection_specific(b"Transfer-Encoding"));
/// assert!(!gale_h2::connection_specific(b"content-length"));
/// ```
pub fn connection_specific(name: &[u8]) -> bool {
    name.eq_ignore_ascii_case(b"connection")
        || name.eq_ignore_ascii_case(b"keep-alive")
        || name.eq_ignore_ascii_case(b"transfer-encoding")
        || name.eq_ignore_ascii_case(b"upgrade")
        || name.eq_ignore_ascii_case(b"proxy-connection")
}

/// The HTTP/2 or HTTP/3 response for a response head the engine wrote as HTTP/1.1 and gale-http parsed back
/// (`ParsedResponse`): its status and fields in order, the connection-specific ones dropped. A status the `http` crate
/// refuses is sent as 500; so is a field it refuses left out.
///
/// ```
/// let fields: [(&[u8], &[u8]); 3] = [(b"Set-Cookie", b"a=1"), (b"Connection", b"close"), (b"Set-Cookie", b"b=2")];
/// let resp = gale_h2::response_from_fields(404, &fields);
/// assert_eq!(resp.status(), 404);
/// assert_eq!(resp.headers().get_all("set-cookie").iter().count(), 2);
/// assert!(resp.headers().get("connection").is_none());
/// ```
pub fn response_from_fields(status: u16, fields: &[(&[u8], &[u8])]) -> Response<()> {
    let mut resp = Response::new(());
    *resp.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let headers = resp.headers_mut();
    for (name, value) in fields {
        if connection_specific(name) {
            continue;
        }
        if let (Ok(n), Ok(v)) = (HeaderName::from_bytes(name), HeaderValue::from_bytes(value)) {
            headers.append(n, v);
        }
    }
    resp
}

/// The HTTP/2 response for a reply's fields: its status, Content-Type, the fields (connection-specific ones
/// dropped, RFC 9113 §8.2.2), and Content-Length when the body's length is known. The reason phrase has no place
/// in HTTP/2. A status outside 100..=999 is sent as 500, as the HTTP/1.1 encoder does; a field the `http` crate
/// refuses (the engine validated them when the app set them) is left out.
///
/// ```
/// let head = gale_http::ResponseHead {
///     status: 201,
///     reason: b"Made",
///     content_type: b"text/plain",
///     fields: b"X-A: 1\r\nConnection: close\r\n",
///     body_len: Some(5),
/// };
/// let resp = gale_h2::response(&head);
/// assert_eq!(resp.status(), 201);
/// assert_eq!(resp.headers()["content-length"], "5");
/// assert!(resp.headers().get("connection").is_none());
/// ```
pub fn response(head: &ResponseHead<'_>) -> Response<()> {
    let status = StatusCode::from_u16(head.status)
        .ok()
        .filter(|s| (100..=999).contains(&s.as_u16()))
        .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut headers = HeaderMap::new();
    if !head.content_type.is_empty() {
        if let Ok(v) = HeaderValue::from_bytes(head.content_type) {
            headers.insert(CONTENT_TYPE, v);
        }
    }
    for (name, value) in field_lines(head.fields) {
        if connection_specific(name) {
            continue;
        }
        if let (Ok(n), Ok(v)) = (HeaderName::from_bytes(name), HeaderValue::from_bytes(value)) {
            headers.append(n, v);
        }
    }
    if let Some(n) = head.body_len {
        if !has_no_body(status.as_u16()) {
            headers.insert(CONTENT_LENGTH, HeaderValue::from(n));
        }
    }
    let mut resp = Response::new(());
    *resp.status_mut() = status;
    *resp.headers_mut() = headers;
    resp
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

    fn head<'a>(
        status: u16,
        ct: &'a [u8],
        fields: &'a [u8],
        body_len: Option<u64>,
    ) -> ResponseHead<'a> {
        ResponseHead {
            status,
            reason: b"Whatever",
            content_type: ct,
            fields,
            body_len,
        }
    }

    #[test]
    fn reply_fields_become_status_and_fields() {
        let resp = response(&head(
            201,
            b"text/plain",
            b"X-Two: a\r\nX-Two:  b \r\nConnection: close\r\nTransfer-Encoding: chunked\r\nKeep-Alive: timeout=5\r\n\
              Upgrade: h2c\r\nProxy-Connection: x\r\n",
            Some(5),
        ));
        assert_eq!(resp.status(), 201);
        let h = resp.headers();
        assert_eq!(h["content-type"], "text/plain");
        assert_eq!(h["content-length"], "5");
        let two: Vec<_> = h.get_all("x-two").iter().collect();
        assert_eq!(two, ["a", "b"]);
        for gone in [
            "connection",
            "transfer-encoding",
            "keep-alive",
            "upgrade",
            "proxy-connection",
        ] {
            assert!(h.get(gone).is_none(), "{gone}");
        }
        assert_eq!(h.len(), 4);
    }

    #[test]
    fn streamed_bodiless_and_odd_replies() {
        let resp = response(&head(200, b"", b"", None));
        assert!(
            resp.headers().get("content-length").is_none(),
            "streamed: no length"
        );
        assert!(resp.headers().is_empty());
        let resp = response(&head(304, b"", b"ETag: \"a\"\r\n", Some(12)));
        assert!(
            resp.headers().get("content-length").is_none(),
            "304 has no body"
        );
        assert_eq!(resp.headers()["etag"], "\"a\"");
        assert_eq!(response(&head(1000, b"", b"", Some(0))).status(), 500);
        assert_eq!(response(&head(99, b"", b"", Some(0))).status(), 500);
        // A field h2 cannot carry (an upper-case or empty name after the engine's checks) is left out.
        let resp = response(&head(200, b"", b"Bad Name: x\r\n: y\r\nOk: 1\r\n", Some(0)));
        assert_eq!(resp.headers().len(), 2, "{:?}", resp.headers());
    }

    #[test]
    fn connection_fields_are_dropped_and_the_rest_kept_in_order() {
        let fields: [(&[u8], &[u8]); 5] = [
            (b"Content-Type", b"text/plain"),
            (b"Connection", b"keep-alive"),
            (b"Transfer-Encoding", b"chunked"),
            (b"Set-Cookie", b"a=1"),
            (b"Set-Cookie", b"b=2"),
        ];
        let r = response_from_fields(201, &fields);
        assert_eq!(r.status(), 201);
        assert_eq!(r.headers().len(), 3);
        assert!(r.headers().get("connection").is_none());
        assert!(r.headers().get("transfer-encoding").is_none());
        let cookies: Vec<_> = r.headers().get_all("set-cookie").iter().collect();
        assert_eq!(cookies, ["a=1", "b=2"]);
    }
}
