//! Why httparse rejected a request head: it reports only an error class, so these scans tell
//! a bad method from a bad target, an unsupported version from a malformed one, and obs-fold
//! from a bad header name, to give the client an accurate status and message.

use crate::error::{Error, Kind};
use crate::response::is_tchar;

/// Bytes of blank lines httparse skips before the request line (robustness rule, RFC 9112 §2.2).
pub(crate) fn leading_blank_lines(buf: &[u8]) -> usize {
    buf.iter()
        .take_while(|&&b| b == b'\r' || b == b'\n')
        .count()
}

/// Why httparse reported `Token`: the method or the target.
pub(crate) fn token_error(buf: &[u8]) -> Error {
    let line = &buf[leading_blank_lines(buf)..];
    let method_len = line.iter().take_while(|&&b| is_tchar(b)).count();
    if method_len > 0 && line.get(method_len) == Some(&b' ') {
        Error::new(Kind::BadTarget)
    } else {
        Error::new(Kind::BadMethod)
    }
}

/// What the version field holds once httparse rejected it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Version {
    /// Well-formed `HTTP/d.d` other than 1.0/1.1: answer 505.
    Unsupported,
    /// Could still become a well-formed version: read more.
    Incomplete,
    /// Not an HTTP-version at all: answer 400.
    Malformed,
}

/// Classifies the version field after httparse returned `Error::Version`, which it only does
/// once the method and target (each followed by one SP) have parsed.
pub(crate) fn classify_version(buf: &[u8]) -> Version {
    let line = &buf[leading_blank_lines(buf)..];
    let mut spaces = line.iter().enumerate().filter(|(_, &b)| b == b' ');
    let Some((second_sp, _)) = spaces.nth(1) else {
        return Version::Malformed;
    };
    let v = &line[second_sp + 1..];
    // HTTP-version = "HTTP/" DIGIT "." DIGIT, then CRLF (or LF, as httparse allows).
    let pattern: [fn(u8) -> bool; 8] = [
        |b| b == b'H',
        |b| b == b'T',
        |b| b == b'T',
        |b| b == b'P',
        |b| b == b'/',
        |b| b.is_ascii_digit(),
        |b| b == b'.',
        |b| b.is_ascii_digit(),
    ];
    for (i, matches) in pattern.iter().enumerate() {
        match v.get(i) {
            None => return Version::Incomplete,
            Some(&b) if !matches(b) => return Version::Malformed,
            Some(_) => {}
        }
    }
    match &v[8..] {
        [] | [b'\r'] => Version::Incomplete,
        [b'\r', b'\n', ..] | [b'\n', ..] => Version::Unsupported,
        _ => Version::Malformed,
    }
}

/// Why httparse reported `HeaderName`: obs-fold (a line starting with SP/HTAB) or a bad name.
/// Scans header lines in order, as httparse does, and reports the first offender.
pub(crate) fn header_name_error(buf: &[u8]) -> Error {
    let start = leading_blank_lines(buf);
    let mut lines = buf[start..].split(|&b| b == b'\n').skip(1);
    for line in lines.by_ref() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        match line.first() {
            None => break,
            Some(b' ' | b'\t') => return Error::new(Kind::ObsFold),
            Some(_) => {
                let name_len = line.iter().take_while(|&&b| is_tchar(b)).count();
                if name_len == 0 || line.get(name_len) != Some(&b':') {
                    break;
                }
            }
        }
    }
    Error::new(Kind::BadHeaderName)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{parse_head, Limits};

    #[test]
    fn version_classes() {
        let table: &[(&str, Version)] = &[
            ("GET / HTTP/2.0\r\n", Version::Unsupported),
            ("GET / HTTP/0.9\n", Version::Unsupported),
            (
                "\r\nGET / HTTP/1.2\r\nHost: x\r\n\r\n",
                Version::Unsupported,
            ),
            ("GET / HTTP/2", Version::Incomplete),
            ("GET / HTTP/2.0", Version::Incomplete),
            ("GET / HTTP/2.0\r", Version::Incomplete),
            ("GET / HTTP/2.0\rX", Version::Malformed),
            ("GET / HTTP/2.0 \r\n", Version::Malformed),
            ("GET / HTTP/20\r\n", Version::Malformed),
            ("GET / http/1.1\r\n", Version::Malformed),
            ("GET / FOO\r\n", Version::Malformed),
            ("GET /", Version::Malformed),
        ];
        for (line, want) in table {
            assert_eq!(classify_version(line.as_bytes()), *want, "{line:?}");
        }
    }

    #[test]
    fn rejected_syntax() {
        use crate::error::Kind::*;
        let table: &[(&str, Kind, u16)] = &[
            // Request line.
            ("G(T / HTTP/1.1\r\n", BadMethod, 400),
            (" GET / HTTP/1.1\r\n", BadMethod, 400),
            ("\rGET / HTTP/1.1\r\n", BadLineEnding, 400),
            ("GET  / HTTP/1.1\r\n", BadTarget, 400),
            ("GET /\x7f HTTP/1.1\r\n", BadTarget, 400),
            ("GET /\0 HTTP/1.1\r\n", BadTarget, 400),
            ("GET a HTTP/1.1\r\nHost: a\r\n\r\n", BadTarget, 400),
            ("GET * HTTP/1.1\r\nHost: a\r\n\r\n", BadTarget, 400),
            ("GET / HTTP/1.1x\r\n", BadLineEnding, 400),
            ("GET / HTTP/1.1 \r\n", BadLineEnding, 400),
            ("GET / HTTP/1.1\rX", BadLineEnding, 400),
            ("GET / http/1.1\r\n", BadVersion, 400),
            ("GET / HTTP/11\r\n", BadVersion, 400),
            ("GET /a b HTTP/1.1\r\n", BadVersion, 400),
            ("GET / HTTP/2.0\r\n\r\n", VersionNotSupported, 505),
            (
                "GET / HTTP/1.2\r\nHost: a\r\n\r\n",
                VersionNotSupported,
                505,
            ),
            ("GET / HTTP/0.9\n", VersionNotSupported, 505),
            // Header lines: obs-fold, bad names, bad values, bad line ends.
            (
                "GET / HTTP/1.1\r\nHost: a\r\nX: a\r\n b\r\n\r\n",
                ObsFold,
                400,
            ),
            (
                "GET / HTTP/1.1\r\nHost: a\r\nX: a\r\n\tb\r\n\r\n",
                ObsFold,
                400,
            ),
            ("GET / HTTP/1.1\r\n Host: a\r\n\r\n", ObsFold, 400),
            (
                "GET / HTTP/1.1\r\nHost: a\r\nHo st: a\r\n\r\n",
                BadHeaderName,
                400,
            ),
            ("GET / HTTP/1.1\r\nHost : a\r\n\r\n", BadHeaderName, 400),
            (
                "GET / HTTP/1.1\r\nHost: a\r\n: a\r\n\r\n",
                BadHeaderName,
                400,
            ),
            ("GET / HTTP/1.1\r\nHost: a\r\n:\r\n\r\n", BadHeaderName, 400),
            (
                "GET / HTTP/1.1\r\nHost: a\r\nX\0: a\r\n\r\n",
                BadHeaderName,
                400,
            ),
            (
                "GET / HTTP/1.1\r\nHost: a\r\nX\x7f: a\r\n\r\n",
                BadHeaderName,
                400,
            ),
            (
                "GET / HTTP/1.1\r\nHost: a\r\nNoColon\r\n\r\n",
                BadHeaderName,
                400,
            ),
            (
                "GET / HTTP/1.1\r\nHost: a\r\nX: a\0b\r\n\r\n",
                BadHeaderValue,
                400,
            ),
            (
                "GET / HTTP/1.1\r\nHost: a\r\nX: a\rb\r\n\r\n",
                BadHeaderValue,
                400,
            ),
            (
                "GET / HTTP/1.1\r\nHost: a\r\nX: a\x7fb\r\n\r\n",
                BadHeaderValue,
                400,
            ),
            // A bare LF inside a value ends the line; the rest is not a header.
            (
                "GET / HTTP/1.1\r\nHost: a\r\nX: a\nb c\r\n\r\n",
                BadHeaderName,
                400,
            ),
            ("GET / HTTP/1.1\r\nHost: a\r\n\rX", BadLineEnding, 400),
        ];
        for (req, kind, status) in table {
            let err = parse_head(req.as_bytes(), &Limits::default(), &mut Vec::new()).unwrap_err();
            assert_eq!((err.kind(), err.status()), (*kind, *status), "{req:?}");
        }
    }
}
