//! gale-http: sans-IO HTTP/1.1 for Gale — request-head parsing with limits, chunked decoding,
//! response encoding (`encode_head`: one encoder for every HTTP/1.1 response head) and the per-second Date cache. Bytes in, decisions out: never touches a
//! socket; no napi, no uv, no logging, no unsafe.
//!
//! ```
//! use gale_http::{parse_head, write_simple_response, DateCache, Limits};
//! use std::time::SystemTime;
//!
//! let buf = b"GET /hello HTTP/1.1\r\nHost: a\r\n\r\n";
//! let mut headers = Vec::new();
//! let mut out = Vec::new();
//! let date = DateCache::new(SystemTime::now());
//! match parse_head(buf, &Limits::default(), &mut headers) {
//!     Ok(Some(head)) => {
//!         assert_eq!(head.path.get(buf), b"/hello");
//!         let close = !head.keep_alive;
//!         write_simple_response(&mut out, 200, &date, b"text/plain", b"", b"hi", close, false);
//!     }
//!     Ok(None) => { /* read more bytes, then call again */ }
//!     Err(err) => gale_http::write_error_response(&mut out, &err, &date), // then close
//! }
//! assert!(out.starts_with(b"HTTP/1.1 200 OK\r\n"));
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod chunked;
mod date;
mod diagnose;
mod encode;
mod error;
mod etag;
mod fields;
pub mod files;
mod head;
mod limits;
mod problem;
mod proxy;
mod read_response;
mod response;
mod simple;
mod span;
mod target;

pub use chunked::{ChunkedDecoder, Decoded};
pub use date::DateCache;
pub use encode::{
    encode_head, field_lines, framing, has_no_body, is_reason_phrase, mark_close,
    parse_response_head, Encoded, Framing, ParsedResponse, ResponseHead,
};
pub use error::Error;
pub use etag::{base64_20, entity_tag, TagMemo};
pub use fields::BodyKind;
pub use head::{parse_head, RequestHead};
pub use limits::Limits;
pub use problem::{prefers_json, status_error_code, write_problem, PROBLEM_JSON};
pub use proxy::{looks_like_proxy_header, parse_proxy_header, ProxyAddrs, V2_SIGNATURE};
pub use read_response::{ReadProgress, ResponseReader};
pub use response::{
    is_header_value, is_token, reason, write_chunk, write_chunk_header, write_content_length,
    write_status_line, CONTINUE_100, LAST_CHUNK,
};
pub use simple::{write_error_response, write_simple_response};
pub use span::{HeaderSpan, Span};
