//! Static-file decisions that never touch the disk: request path to safe relative path,
//! conditional requests, byte ranges, content-coding negotiation and Content-Type.
//!
//! The I/O side (gale-server) resolves [`SafePath::rel`] under its root, stats the file, then
//! asks these functions what to send. A typical GET, in order:
//!
//! ```
//! use gale_http::files::{
//!     content_type_for, evaluate, negotiate, parse_range, safe_path, weak_etag, Conditionals,
//!     Dotfiles, Encoding, Precondition, Ranges,
//! };
//!
//! let p = safe_path(b"/css/site%20main.css", Dotfiles::Ignore).unwrap();
//! assert_eq!(p.rel, "css/site main.css");
//! // ...stat root/p.rel: 4096 bytes, mtime 1_795_242_371...
//! let etag = weak_etag(4096, 1_795_242_371);
//! let cond = Conditionals { if_none_match: Some(etag.as_bytes()), is_get_or_head: true, ..Default::default() };
//! assert_eq!(evaluate(&cond, &etag, 1_795_242_371), Precondition::NotModified);
//! assert_eq!(content_type_for(&p.rel), "text/css; charset=utf-8");
//! assert_eq!(negotiate(Some(b"gzip, br;q=0.5"), &[Encoding::Gzip]), Some(Encoding::Gzip));
//! assert_eq!(parse_range(b"bytes=0-1023", 4096, 16), Ranges::Partial(vec![(0, 1023)]));
//! ```

mod conditional;
mod encoding;
mod mime;
mod path;
mod range;

pub use conditional::{
    evaluate, http_date, if_range_allows, weak_etag, Conditionals, Precondition,
};
pub use encoding::{negotiate, Encoding};
pub use mime::{content_type_for, is_compressible};
pub use path::{safe_path, Dotfiles, PathError, SafePath};
pub use range::{
    content_range, multipart_closing, multipart_len, multipart_part_head, parse_range,
    unsatisfied_range, Ranges,
};

/// `b` without leading and trailing spaces and tabs (HTTP's OWS).
fn trim_ows(mut b: &[u8]) -> &[u8] {
    while let [b' ' | b'\t', rest @ ..] = b {
        b = rest;
    }
    while let [rest @ .., b' ' | b'\t'] = b {
        b = rest;
    }
    b
}
