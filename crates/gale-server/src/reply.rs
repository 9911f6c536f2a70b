//! A request record's response side (`Req::reply`): a native answer's bytes, or what JS wrote so far and where it
//! stands, a file body still to send after the head, and the fields the server adds to a stream's response head.

use bytes::{Bytes, BytesMut};

/// A request's response as it goes out: a native answer's bytes, or what JS wrote so far and where it stands.
#[derive(Default)]
pub(crate) struct Reply {
    /// Pre-encoded native response (404, 405, fixed routes, errors), sent once the body is in (on an HTTP/2
    /// stream only its body: the head is in `h2_head`).
    pub native: Vec<u8>,
    /// On an HTTP/2 stream: the response head, built from the reply's fields, until h2 takes it.
    pub h2_head: Option<http::Response<()>>,
    /// The native response ends the connection.
    pub native_close: bool,
    /// The response head has been written (streaming responses).
    pub started: bool,
    /// The response body goes out in chunked coding.
    pub chunked: bool,
    /// Body bytes a streamed response with a declared Content-Length may still send.
    pub declared_left: Option<u64>,
    /// The response is complete.
    pub ended: bool,
    /// Response bytes produced while an earlier pipelined response is still pending.
    pub out: Vec<u8>,
    /// JS wants a drain event when output falls below the high-water mark.
    pub want_drain: bool,
    /// A file body still to send after the head (static files, `res.sendFile`).
    pub file: Option<FileBody>,
}

impl Reply {
    /// Back to a record's fresh state, keeping the buffers' capacity.
    pub fn reset(&mut self) {
        self.native.clear();
        self.h2_head = None;
        self.native_close = false;
        self.started = false;
        self.chunked = false;
        self.declared_left = None;
        self.ended = false;
        self.out.clear();
        self.want_drain = false;
        self.file = None;
    }

    /// Takes up to `cap` bytes of the file body (from memory, or read from the file at its offset) for a stream's
    /// DATA; None when the file could not be read (the body cannot be completed).
    pub fn read_piece(&mut self, cap: usize) -> Option<Bytes> {
        use crate::sys::ReadAt;
        let body = self.file.as_mut()?;
        let n = (body.remaining as usize).min(cap);
        let chunk = match &body.source {
            BodySource::Memory(bytes) => {
                let start = body.offset as usize;
                Bytes::copy_from_slice(&bytes[start..start + n])
            }
            BodySource::File(f) => {
                let mut buf = BytesMut::zeroed(n);
                let got = f.read_at(&mut buf, body.offset).ok()?;
                if got == 0 {
                    return None;
                }
                buf.truncate(got);
                buf.freeze()
            }
        };
        body.offset += chunk.len() as u64;
        body.remaining -= chunk.len() as u64;
        if body.remaining == 0 {
            self.file = None;
        }
        Some(chunk)
    }

    /// A streamed reply that declared a Content-Length and ended short of it: the client must not take it as
    /// complete (a stream reset, a closed connection).
    pub fn short(&self) -> bool {
        self.declared_left.is_some_and(|l| l > 0)
    }
}

/// What the server adds to every stream's response head (HTTP/2's and HTTP/3's), as an HTTP/1.1 head gets them from
/// gale-http's `DateCache`.
#[derive(Clone, Copy)]
pub(crate) struct ServerFields<'a> {
    /// Date, this second's (RFC 9110 §6.6.1: an origin server with a clock sends it).
    pub date: &'a http::HeaderValue,
    /// `h3=":port"; ma=86400` while HTTP/3 is served.
    pub alt_svc: Option<&'a http::HeaderValue>,
}

impl ServerFields<'_> {
    /// Adds the fields to `resp`.
    pub fn add(&self, resp: &mut http::Response<()>) {
        let fields = resp.headers_mut();
        fields.insert(http::header::DATE, self.date.clone());
        if let Some(v) = self.alt_svc {
            fields.insert(http::header::ALT_SVC, v.clone());
        }
    }
}

/// The part of a body a response still has to send after its head: a file (sent with sendfile), or
/// bytes shared with the static-file cache (written without copying).
pub(crate) struct FileBody {
    pub source: BodySource,
    pub offset: u64,
    pub remaining: u64,
}

pub(crate) enum BodySource {
    File(std::fs::File),
    Memory(std::rc::Rc<[u8]>),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reset_leaves_nothing_of_the_last_response_but_capacity() {
        let mut r = Reply {
            native: b"HTTP/1.1 404 Not Found\r\n\r\n".to_vec(),
            h2_head: Some(http::Response::new(())),
            native_close: true,
            started: true,
            chunked: true,
            declared_left: Some(3),
            ended: true,
            out: b"abc".to_vec(),
            want_drain: true,
            file: Some(FileBody {
                source: BodySource::Memory(std::rc::Rc::from(&b"x"[..])),
                offset: 0,
                remaining: 1,
            }),
        };
        r.reset();
        assert!(r.native.is_empty() && r.native.capacity() > 0);
        assert!(r.out.is_empty() && r.out.capacity() > 0);
        assert!(r.h2_head.is_none() && r.file.is_none() && r.declared_left.is_none());
        assert!(!(r.native_close || r.started || r.chunked || r.ended || r.want_drain));
    }
}
