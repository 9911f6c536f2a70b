//! The one opaque error type of gale-http: what was wrong with a request, which status answers it,
//! and a sentence telling the client what to do about it.

use std::fmt;

/// Size of the trailer section a chunked body may carry, in bytes.
pub(crate) const MAX_TRAILER_BYTES: u64 = 16 * 1024;
/// Longest chunk-size line (size plus extensions, without the CRLF), in bytes.
pub(crate) const MAX_CHUNK_LINE: u64 = 4096;

/// What went wrong. Private so kinds can be split or merged without breaking the server;
/// callers ask through [`Error::status`] and the predicates instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    BadMethod,
    BadTarget,
    BadVersion,
    BadLineEnding,
    BadHeaderName,
    BadHeaderValue,
    ObsFold,
    BadContentLength,
    ConflictingContentLength,
    ContentLengthWithTransferEncoding,
    BadTransferEncoding,
    UnsupportedTransferCoding,
    MissingHost,
    BadHost,
    BadChunk,
    ExpectationFailed,
    VersionNotSupported,
    Http2Only,
    UriTooLong,
    MethodTooLong,
    NonAsciiTarget,
    HeadTooLarge,
    TooManyHeaders,
    TrailersTooLarge,
    BodyTooLarge,
    RequestTimeout,
    BadProxyHeader,
    UnexpectedProxyHeader,
}

/// A protocol error: the request cannot be served and the connection should be closed after
/// answering with [`Error::status`] (see [`crate::write_error_response`]).
///
/// ```
/// let err = gale_http::Error::body_too_large(1024);
/// assert_eq!(err.status(), 413);
/// assert!(err.is_limit() && err.is_body_too_large());
/// assert!(err.message().contains("bodyLimit"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    kind: Kind,
    /// The configured limit that was crossed, for limit kinds; 0 otherwise.
    limit: u64,
    /// The start of an over-long method (token characters only), to name it in the message.
    excerpt: [u8; EXCERPT],
    excerpt_len: u8,
}

/// How much of an over-long method the message names.
const EXCERPT: usize = 16;

impl Error {
    pub(crate) fn new(kind: Kind) -> Self {
        Self::with_limit(kind, 0)
    }

    pub(crate) fn with_limit(kind: Kind, limit: u64) -> Self {
        Error {
            kind,
            limit,
            excerpt: [0; EXCERPT],
            excerpt_len: 0,
        }
    }

    /// A method longer than `limit` bytes (501): `method` is what arrived of it, token characters only (httparse
    /// checked them), so its first bytes can be named in the message.
    pub(crate) fn method_too_long(method: &[u8], limit: u64) -> Self {
        let mut e = Self::with_limit(Kind::MethodTooLong, limit);
        let n = method.len().min(EXCERPT);
        e.excerpt[..n].copy_from_slice(&method[..n]);
        e.excerpt_len = n as u8;
        e
    }

    #[cfg(test)]
    pub(crate) fn kind(&self) -> Kind {
        self.kind
    }

    /// The request body exceeded the server's body limit (413). For the server's own
    /// Content-Length check; [`crate::ChunkedDecoder`] raises it by itself.
    pub fn body_too_large(limit: u64) -> Error {
        Error::with_limit(Kind::BodyTooLarge, limit)
    }

    /// The request head or body did not arrive in time (408).
    pub fn request_timeout() -> Error {
        Error::new(Kind::RequestTimeout)
    }

    /// An HTTP/1.x request on a listener that serves HTTP/2 only (505).
    ///
    /// ```
    /// let err = gale_http::Error::http2_only();
    /// assert_eq!(err.status(), 505);
    /// assert!(err.message().contains("HTTP/2 only"));
    /// ```
    pub fn http2_only() -> Error {
        Error::new(Kind::Http2Only)
    }

    /// The HTTP status code that answers this error. This is the only place protocol errors
    /// are mapped to statuses.
    pub fn status(&self) -> u16 {
        match self.kind {
            Kind::ExpectationFailed => 417,
            Kind::VersionNotSupported | Kind::Http2Only => 505,
            Kind::UriTooLong => 414,
            Kind::HeadTooLarge | Kind::TooManyHeaders | Kind::TrailersTooLarge => 431,
            Kind::BodyTooLarge => 413,
            Kind::RequestTimeout => 408,
            Kind::UnsupportedTransferCoding | Kind::MethodTooLong => 501,
            _ => 400,
        }
    }

    /// The stable code of this error in problem documents (see [`crate::status_error_code`]).
    pub fn code(&self) -> &'static str {
        crate::status_error_code(self.status()).unwrap_or("GALE_ERR_BAD_REQUEST")
    }

    /// The request bytes broke HTTP/1.1 syntax or framing rules (status 400 or 505).
    pub fn is_parse(&self) -> bool {
        matches!(self.status(), 400 | 505)
    }

    /// A size limit was crossed: URI (414), head, header count or trailers (431), or body (413).
    pub fn is_limit(&self) -> bool {
        matches!(self.status(), 413 | 414 | 431)
    }

    /// The body exceeded the body limit (413).
    pub fn is_body_too_large(&self) -> bool {
        self.kind == Kind::BodyTooLarge
    }

    /// The request line's version is not an HTTP-version at all (not `HTTP/d.d`): the peer may not speak HTTP/1.x.
    pub fn is_bad_version(&self) -> bool {
        self.kind == Kind::BadVersion
    }

    /// The request was not received in time (408).
    pub fn is_timeout(&self) -> bool {
        self.kind == Kind::RequestTimeout
    }

    /// The limit that was crossed, for limit errors ([`Error::is_limit`]).
    pub fn limit(&self) -> Option<u64> {
        self.is_limit().then_some(self.limit)
    }

    /// A sentence saying what was wrong and what to do, fit for a `text/plain` response body.
    pub fn message(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let reason = crate::reason(self.status());
        let limit = self.limit;
        // Messages reach untrusted clients: they echo no request bytes back, but for the first 16 characters of an
        // over-long method, which are token characters (letters, digits and !#$%&'*+-.^_`|~) by then.
        match self.kind {
            Kind::BadMethod => write!(
                f,
                "{reason}: the request method is not a valid token. Send a method such as GET or \
                 POST, made of letters, digits and !#$%&'*+-.^_`|~, followed by one space."
            ),
            Kind::BadTarget => write!(
                f,
                "{reason}: the request-target is malformed. Send a path starting with / (for \
                 example /items?id=1), an absolute URL, or * with OPTIONS, without spaces or \
                 control characters, followed by one space."
            ),
            Kind::BadVersion => write!(
                f,
                "{reason}: the HTTP version in the request line is malformed. End the request \
                 line with HTTP/1.1 (or HTTP/1.0)."
            ),
            Kind::BadLineEnding => write!(
                f,
                "{reason}: a line of the request head does not end properly. End the request \
                 line and every header line with CRLF, with no trailing characters."
            ),
            Kind::BadHeaderName => write!(
                f,
                "{reason}: a header name is empty or contains a character that is not allowed \
                 (spaces, control characters, or whitespace before the colon). Send header \
                 names made of token characters, followed directly by a colon."
            ),
            Kind::BadHeaderValue => write!(
                f,
                "{reason}: a header value contains a control character (such as NUL or a bare \
                 CR). Remove control characters from header values or percent-encode them."
            ),
            Kind::ObsFold => write!(
                f,
                "{reason}: a header line starts with whitespace (obsolete line folding), which \
                 is not accepted. Send each header field on a single line."
            ),
            Kind::BadContentLength => write!(
                f,
                "{reason}: the Content-Length header is not a plain decimal number. Send the \
                 body size in bytes as digits only, for example Content-Length: 42."
            ),
            Kind::ConflictingContentLength => write!(
                f,
                "{reason}: the request carries several Content-Length values that disagree. \
                 Send exactly one Content-Length header."
            ),
            Kind::ContentLengthWithTransferEncoding => write!(
                f,
                "{reason}: the request has both Content-Length and Transfer-Encoding headers. \
                 Send only one of them: Content-Length for a sized body, or \
                 Transfer-Encoding: chunked alone for a streamed body."
            ),
            Kind::BadTransferEncoding => write!(
                f,
                "{reason}: the Transfer-Encoding is not supported. Send Transfer-Encoding: \
                 chunked (with chunked as the final coding, applied once) on an HTTP/1.1 \
                 request, or use Content-Length instead."
            ),
            Kind::UnsupportedTransferCoding => write!(
                f,
                "{reason}: the request body uses a transfer coding other than chunked (such as \
                 gzip), which this server does not decode. Send the body with \
                 Transfer-Encoding: chunked alone, or use Content-Length."
            ),
            Kind::MissingHost => write!(
                f,
                "{reason}: the HTTP/1.1 request has no Host header. Add a Host header naming \
                 the server, for example Host: example.com."
            ),
            Kind::BadHost => write!(
                f,
                "{reason}: the Host header is repeated or malformed. Send exactly one Host \
                 header containing host[:port]."
            ),
            Kind::BadChunk => write!(
                f,
                "{reason}: the chunked request body is malformed (a bad chunk size, a chunk \
                 line longer than {MAX_CHUNK_LINE} bytes, a bad trailer field, or a missing \
                 CRLF). Encode the body as described in RFC 9112 section 7.1, or send it with \
                 Content-Length."
            ),
            Kind::ExpectationFailed => write!(
                f,
                "{reason}: the Expect header asks for something other than 100-continue. \
                 Remove the Expect header or send Expect: 100-continue."
            ),
            Kind::Http2Only => write!(
                f,
                "{reason}: this port serves HTTP/2 only. Connect with HTTP/2: over TLS by ALPN \
                 (h2), or in cleartext starting with the HTTP/2 connection preface (prior knowledge)."
            ),
            Kind::VersionNotSupported => write!(
                f,
                "{reason}: this server speaks HTTP/1.0 and HTTP/1.1 on this connection. Send \
                 the request as HTTP/1.1."
            ),
            Kind::UriTooLong => write!(
                f,
                "{reason}: the request-target is longer than {limit} bytes. Use a shorter URL \
                 (move large data into the request body), or raise the server's maxUriLength \
                 option."
            ),
            Kind::MethodTooLong => write!(
                f,
                "{reason}: the request method \"{}...\" is longer than {limit} bytes, and no such \
                 method is implemented here. Send a method such as GET or POST.",
                String::from_utf8_lossy(&self.excerpt[..usize::from(self.excerpt_len)])
            ),
            Kind::NonAsciiTarget => write!(
                f,
                "{reason}: the request-target contains raw bytes outside ASCII. Percent-encode \
                 them as UTF-8, as RFC 3986 says (/caf%C3%A9, not the raw bytes)."
            ),
            Kind::HeadTooLarge => write!(
                f,
                "{reason}: the request head is larger than {limit} bytes. Send fewer or \
                 smaller headers, or raise the server's maxHeaderSize option."
            ),
            Kind::TooManyHeaders => write!(
                f,
                "{reason}: the request has more than {limit} header fields. Send fewer \
                 headers, or raise the server's maxHeaders option."
            ),
            Kind::TrailersTooLarge => write!(
                f,
                "{reason}: the trailer section of the chunked body is larger than {limit} \
                 bytes. Send fewer or smaller trailer fields."
            ),
            Kind::BodyTooLarge => write!(
                f,
                "{reason}: the request body is larger than {limit} bytes. Send a smaller body, \
                 or raise the server's bodyLimit option."
            ),
            Kind::RequestTimeout => write!(
                f,
                "{reason}: the request head/body was not received in time. Send the whole \
                 request promptly, or raise the server's headersTimeout/requestTimeout options."
            ),
            Kind::BadProxyHeader => write!(
                f,
                "{reason}: the connection did not start with a valid PROXY protocol header, \
                 which this server expects (proxyProtocol is on). Connect through the load \
                 balancer (HAProxy send-proxy or send-proxy-v2, nginx proxy_protocol), or turn \
                 proxyProtocol off."
            ),
            Kind::UnexpectedProxyHeader => write!(
                f,
                "{reason}: the connection starts with a PROXY protocol header, but this server \
                 does not expect one. Start it with the proxyProtocol option if it runs behind \
                 a load balancer that sends one, or remove send-proxy/proxy_protocol there."
            ),
        }
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_predicates_and_messages() {
        // (error, status, is_parse, is_limit, must appear in the message)
        let table: &[(Error, u16, bool, bool, &str)] = &[
            (
                Error::new(Kind::BadMethod),
                400,
                true,
                false,
                "Bad Request: ",
            ),
            (
                Error::new(Kind::BadHeaderName),
                400,
                true,
                false,
                "header name",
            ),
            (Error::new(Kind::ObsFold), 400, true, false, "single line"),
            (Error::new(Kind::MissingHost), 400, true, false, "Host"),
            (Error::new(Kind::BadChunk), 400, true, false, "4096"),
            (
                Error::new(Kind::VersionNotSupported),
                505,
                true,
                false,
                "HTTP/1.1",
            ),
            (
                Error::new(Kind::ExpectationFailed),
                417,
                false,
                false,
                "100-continue",
            ),
            (
                Error::with_limit(Kind::UriTooLong, 8192),
                414,
                false,
                true,
                "8192 bytes",
            ),
            (
                Error::with_limit(Kind::HeadTooLarge, 16384),
                431,
                false,
                true,
                "Request Header Fields Too Large: the request head is larger than 16384 bytes. \
                 Send fewer or smaller headers, or raise the server's maxHeaderSize option.",
            ),
            (
                Error::with_limit(Kind::TooManyHeaders, 100),
                431,
                false,
                true,
                "more than 100",
            ),
            (
                Error::with_limit(Kind::TrailersTooLarge, 16384),
                431,
                false,
                true,
                "trailer",
            ),
            (Error::body_too_large(10), 413, false, true, "bodyLimit"),
            (
                Error::request_timeout(),
                408,
                false,
                false,
                "Request Timeout: the request",
            ),
        ];
        for (err, status, parse, limit, needle) in table {
            assert_eq!(err.status(), *status, "{err:?}");
            assert_eq!(err.is_parse(), *parse, "{err:?}");
            assert_eq!(err.is_limit(), *limit, "{err:?}");
            assert_eq!(err.limit().is_some(), *limit, "{err:?}");
            assert_eq!(err.is_body_too_large(), *status == 413, "{err:?}");
            assert_eq!(err.is_timeout(), *status == 408, "{err:?}");
            let msg = err.message();
            assert!(msg.contains(needle), "{msg:?} lacks {needle:?}");
            assert!(msg.ends_with('.'), "{msg:?}");
            assert!(!msg.contains("  "), "double space in {msg:?}");
        }
    }
}
