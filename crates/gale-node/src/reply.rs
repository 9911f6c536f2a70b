//! Per-request reply methods (the hot path): end, writeHead, write, endStream, sendFile, takeBody, takeBodyText, dropChunk,
//! destroy, release; and routeAnswer, which keeps a reply (passed as end's) as a route's native answer.
//! Strings are written straight into the engine's buffers as UTF-8.
//! Over 400 lines: the eleven reply methods share private argument readers (`meta_arg`, `status_arg`, `body_arg`,
//! `etag_line`) and `with_reply`'s borrow of the record; apart, those would have to be crate-wide.

use std::cell::RefCell;

use gale_server::Reply;
use napi::sys::{self, napi_callback_info, napi_env, napi_value, ValueType};

use crate::bound::server;
use crate::napi_util as nu;

/// Content types JS can name by index (keeps the common replies free of string crossings).
const CONTENT_TYPES: [&[u8]; 5] = [
    b"",
    b"application/json",
    b"text/plain; charset=utf-8",
    b"application/octet-stream",
    b"text/html; charset=utf-8",
];

thread_local! {
    /// Scratch for a content-type string and header lines copied out of JS strings.
    static SCRATCH: RefCell<(Vec<u8>, Vec<u8>)> = const { RefCell::new((Vec::new(), Vec::new())) };
    /// A short string body, written here in one call: its length must be known before the head is written, and
    /// asking V8 for it first would walk the string twice.
    static SHORT_BODY: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// String bodies up to about this many UTF-8 bytes take the one-call path.
const SHORT_BODY_ROOM: usize = 4096;

/// The optional `meta` argument of end/writeHead: `[reasonPhrase?, close?, length?]`, only passed
/// when the app set one of them (the common reply passes nothing and reads nothing here).
struct Meta {
    reason: Vec<u8>,
    close: bool,
    length: Option<u64>,
}

/// `[reason, close, length]`, or the length alone as a number; None for anything else (undefined: no meta).
fn meta_arg(env: napi_env, v: napi_value) -> Option<Meta> {
    let length = |n: Option<f64>| {
        n.filter(|n| n.is_finite() && *n >= 0.0 && n.fract() == 0.0)
            .map(|n| n as u64)
    };
    match nu::type_of(env, v) {
        ValueType::napi_object => {}
        ValueType::napi_number => {
            return Some(Meta {
                reason: Vec::new(),
                close: false,
                length: length(nu::get_f64(env, v)),
            })
        }
        _ => return None,
    }
    let item = |i: u32| {
        let mut out = std::ptr::null_mut();
        // SAFETY: v is an object from the current scope; out is an out-pointer.
        unsafe { napi::sys::napi_get_element(env, v, i, &mut out) };
        out
    };
    let reason = item(0);
    let reason = (nu::type_of(env, reason) == ValueType::napi_string)
        .then(|| nu::get_string(env, reason))
        .flatten()
        .unwrap_or_default();
    let close = nu::get_bool(env, item(1)).unwrap_or(false);
    let length = length(nu::get_f64(env, item(2)));
    Some(Meta {
        reason,
        close,
        length,
    })
}

/// The bits above the status code in `end`'s and `routeAnswer`'s status argument: add an `ETag` line holding the
/// body's entity tag (the `etag` package's format, as `etag()` computes it), weak or strong. JS asks for it when
/// nothing read the tag before the end (the Express layer's send), so the body is converted and hashed once, here,
/// instead of crossing twice and building a header string in JS.
const ETAG_WEAK: u32 = 1 << 16;
const ETAG_STRONG: u32 = 2 << 16;

/// The status argument: the code (100–999) and the ETag bits (ETAG_WEAK / ETAG_STRONG), or a thrown error.
fn status_arg(env: napi_env, status: napi_value) -> Result<(u16, u32), napi_value> {
    match nu::get_u32(env, status) {
        Some(s) if (100..=999).contains(&(s & 0xffff)) && s >> 18 == 0 => {
            Ok(((s & 0xffff) as u16, s & (ETAG_WEAK | ETAG_STRONG)))
        }
        _ => Err(nu::throw(
            env,
            "status must be an integer from 100 to 999",
            true,
        )),
    }
}

thread_local! {
    /// The last body tagged and its tag (a constant answer is hashed once).
    static LAST_TAG: RefCell<gale_http::TagMemo> = const { RefCell::new(gale_http::TagMemo::new()) };
}

/// Appends `body`'s entity tag to `out`, remembered from the last call when the body is the same.
fn tag_of(body: &[u8], weak: bool, out: &mut Vec<u8>) {
    LAST_TAG.with_borrow_mut(|memo| memo.tag(body, weak, out));
}

/// Appends `ETag: <tag>\r\n` for `body` when `bits` ask for one (ETAG_WEAK or ETAG_STRONG; both: weak).
fn etag_line(bits: u32, body: &Body, env: napi_env, out: &mut Vec<u8>) {
    if bits == 0 {
        return;
    }
    out.extend_from_slice(b"ETag: ");
    let weak = bits & ETAG_WEAK != 0;
    match body {
        Body::Short(_) => SHORT_BODY.with_borrow(|b| tag_of(b, weak, out)),
        Body::Bytes(b) => tag_of(b, weak, out),
        Body::None => tag_of(b"", weak, out),
        Body::Str(..) => {
            // A long string body (over SHORT_BODY_ROOM): converted once more, to hash it before the head is written.
            let mut bytes = Vec::with_capacity(body.len());
            body.append(env, &mut bytes);
            tag_of(&bytes, weak, out);
        }
    }
    out.extend_from_slice(b"\r\n");
}

/// Reads (status, content type, header lines, meta) arguments into the scratch buffers, adds the ETag line the status
/// bits ask for (of `body`), and runs `f`.
fn with_reply<R>(
    env: napi_env,
    status: napi_value,
    ctype: napi_value,
    headers: napi_value,
    meta: Option<&Meta>,
    body: &Body,
    f: impl FnOnce(&Reply) -> R,
) -> Result<R, napi_value> {
    let (status, etag) = status_arg(env, status)?;
    SCRATCH.with(|cell| {
        let mut scratch = cell.borrow_mut();
        let (ct_buf, hdr_buf) = &mut *scratch;
        let ct: &[u8] = match nu::type_of(env, ctype) {
            ValueType::napi_number => match nu::get_u32(env, ctype) {
                Some(i) if (i as usize) < CONTENT_TYPES.len() => CONTENT_TYPES[i as usize],
                _ => return Err(nu::throw(env, "unknown content type index", true)),
            },
            ValueType::napi_string => {
                ct_buf.clear();
                nu::append_utf8_any(env, ctype, 256, ct_buf);
                ct_buf
            }
            _ => b"",
        };
        hdr_buf.clear();
        if nu::type_of(env, headers) == ValueType::napi_string {
            nu::append_utf8_any(env, headers, 1024, hdr_buf);
        }
        etag_line(etag, body, env, hdr_buf);
        let hdrs: &[u8] = hdr_buf;
        let mut reply = Reply::new(status, ct, hdrs);
        if let Some(m) = meta {
            reply.reason = &m.reason;
            reply.close = m.close;
            reply.length = m.length;
        }
        Ok(f(&reply))
    })
}

/// A body argument: its length and how to append it.
enum Body<'a> {
    Str(napi_value, usize),
    /// A string already in `SHORT_BODY`, this many bytes.
    Short(usize),
    Bytes(&'a [u8]),
    None,
}

fn body_arg<'a>(env: napi_env, v: napi_value) -> Result<Body<'a>, napi_value> {
    match nu::type_of(env, v) {
        ValueType::napi_undefined | ValueType::napi_null => Ok(Body::None),
        ValueType::napi_string => {
            let short = SHORT_BODY.with_borrow_mut(|b| {
                b.clear();
                nu::append_utf8_within(env, v, SHORT_BODY_ROOM, b).then_some(b.len())
            });
            Ok(match short {
                Some(n) => Body::Short(n),
                None => Body::Str(v, nu::utf8_len(env, v).unwrap_or(0)),
            })
        }
        _ => nu::get_bytes(env, v).map(Body::Bytes).ok_or_else(|| {
            nu::throw(
                env,
                "body must be a string, a Uint8Array or undefined",
                true,
            )
        }),
    }
}

impl Body<'_> {
    fn len(&self) -> usize {
        match self {
            Body::Str(_, n) | Body::Short(n) => *n,
            Body::Bytes(b) => b.len(),
            Body::None => 0,
        }
    }

    fn append(&self, env: napi_env, out: &mut Vec<u8>) {
        match self {
            Body::Str(v, n) => nu::append_utf8(env, *v, *n, out),
            Body::Short(_) => SHORT_BODY.with_borrow(|b| out.extend_from_slice(b)),
            Body::Bytes(b) => out.extend_from_slice(b),
            Body::None => {}
        }
    }
}

/// `end(id, status, ctype, lines, body, meta, keep)`: the whole response. Returns false when the request is gone;
/// else, with `keep` true, what `keep(id)` would (the Request's copy for late reads, made in this one crossing), or
/// true.
pub(crate) unsafe extern "C" fn end(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<7>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    let Some(id) = nu::get_u32(env, argv[0]) else {
        return nu::throw(env, "end(): id must be a number", true);
    };
    // Meta first: reading its elements could run JS, and the body's bytes must be read after that.
    let meta = meta_arg(env, argv[5]);
    let body = match body_arg(env, argv[4]) {
        Ok(b) => b,
        Err(e) => return e,
    };
    match with_reply(
        env,
        argv[1],
        argv[2],
        argv[3],
        meta.as_ref(),
        &body,
        |reply| s.end(id, reply, body.len(), |out| body.append(env, out)),
    ) {
        // The engine holds the request until the end of this turn (ReqPool::retire), so it is still there to copy.
        Ok(true) if nu::get_bool(env, argv[6]) == Some(true) => s
            .with_req(id, |r| crate::reqinfo::kept(env, r))
            .unwrap_or_else(|| nu::boolean(env, true)),
        Ok(ok) => nu::boolean(env, ok),
        Err(e) => e,
    }
}

pub(crate) unsafe extern "C" fn write_head(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<5>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    let Some(id) = nu::get_u32(env, argv[0]) else {
        return nu::throw(env, "writeHead(): id must be a number", true);
    };
    let meta = meta_arg(env, argv[4]);
    // A streamed head: no body to tag (JS never asks for an ETag here; the bits would tag the empty body).
    match with_reply(
        env,
        argv[1],
        argv[2],
        argv[3],
        meta.as_ref(),
        &Body::None,
        |reply| s.write_head(id, reply),
    ) {
        Ok(ok) => nu::boolean(env, ok),
        Err(e) => e,
    }
}

pub(crate) unsafe extern "C" fn write(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<2>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    let Some(id) = nu::get_u32(env, argv[0]) else {
        return nu::throw(env, "write(): id must be a number", true);
    };
    let body = match body_arg(env, argv[1]) {
        Ok(b) => b,
        Err(e) => return e,
    };
    // A request that is gone reports "keep going": JS learns of the abort from its event.
    let ok = s
        .write(id, body.len(), |out| body.append(env, out))
        .unwrap_or(true);
    nu::boolean(env, ok)
}

pub(crate) unsafe extern "C" fn end_stream(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<2>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    let Some(id) = nu::get_u32(env, argv[0]) else {
        return nu::throw(env, "endStream(): id must be a number", true);
    };
    let body = match body_arg(env, argv[1]) {
        Ok(b) => b,
        Err(e) => return e,
    };
    nu::boolean(
        env,
        s.end_stream(id, body.len(), |out| body.append(env, out)),
    )
}

pub(crate) unsafe extern "C" fn release(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<1>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    if let Some(id) = nu::get_u32(env, argv[0]) {
        s.release(id);
    }
    nu::undefined(env)
}

pub(crate) unsafe extern "C" fn destroy(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<1>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    if let Some(id) = nu::get_u32(env, argv[0]) {
        s.destroy(id);
    }
    nu::undefined(env)
}

/// takeBody(id) → Buffer when complete, else [Buffer, state] (state 0 more coming, else an error status); undefined
/// when the request is gone. (The complete body, by far the usual answer, makes no array.)
pub(crate) unsafe extern "C" fn take_body(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<1>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    let Some(id) = nu::get_u32(env, argv[0]) else {
        return nu::throw(env, "takeBody(id): id must be a number", true);
    };
    match s.take_body(id) {
        Some((bytes, state)) => {
            // The buffer goes back to the engine's pool when JS is done with it (dropChunk, or the GC).
            let buf = nu::buffer_handed(env, bytes, gale_server::body_pool::give);
            if state == 1 {
                buf
            } else {
                nu::array(env, &[buf, nu::uint(env, state as u32)])
            }
        }
        None => nu::undefined(env),
    }
}

/// takeBodyText(id, limit) → the whole body as a string when it is all here, valid UTF-8 and at most `limit` bytes
/// (taken, as takeBody takes it), else undefined with nothing taken: text() and json() of a body that came with its
/// head then make no Buffer (a Buffer costs a malloc'd backing store and V8's ArrayBuffer bookkeeping).
pub(crate) unsafe extern "C" fn take_body_text(
    env: napi_env,
    info: napi_callback_info,
) -> napi_value {
    let (argv, _, data) = nu::args::<2>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    let (Some(id), Some(limit)) = (nu::get_u32(env, argv[0]), nu::get_f64(env, argv[1])) else {
        return nu::throw(env, "takeBodyText(id, limit): bad arguments", true);
    };
    match s.take_body_text(id, limit.clamp(0.0, usize::MAX as f64) as usize) {
        Some(bytes) => nu::string(env, &bytes),
        None => nu::undefined(env),
    }
}

/// dropChunk(buffer): JS is done with a body chunk `takeBody` gave it; the chunk's ArrayBuffer is detached, so its bytes
/// are freed now rather than at a full collection (V8 counts them as external memory until then, and a large upload
/// read chunk by chunk would otherwise start one mark-compact after another). Only a Buffer that is its whole
/// ArrayBuffer is detached (a view into a shared one is left alone); the Buffer reads as empty afterwards.
pub(crate) unsafe extern "C" fn drop_chunk(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, _) = nu::args::<1>(env, info);
    let mut kind = 0;
    let mut len = 0usize;
    let mut data = std::ptr::null_mut();
    let mut ab = std::ptr::null_mut();
    let mut offset = 0usize;
    // SAFETY: argv[0] is a JS value of this call; a non-typed-array fails the call and is left alone.
    let ok = unsafe {
        sys::napi_get_typedarray_info(
            env,
            argv[0],
            &mut kind,
            &mut len,
            &mut data,
            &mut ab,
            &mut offset,
        )
    } == sys::Status::napi_ok;
    if ok && offset == 0 {
        let mut ab_data = std::ptr::null_mut();
        let mut ab_len = 0usize;
        // SAFETY: `ab` is the typed array's own ArrayBuffer, returned just above.
        let whole = unsafe { sys::napi_get_arraybuffer_info(env, ab, &mut ab_data, &mut ab_len) }
            == sys::Status::napi_ok
            && ab_len == len;
        if whole {
            // SAFETY: as above; a buffer that cannot be detached returns an error status, which changes nothing.
            unsafe { sys::napi_detach_arraybuffer(env, ab) };
        }
    }
    nu::undefined(env)
}

/// sendFile(id, path, headerLines) → 0 sent, 1 request gone, 404 no such file.
pub(crate) unsafe extern "C" fn send_file(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<3>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    let (Some(id), Some(path)) = (nu::get_u32(env, argv[0]), nu::get_string(env, argv[1])) else {
        return nu::throw(env, "sendFile(id, path, headers): bad arguments", true);
    };
    let headers = nu::get_string(env, argv[2]).unwrap_or_default();
    let path = std::path::PathBuf::from(String::from_utf8_lossy(&path).into_owned());
    let code = match s.send_file(id, &path, &headers) {
        Ok(true) => 0,
        Ok(false) => 1,
        Err(status) => status as u32,
    };
    nu::uint(env, code)
}

/// `routeAnswer(pattern, status, ctype, lines, body, meta)`: the route registered for all methods at `pattern` answers
/// its GET and HEAD requests without a body or validator natively with this reply, given as `end` takes it;
/// `routeAnswer(pattern)` (status undefined) takes the answer back. Throws what the engine refuses.
pub(crate) unsafe extern "C" fn route_answer(
    env: napi_env,
    info: napi_callback_info,
) -> napi_value {
    let (argv, _, data) = nu::args::<6>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    let Some(pattern) = nu::get_string(env, argv[0]) else {
        return nu::throw(env, "routeAnswer(): pattern must be a string", true);
    };
    let pattern = String::from_utf8_lossy(&pattern);
    let r = if nu::type_of(env, argv[1]) == ValueType::napi_undefined {
        s.set_route_answer(&pattern, None)
    } else {
        let meta = meta_arg(env, argv[5]);
        let body = match body_arg(env, argv[4]) {
            Ok(b) => b,
            Err(e) => return e,
        };
        let mut bytes = Vec::with_capacity(body.len());
        body.append(env, &mut bytes);
        let kept = Body::Bytes(&bytes);
        match with_reply(
            env,
            argv[1],
            argv[2],
            argv[3],
            meta.as_ref(),
            &kept,
            |reply| s.set_route_answer(&pattern, Some((reply, bytes.clone()))),
        ) {
            Ok(r) => r,
            Err(e) => return e,
        }
    };
    match r {
        Ok(()) => nu::undefined(env),
        Err(msg) => nu::throw(env, &msg, false),
    }
}
