//! Answers a request from a resolved file: preconditions (304/412), ranges (206/416, multipart),
//! encoding negotiation (precompressed or cached compressed variants), then a head plus either the
//! bytes from memory or a file body that `output.rs` streams with sendfile.
//! Over 400 lines: one decision path for a file answer (preconditions, ranges, encodings, then head and body) whose
//! steps share `Found` and the request's headers.

use std::fs::File;
use std::rc::Rc;

use gale_http::files::{self, Conditionals, Encoding, Precondition, Ranges};
use gale_http::ResponseHead;

use crate::engine::Inner;
use crate::reply::{BodySource, FileBody};
use crate::request::Req;
use crate::statics::{read_at, Found, Resolved, Validators, Variant};

/// Most ranges honoured in one request; more are answered with the whole file.
const MAX_RANGES: usize = 16;
/// Largest multipart/byteranges body built in memory; beyond it the whole file is sent.
const MAX_MULTIPART: u64 = 4 * 1024 * 1024;
const BOUNDARY: &str = "GALE_BYTERANGES_7d1c3e";
/// Cached bodies up to this size are copied into the head's buffer (one write); larger ones are
/// written from the cache directly. The same bound for file bodies read into the answer where there is no sendfile.
const INLINE_BODY: u64 = 64 * 1024;
/// Where sendfile is (plain TCP on Linux), a file body larger than this leaves by it, behind a head sent with
/// MSG_MORE: the kernel moves the page cache's bytes to the socket, where a read into the answer copied them out and
/// back in. Measured on the arena's static profile (4–56 KB files): server CPU per answer 10.7–11.0 → 8.6–8.9 µs
/// at 128 connections, 12.8–13.0 → 9.4–9.6 at 850. Smaller bodies are read into the head's write.
const SENDFILE_OVER: u64 = 4 * 1024;

fn header<'a>(req: &'a Req, name: &[u8]) -> Option<&'a [u8]> {
    req.headers
        .iter()
        .find(|h| h.name.get(&req.head).eq_ignore_ascii_case(name))
        .map(|h| h.value.get(&req.head))
}

fn line(out: &mut Vec<u8>, name: &str, value: &[u8]) {
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b": ");
    out.extend_from_slice(value);
    out.extend_from_slice(b"\r\n");
}

/// The body of a file response.
enum Body {
    None,
    Bytes(Rc<[u8]>, u64, u64),
    Owned(Vec<u8>),
    File(std::path::PathBuf, u64, u64),
    /// An already open file (uncached static lookups keep the fd they resolved).
    Open(File, u64, u64),
    /// A small open file, read straight into the answer after its head (no buffer of its own to copy from).
    Read(File, u64, u64),
}

impl Inner {
    /// Answers `idx` from static mount `m`; `tail` is the raw path below the mount prefix.
    pub fn serve_static(&mut self, idx: usize, m: usize, tail: gale_http::Span) {
        let now = self.now;
        let req = self.reqs.get(idx);
        let mount = &self.routes.mounts[m];
        // A client that takes br over gzip gets the `.br` sibling whenever there is one, so the `.gz` one need not be
        // opened for it (serve_found negotiates over the same [br, gzip] order). Cached files keep every variant.
        let br_first = mount.opts.precompressed
            && !mount.opts.cache
            && files::negotiate(
                header(req, b"accept-encoding"),
                &[Encoding::Brotli, Encoding::Gzip],
            ) == Some(Encoding::Brotli);
        // The request's record and the mount are apart: the path is resolved from the head in place.
        let resolved =
            self.routes.mounts[m].resolve(tail.get(&self.reqs.get(idx).head), now, br_first);
        let validators = self.routes.mounts[m].opts.validators;
        let extra = self.routes.mounts[m].opts.headers.clone();
        match resolved {
            Resolved::File(f) => self.serve_found(idx, &f, &extra, validators),
            Resolved::Redirect => {
                let req = self.reqs.get(idx);
                // One leading slash only: "//host/dir" must not become a protocol-relative
                // Location pointing at another site.
                let path = req.path.get(&req.head);
                let start = path
                    .iter()
                    .position(|&b| b != b'/')
                    .map_or(path.len(), |p| p - 1);
                let mut loc = path[start..].to_vec();
                loc.push(b'/');
                if let Some(q) = req.query {
                    loc.push(b'?');
                    loc.extend_from_slice(q.get(&req.head));
                }
                let mut extra = b"Location: ".to_vec();
                extra.extend_from_slice(&loc);
                extra.extend_from_slice(b"\r\n");
                self.native_text(idx, 301, &extra, b"Moved Permanently");
            }
            Resolved::NotFound => self.native_text(idx, 404, b"", b"Not Found"),
            Resolved::Forbidden => self.native_text(idx, 403, b"", b"Forbidden"),
        }
    }

    /// Encodes a plain-text native answer for `idx`.
    pub fn native_text(&mut self, idx: usize, status: u16, extra: &[u8], body: &[u8]) {
        let h2 = self.is_stream(idx);
        let req = self.reqs.get_mut(idx);
        crate::wire::native_text(req, h2, &self.date, status, extra, body);
    }

    /// Whether `idx` is a stream's request, HTTP/2's or HTTP/3's (its heads are kept as fields, not encoded).
    pub(crate) fn is_stream(&self, idx: usize) -> bool {
        let req = self.reqs.get(idx);
        !req.detached && self.conns.get(req.conn).is_some_and(|c| c.is_stream())
    }

    /// Whether `idx`'s answer can leave by sendfile: plain TCP on Linux, not HTTP/2 (whose frames are built in user
    /// space), not TLS, not the ring or an in-process pipe.
    fn has_sendfile(&self, idx: usize) -> bool {
        let req = self.reqs.get(idx);
        cfg!(target_os = "linux")
            && !req.detached
            && self
                .conns
                .get(req.conn)
                .is_some_and(|c| c.h2.is_none() && c.tls.is_none() && c.io.has_sendfile())
    }

    /// Builds the whole answer for a found file into `req.native` (+ `req.file`).
    /// `v`: which validators the answer carries and honours (a mount's options; all for `res.sendFile`).
    pub fn serve_found(&mut self, idx: usize, f: &Found, extra: &[u8], v: Validators) {
        let req = self.reqs.get(idx);
        let is_get_or_head = matches!(req.method.get(&req.head), b"GET" | b"HEAD");
        // An ETag turned off is matched as none at all: "" parses as no entity-tag.
        let etag = if v.etag { f.etag.as_str() } else { "" };
        let dated = |name: &[u8]| {
            if v.last_modified {
                header(req, name)
            } else {
                None
            }
        };
        let cond = Conditionals {
            if_match: header(req, b"if-match"),
            if_none_match: header(req, b"if-none-match"),
            if_modified_since: dated(b"if-modified-since"),
            if_unmodified_since: dated(b"if-unmodified-since"),
            is_get_or_head,
        };
        let vary = !f.variants.is_empty();
        let inline_max = if self.has_sendfile(idx) {
            SENDFILE_OVER
        } else {
            INLINE_BODY
        };
        let mut head = Vec::with_capacity(256);
        match files::evaluate(&cond, etag, f.mtime) {
            Precondition::Proceed => {}
            Precondition::NotModified => {
                self.validators(&mut head, f, vary, v);
                head.extend_from_slice(extra);
                return self.finish_file(idx, 304, None, head, Body::None);
            }
            Precondition::Failed => {
                return self.native_text(idx, 412, b"", b"Precondition Failed");
            }
        }
        let ranges = match header(req, b"range") {
            Some(r) if is_get_or_head && v.ranges => {
                let honour = header(req, b"if-range").is_none_or(|ir| {
                    // A date can only match a Last-Modified that is sent.
                    let tag = matches!(ir.trim_ascii_start(), [b'"', ..] | [b'W', b'/', ..]);
                    (tag || v.last_modified) && files::if_range_allows(ir, etag, f.mtime)
                });
                if honour {
                    files::parse_range(r, f.size, MAX_RANGES)
                } else {
                    Ranges::Full
                }
            }
            _ => Ranges::Full,
        };
        let (status, body) = match ranges {
            Ranges::Unsatisfiable => {
                let extra = format!("Content-Range: {}\r\n", files::unsatisfied_range(f.size));
                return self.native_text(idx, 416, extra.as_bytes(), b"Range Not Satisfiable");
            }
            Ranges::Partial(r) if r.len() == 1 => {
                let (s, e) = r[0];
                line(
                    &mut head,
                    "Content-Range",
                    files::content_range(s, e, f.size).as_bytes(),
                );
                (206, identity(f, s, e - s + 1, inline_max))
            }
            Ranges::Partial(r) => match multipart(f, &r) {
                Some(body) => {
                    let ct = format!("multipart/byteranges; boundary={BOUNDARY}");
                    self.validators(&mut head, f, vary, v);
                    head.extend_from_slice(extra);
                    return self.finish_file(
                        idx,
                        206,
                        Some(ct.as_bytes()),
                        head,
                        Body::Owned(body),
                    );
                }
                None => (200, identity(f, 0, f.size, inline_max)),
            },
            Ranges::Full => {
                // At most one variant per coding (br, gzip): the list fits on the stack.
                let mut codings = [Encoding::Identity; 4];
                let n = f.variants.len().min(codings.len());
                for (slot, (e, _)) in codings.iter_mut().zip(&f.variants) {
                    *slot = *e;
                }
                let chosen = if n == 0 {
                    Encoding::Identity
                } else {
                    files::negotiate(header(req, b"accept-encoding"), &codings[..n])
                        .unwrap_or(Encoding::Identity)
                };
                match f.variants.iter().find(|(e, _)| *e == chosen) {
                    Some((enc, v)) => {
                        line(&mut head, "Content-Encoding", enc.token().as_bytes());
                        let body = match v {
                            Variant::Bytes(b) => Body::Bytes(b.clone(), 0, b.len() as u64),
                            Variant::Sibling(p, len, open) => {
                                file_body(open.take(), p, 0, *len, inline_max)
                            }
                        };
                        (200, body)
                    }
                    None => (200, identity(f, 0, f.size, inline_max)),
                }
            }
        };
        if v.ranges {
            head.extend_from_slice(b"Accept-Ranges: bytes\r\n");
        }
        self.validators(&mut head, f, vary, v);
        head.extend_from_slice(extra);
        // A Content-Type among the caller's headers (res.sendFile after res.type) replaces ours.
        let ct = (!has_content_type(extra)).then_some(f.content_type.as_bytes());
        self.finish_file(idx, status, ct, head, body)
    }

    /// ETag, Last-Modified (those `v` keeps), Cache-Control and Vary lines.
    fn validators(&self, head: &mut Vec<u8>, f: &Found, vary: bool, v: Validators) {
        if v.etag {
            line(head, "ETag", f.etag.as_bytes());
        }
        if v.last_modified {
            line(head, "Last-Modified", f.last_modified.as_bytes());
        }
        if let Some(cc) = &f.cache_control {
            line(head, "Cache-Control", cc.as_bytes());
        }
        if vary {
            head.extend_from_slice(b"Vary: Accept-Encoding\r\n");
        }
    }

    /// Writes status line, Date, Content-Type, `lines`, Content-Length and the body into the record.
    fn finish_file(
        &mut self,
        idx: usize,
        status: u16,
        ct: Option<&[u8]>,
        lines: Vec<u8>,
        body: Body,
    ) {
        let file = match &body {
            Body::File(path, _, n) if *n > 0 && !self.reqs.get(idx).head_only => {
                match File::open(path) {
                    Ok(f) => Some(f),
                    // Vanished between stat and open: a 404 rather than a head with no body.
                    Err(_) => return self.native_text(idx, 404, b"", b"Not Found"),
                }
            }
            _ => None,
        };
        let h2 = self.is_stream(idx);
        let req = self.reqs.get_mut(idx);
        let len = match &body {
            Body::None => None,
            Body::Bytes(_, _, n)
            | Body::File(_, _, n)
            | Body::Open(_, _, n)
            | Body::Read(_, _, n) => Some(*n),
            Body::Owned(v) => Some(v.len() as u64),
        };
        let head = ResponseHead {
            status,
            reason: b"",
            content_type: ct.unwrap_or(b""),
            fields: &lines,
            body_len: len,
        };
        // A body read into the answer: room for head and body at once. Growing the record's buffer after the head
        // was a realloc that copies its whole old block (~1 % of the arena's static profile); put_native starts
        // the buffer afresh anyway, so a too-small one is replaced.
        if let Body::Read(_, _, n) = &body {
            let need = 256 + lines.len() + *n as usize;
            if req.reply.native.capacity() < need {
                req.reply.native = Vec::with_capacity(need);
            }
        }
        // The head alone: the body is placed below (inline, or sent from the cache or the file after the head).
        crate::wire::put_native(req, h2, &self.date, &head, b"");
        if req.head_only || gale_http::has_no_body(status) {
            return;
        }
        match body {
            Body::None => {}
            // Small bodies ride in the head's write; large ones are written straight from the cache.
            Body::Bytes(b, off, n) if n <= INLINE_BODY => {
                req.reply
                    .native
                    .extend_from_slice(&b[off as usize..(off + n) as usize]);
            }
            Body::Bytes(b, offset, remaining) => {
                req.reply.file = Some(FileBody {
                    source: BodySource::Memory(b),
                    offset,
                    remaining,
                });
            }
            Body::Owned(v) => req.reply.native.extend_from_slice(&v),
            Body::File(_, offset, remaining) => {
                if let Some(file) = file {
                    req.reply.file = Some(FileBody {
                        source: BodySource::File(file),
                        offset,
                        remaining,
                    });
                }
            }
            Body::Read(file, offset, n) => {
                if crate::sys::read_exact_at_append(
                    &file,
                    &mut req.reply.native,
                    n as usize,
                    offset,
                )
                .is_err()
                {
                    // Unreadable now: the head stands (it has the file's length) and the body goes from the
                    // descriptor, whose failure ends the connection as a large file's does.
                    req.reply.file = Some(FileBody {
                        source: BodySource::File(file),
                        offset,
                        remaining: n,
                    });
                }
            }
            Body::Open(file, offset, remaining) => {
                if remaining > 0 {
                    req.reply.file = Some(FileBody {
                        source: BodySource::File(file),
                        offset,
                        remaining,
                    });
                }
            }
        }
    }
}

fn has_content_type(lines: &[u8]) -> bool {
    lines
        .split(|&b| b == b'\n')
        .any(|l| l.len() > 13 && l[..13].eq_ignore_ascii_case(b"content-type:"))
}

/// The identity body for bytes `start..start+len`: from memory when cached; a small uncached file is
/// read now (so head and body leave in one write), a large one is sent from its open fd.
fn identity(f: &Found, start: u64, len: u64, inline_max: u64) -> Body {
    if let Some(b) = &f.bytes {
        return Body::Bytes(b.clone(), start, len);
    }
    file_body(f.open.take(), &f.path, start, len, inline_max)
}

/// The body of `len` bytes at `start` of a file: read into the answer when small (head and body leave in one
/// write), else sent from the descriptor the lookup opened; opened by path only when there is none (a cached entry,
/// `res.sendFile`).
fn file_body(
    open: Option<File>,
    path: &std::path::Path,
    start: u64,
    len: u64,
    inline_max: u64,
) -> Body {
    match open {
        Some(file) if len <= inline_max => Body::Read(file, start, len),
        Some(file) => Body::Open(file, start, len),
        None => Body::File(path.to_path_buf(), start, len),
    }
}

/// A multipart/byteranges body for `ranges`, or None when too large to build in memory.
fn multipart(f: &Found, ranges: &[(u64, u64)]) -> Option<Vec<u8>> {
    let total = files::multipart_len(BOUNDARY, &f.content_type, ranges, f.size);
    if total > MAX_MULTIPART {
        return None;
    }
    let mut out = Vec::with_capacity(total as usize);
    for &(s, e) in ranges {
        files::multipart_part_head(&mut out, BOUNDARY, &f.content_type, s, e, f.size);
        match &f.bytes {
            Some(b) => out.extend_from_slice(&b[s as usize..=e as usize]),
            None => out.extend_from_slice(&read_at(&f.path, s, e - s + 1)?),
        }
    }
    files::multipart_closing(&mut out, BOUNDARY);
    Some(out)
}
