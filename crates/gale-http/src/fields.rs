//! Header-field semantics of a request head: body framing (Content-Length, Transfer-Encoding),
//! persistence (Connection), Upgrade, Expect and Host, with the smuggling-relevant checks.

use crate::error::{Error, Kind};

/// How the request body is framed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyKind {
    /// No body (no framing header, or `Content-Length: 0`).
    None,
    /// Exactly this many bytes follow the head.
    Length(u64),
    /// `Transfer-Encoding: chunked`: feed the bytes after the head to a [`crate::ChunkedDecoder`].
    Chunked,
}

/// What the framing-relevant headers of one request say.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Fields {
    pub body: Option<BodyKind>,
    pub conn_close: bool,
    pub conn_keep_alive: bool,
    pub conn_upgrade: bool,
    pub upgrade_header: bool,
    pub expect_continue: bool,
}

/// Reads every header once and applies RFC 9112 §6 framing rules. `minor` is the HTTP minor
/// version (0 or 1). `strict_host`: a Host value must be `host[:port]` characters (RFC 9112
/// §3.2); without it any value passes, as node:http accepts (one Host on HTTP/1.1 either way).
pub(crate) fn analyze<'a>(
    minor: u8,
    strict_host: bool,
    headers: impl Iterator<Item = (&'a [u8], &'a [u8])>,
) -> Result<Fields, Error> {
    let mut f = Fields::default();
    let mut content_length: Option<u64> = None;
    let mut te = TeState::default();
    let mut hosts = 0u32;
    let mut host_ok = true;
    let mut expect_bad = false;

    for (name, value) in headers {
        // Dispatch on length first: almost every header is rejected by one integer compare.
        match name.len() {
            4 if name.eq_ignore_ascii_case(b"host") => {
                hosts += 1;
                host_ok &= !strict_host || is_host(value);
            }
            6 if name.eq_ignore_ascii_case(b"expect") => {
                if value.eq_ignore_ascii_case(b"100-continue") {
                    f.expect_continue = true;
                } else if !value.is_empty() {
                    expect_bad = true;
                }
            }
            7 if name.eq_ignore_ascii_case(b"upgrade") => f.upgrade_header = true,
            10 if name.eq_ignore_ascii_case(b"connection") => {
                for token in list_elements(value) {
                    if token.eq_ignore_ascii_case(b"close") {
                        f.conn_close = true;
                    } else if token.eq_ignore_ascii_case(b"keep-alive") {
                        f.conn_keep_alive = true;
                    } else if token.eq_ignore_ascii_case(b"upgrade") {
                        f.conn_upgrade = true;
                    }
                }
            }
            14 if name.eq_ignore_ascii_case(b"content-length") => {
                for element in value.split(|&b| b == b',') {
                    let n = parse_decimal(trim_ows(element))?;
                    match content_length {
                        Some(prev) if prev != n => {
                            return Err(Error::new(Kind::ConflictingContentLength))
                        }
                        _ => content_length = Some(n),
                    }
                }
            }
            17 if name.eq_ignore_ascii_case(b"transfer-encoding") => te.add(value),
            _ => {}
        }
    }

    if te.seen {
        // An HTTP/1.0 peer cannot have meant chunked framing; guessing invites smuggling.
        if minor == 0 {
            return Err(Error::new(Kind::BadTransferEncoding));
        }
        if content_length.is_some() {
            return Err(Error::new(Kind::ContentLengthWithTransferEncoding));
        }
        if !te.final_is_chunked() {
            return Err(Error::new(Kind::BadTransferEncoding));
        }
        // RFC 9112 §6.1: a coding we do not decode gets 501, never a still-encoded body.
        if te.other {
            return Err(Error::new(Kind::UnsupportedTransferCoding));
        }
        f.body = Some(BodyKind::Chunked);
    } else {
        f.body = content_length.map(|n| {
            if n == 0 {
                BodyKind::None
            } else {
                BodyKind::Length(n)
            }
        });
    }

    if minor == 1 {
        match hosts {
            0 => return Err(Error::new(Kind::MissingHost)),
            1 => {}
            _ => return Err(Error::new(Kind::BadHost)),
        }
    } else if hosts > 1 {
        return Err(Error::new(Kind::BadHost));
    }
    if !host_ok {
        return Err(Error::new(Kind::BadHost));
    }
    // Last on purpose: 417 only makes sense for an otherwise well-formed request.
    if expect_bad {
        return Err(Error::new(Kind::ExpectationFailed));
    }
    Ok(f)
}

/// Transfer-Encoding codings seen so far, across every Transfer-Encoding header in order.
#[derive(Default)]
struct TeState {
    seen: bool,
    /// The last non-empty coding was `chunked`.
    last_chunked: bool,
    /// `chunked` appeared before another coding (chunked applied twice, or not last).
    chunked_not_last: bool,
    /// A coding other than `chunked` (gzip, deflate, …) was listed.
    other: bool,
}

impl TeState {
    fn add(&mut self, value: &[u8]) {
        self.seen = true;
        for coding in list_elements(value) {
            if self.last_chunked {
                self.chunked_not_last = true;
            }
            self.last_chunked = coding.eq_ignore_ascii_case(b"chunked");
            self.other |= !self.last_chunked;
        }
    }

    fn final_is_chunked(&self) -> bool {
        self.last_chunked && !self.chunked_not_last
    }
}

/// Non-empty, OWS-trimmed elements of a comma-separated list (RFC 9110 §5.6.1).
fn list_elements(value: &[u8]) -> impl Iterator<Item = &[u8]> {
    value
        .split(|&b| b == b',')
        .map(trim_ows)
        .filter(|e| !e.is_empty())
}

fn trim_ows(mut s: &[u8]) -> &[u8] {
    while let [b' ' | b'\t', rest @ ..] = s {
        s = rest;
    }
    while let [rest @ .., b' ' | b'\t'] = s {
        s = rest;
    }
    s
}

/// `1*DIGIT` that fits a u64: no sign, no inner whitespace, no empty value.
fn parse_decimal(s: &[u8]) -> Result<u64, Error> {
    if s.is_empty() {
        return Err(Error::new(Kind::BadContentLength));
    }
    let mut n: u64 = 0;
    for &b in s {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            return Err(Error::new(Kind::BadContentLength));
        }
        n = n
            .checked_mul(10)
            .and_then(|n| n.checked_add(u64::from(digit)))
            .ok_or(Error::new(Kind::BadContentLength))?;
    }
    Ok(n)
}

/// `uri-host [":" port]` by character class: reg-name, IPv4 and IP-literal characters only, so
/// a Host value can never smuggle a path, userinfo or whitespace into URL reconstruction.
fn is_host(value: &[u8]) -> bool {
    value.iter().all(|&b| {
        b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'-' | b'.'
                    | b'_'
                    | b'~'
                    | b'%'
                    | b'!'
                    | b'$'
                    | b'&'
                    | b'\''
                    | b'('
                    | b')'
                    | b'*'
                    | b'+'
                    | b','
                    | b';'
                    | b'='
                    | b':'
                    | b'['
                    | b']'
            )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Header fields of a test row.
    type Hs = &'static [(&'static str, &'static str)];

    fn run(minor: u8, headers: &[(&str, &str)]) -> Result<Fields, Kind> {
        run_host(minor, true, headers)
    }

    fn run_host(minor: u8, strict_host: bool, headers: &[(&str, &str)]) -> Result<Fields, Kind> {
        analyze(
            minor,
            strict_host,
            headers.iter().map(|(n, v)| (n.as_bytes(), v.as_bytes())),
        )
        .map_err(|e| e.kind())
    }

    #[test]
    fn lenient_host_takes_any_value_but_still_exactly_one() {
        let url_like = &[("Host", "http://example.com")];
        assert_eq!(run(1, url_like).map(|_| ()), Err(Kind::BadHost));
        assert!(run_host(1, false, url_like).is_ok());
        assert_eq!(
            run_host(1, false, &[("Host", "a"), ("Host", "b")]).map(|_| ()),
            Err(Kind::BadHost)
        );
        assert_eq!(run_host(1, false, &[]).map(|_| ()), Err(Kind::MissingHost));
    }

    #[test]
    fn body_framing() {
        use BodyKind::{Chunked, Length};
        let ok: &[(Hs, Option<BodyKind>)] = &[
            (&[], Option::None),
            (&[("Content-Length", "5")], Some(Length(5))),
            (&[("content-length", "0")], Some(BodyKind::None)),
            (&[("Content-Length", "007")], Some(Length(7))),
            (
                &[("Content-Length", "5"), ("Content-Length", "5")],
                Some(Length(5)),
            ),
            (&[("Content-Length", "5, 5")], Some(Length(5))),
            (
                &[("Content-Length", "18446744073709551615")],
                Some(Length(u64::MAX)),
            ),
            (&[("Transfer-Encoding", "chunked")], Some(Chunked)),
            (&[("Transfer-Encoding", "CHUNKED")], Some(Chunked)),
            (&[("Transfer-Encoding", ",  chunked ")], Some(Chunked)),
        ];
        for (headers, body) in ok {
            let mut h = vec![("Host", "x")];
            h.extend_from_slice(headers);
            assert_eq!(run(1, &h).map(|f| f.body), Ok(*body), "{headers:?}");
        }
    }

    #[test]
    fn framing_errors() {
        use Kind::*;
        let table: &[(u8, Hs, Kind)] = &[
            (1, &[("Content-Length", "+5")], BadContentLength),
            (1, &[("Content-Length", "-1")], BadContentLength),
            (1, &[("Content-Length", "5 5")], BadContentLength),
            (1, &[("Content-Length", "")], BadContentLength),
            (1, &[("Content-Length", "5,")], BadContentLength),
            (1, &[("Content-Length", "0x5")], BadContentLength),
            (
                1,
                &[("Content-Length", "18446744073709551616")],
                BadContentLength,
            ),
            (
                1,
                &[("Content-Length", "99999999999999999999999")],
                BadContentLength,
            ),
            (
                1,
                &[("Content-Length", "5"), ("Content-Length", "6")],
                ConflictingContentLength,
            ),
            (1, &[("Content-Length", "5, 6")], ConflictingContentLength),
            (
                1,
                &[("Content-Length", "5"), ("Transfer-Encoding", "chunked")],
                ContentLengthWithTransferEncoding,
            ),
            (
                1,
                &[("Transfer-Encoding", "chunked, gzip")],
                BadTransferEncoding,
            ),
            (
                1,
                &[("Transfer-Encoding", "gzip, chunked")],
                UnsupportedTransferCoding,
            ),
            (
                1,
                &[
                    ("Transfer-Encoding", "gzip"),
                    ("Transfer-Encoding", "CHUNKED"),
                ],
                UnsupportedTransferCoding,
            ),
            (
                1,
                &[("Transfer-Encoding", "chunked, chunked")],
                BadTransferEncoding,
            ),
            (
                1,
                &[
                    ("Transfer-Encoding", "chunked"),
                    ("Transfer-Encoding", "gzip"),
                ],
                BadTransferEncoding,
            ),
            (1, &[("Transfer-Encoding", "gzip")], BadTransferEncoding),
            (1, &[("Transfer-Encoding", "")], BadTransferEncoding),
            (
                1,
                &[("Transfer-Encoding", "chunked;x=1")],
                BadTransferEncoding,
            ),
            (0, &[("Transfer-Encoding", "chunked")], BadTransferEncoding),
            (1, &[("Expect", "200-ok")], ExpectationFailed),
        ];
        for (minor, headers, kind) in table {
            let mut h = vec![("Host", "x")];
            h.extend_from_slice(headers);
            assert_eq!(run(*minor, &h).map(|f| f.body), Err(*kind), "{headers:?}");
        }
    }

    #[test]
    fn host_rules() {
        let table: &[(u8, Hs, Result<(), Kind>)] = &[
            (1, &[("Host", "example.com")], Ok(())),
            (1, &[("HOST", "example.com:8080")], Ok(())),
            (1, &[("Host", "[::1]:80")], Ok(())),
            (1, &[("Host", "")], Ok(())),
            (0, &[], Ok(())),
            (0, &[("Host", "a")], Ok(())),
            (1, &[], Err(Kind::MissingHost)),
            (1, &[("Host", "a"), ("Host", "a")], Err(Kind::BadHost)),
            (0, &[("Host", "a"), ("Host", "b")], Err(Kind::BadHost)),
            (1, &[("Host", "a b")], Err(Kind::BadHost)),
            (1, &[("Host", "a/b")], Err(Kind::BadHost)),
            (1, &[("Host", "u@a")], Err(Kind::BadHost)),
        ];
        for (minor, headers, want) in table {
            assert_eq!(run(*minor, headers).map(|_| ()), *want, "{headers:?}");
        }
    }

    #[test]
    fn connection_expect_upgrade() {
        // (headers, close, keep-alive, upgrade token, Upgrade header, 100-continue)
        let table: &[(Hs, [bool; 5])] = &[
            (
                &[("Connection", "close")],
                [true, false, false, false, false],
            ),
            (
                &[("Connection", "Keep-Alive, Upgrade")],
                [false, true, true, false, false],
            ),
            (
                &[("connection", "x, CLOSE"), ("Upgrade", "websocket")],
                [true, false, false, true, false],
            ),
            (
                &[("Connection", "closed")],
                [false, false, false, false, false],
            ),
            (
                &[("Connection", "upgrade"), ("Connection", "keep-alive")],
                [false, true, true, false, false],
            ),
            (
                &[("Expect", "100-Continue")],
                [false, false, false, false, true],
            ),
            (&[("Expect", "")], [false, false, false, false, false]),
        ];
        for (headers, want) in table {
            let mut h = vec![("Host", "x")];
            h.extend_from_slice(headers);
            let f = run(1, &h).unwrap();
            let got = [
                f.conn_close,
                f.conn_keep_alive,
                f.conn_upgrade,
                f.upgrade_header,
                f.expect_continue,
            ];
            assert_eq!(got, *want, "{headers:?}");
        }
    }
}
