//! Lazy request accessors JS calls on first use: method, url, version, headers, one header, body, peer.

use std::cell::RefCell;
use std::io::Write;
use std::net::SocketAddr;

use napi::sys::{napi_callback_info, napi_env, napi_value};

use crate::bound::server;
use crate::napi_util as nu;

use crate::setup::addr_array;

/// Runs `f` on request `argv[0]`, returning undefined when it is gone.
pub(crate) fn on_req(
    env: napi_env,
    info: napi_callback_info,
    f: impl FnOnce(&gale_server::ReqView, napi_value) -> napi_value,
) -> napi_value {
    let (argv, _, data) = nu::args::<2>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    let Some(id) = nu::get_u32(env, argv[0]) else {
        return nu::throw(env, "request id must be a number", true);
    };
    s.with_req(id, |r| f(r, argv[1]))
        .unwrap_or_else(|| nu::undefined(env))
}

pub(crate) unsafe extern "C" fn req_method(env: napi_env, info: napi_callback_info) -> napi_value {
    on_req(env, info, |r, _| nu::latin1(env, r.method()))
}

pub(crate) unsafe extern "C" fn req_url(env: napi_env, info: napi_callback_info) -> napi_value {
    on_req(env, info, |r, _| nu::latin1(env, r.target()))
}

pub(crate) unsafe extern "C" fn req_version(env: napi_env, info: napi_callback_info) -> napi_value {
    on_req(env, info, |r, _| nu::uint(env, r.minor_version() as u32))
}

pub(crate) unsafe extern "C" fn req_headers(env: napi_env, info: napi_callback_info) -> napi_value {
    on_req(env, info, |r, _| flat_headers(env, r.headers()))
}

/// `[name, value, name, value, …]` with names lower-cased, as `Request.headers` builds its object from.
pub(crate) fn flat_headers<'a>(
    env: napi_env,
    headers: impl Iterator<Item = (&'a [u8], &'a [u8])>,
) -> napi_value {
    let mut vals = Vec::with_capacity(32);
    let mut lower = Vec::with_capacity(32);
    for (n, v) in headers {
        lower.clear();
        lower.extend(n.iter().map(u8::to_ascii_lowercase));
        vals.push(nu::latin1(env, &lower));
        vals.push(nu::latin1(env, v));
    }
    nu::array(env, &vals)
}

pub(crate) unsafe extern "C" fn req_header(env: napi_env, info: napi_callback_info) -> napi_value {
    on_req(env, info, |r, name| {
        let Some(name) = nu::get_string(env, name) else {
            return nu::undefined(env);
        };
        match r.header(&name) {
            Some(v) => nu::latin1(env, v),
            None => nu::undefined(env),
        }
    })
}

thread_local! {
    /// `keep`'s text is assembled here: no allocation per request once it has grown to the largest head.
    static KEEP: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// `keep(id)`: one copy of what JS may still read of a request after the engine lets go of it (every response's end
/// asks for it, as nothing can know when reads stop: `end` returns it, streamed and file answers call `keep`), in one
/// Latin-1 string, split in JS only when a late read needs it: the HTTP minor version digit (2 for HTTP/2), `0`/`1`
/// for TLS, then the peer — `4` (or `m`, an IPv4-mapped IPv6 address) and the IPv4 address's 4 bytes and the port's 2
/// (big-endian) as raw characters, `t` and `<port> <address>\n` as text for other IPv6 peers, or `-` when the
/// connection is gone — then the head's bytes for
/// `parseKept`. Undefined when the engine already let go.
pub(crate) unsafe extern "C" fn req_keep(env: napi_env, info: napi_callback_info) -> napi_value {
    on_req(env, info, |r, _| kept(env, r))
}

/// The text `keep` returns, for request `r`. An IPv4 peer goes in as raw bytes: formatting it as text cost more than
/// the rest of this on every response's end.
pub(crate) fn kept(env: napi_env, r: &gale_server::ReqView) -> napi_value {
    KEEP.with_borrow_mut(|out| {
        out.clear();
        out.extend_from_slice(&[b'0' + r.minor_version() % 10, b'0' + u8::from(r.secure())]);
        match r.peer() {
            Some(SocketAddr::V4(a)) => {
                out.push(b'4');
                out.extend_from_slice(&a.ip().octets());
                out.extend_from_slice(&a.port().to_be_bytes());
            }
            // A dual-stack listener's IPv4 clients (`::ffff:a.b.c.d`, as node:http's own): raw too.
            Some(SocketAddr::V6(a)) if a.ip().to_ipv4_mapped().is_some() => {
                out.push(b'm');
                out.extend_from_slice(&a.ip().octets()[12..]);
                out.extend_from_slice(&a.port().to_be_bytes());
            }
            Some(a) => {
                out.push(b't');
                let _ = writeln!(out, "{} {}", a.port(), a.ip());
            }
            None => out.push(b'-'),
        }
        out.extend_from_slice(r.head_bytes());
        nu::latin1(env, out)
    })
}

/// `parseKept(head) → [method, target, flat lower-cased headers]` of a head `keep` copied; undefined if it does not
/// parse (it always does: the engine parsed the same bytes once).
pub(crate) unsafe extern "C" fn parse_kept(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, _) = nu::args::<1>(env, info);
    let Some(mut head) = nu::get_latin1(env, argv[0]) else {
        return nu::throw(env, "parseKept(head): head must be a string", true);
    };
    head.extend_from_slice(b"\r\n\r\n");
    match gale_server::KeptHead::parse(&head) {
        Some(k) => nu::array(
            env,
            &[
                nu::latin1(env, k.method()),
                nu::latin1(env, k.target()),
                flat_headers(env, k.headers()),
            ],
        ),
        None => nu::undefined(env),
    }
}

pub(crate) unsafe extern "C" fn req_body(env: napi_env, info: napi_callback_info) -> napi_value {
    on_req(env, info, |r, _| nu::buffer_copy(env, r.body()))
}

/// `local(id) → [address, port, family]` of the connection's local end, or undefined.
pub(crate) unsafe extern "C" fn req_local(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<1>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    match nu::get_u32(env, argv[0]).and_then(|id| s.req_local_addr(id)) {
        Some(a) => addr_array(env, a),
        None => nu::undefined(env),
    }
}

pub(crate) unsafe extern "C" fn req_remote(env: napi_env, info: napi_callback_info) -> napi_value {
    on_req(env, info, |r, _| match r.peer() {
        Some(a) => {
            let arr = addr_array(env, a);
            // [address, port, family, secure]
            // SAFETY: arr is an array from the current scope.
            unsafe { napi::sys::napi_set_element(env, arr, 3, nu::boolean(env, r.secure())) };
            arr
        }
        None => nu::null(env),
    })
}
