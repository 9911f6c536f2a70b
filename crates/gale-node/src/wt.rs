//! WebTransport methods for JS: accept a session, open streams, write, end, reset, pause, datagrams, close.
//! Sessions and streams are ids the engine gave; an id that is gone answers 'closed' (3) or undefined.

use napi::sys::{napi_callback_info, napi_env, napi_value, ValueType};

use crate::bound::server;
use crate::napi_util as nu;

/// Bytes from JS: a string (its UTF-8) or a Uint8Array.
fn bytes_arg(env: napi_env, v: napi_value, out: &mut Vec<u8>) -> Option<()> {
    if nu::type_of(env, v) == ValueType::napi_string {
        let len = nu::utf8_len(env, v)?;
        nu::append_utf8(env, v, len, out);
        return Some(());
    }
    out.extend_from_slice(nu::get_bytes(env, v)?);
    Some(())
}

/// `wtAccept(requestId) → sessionId | undefined`: accepts the WebTransport CONNECT a route is answering.
pub(crate) unsafe extern "C" fn wt_accept(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<1>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    let Some(id) = nu::get_u32(env, argv[0]) else {
        return nu::throw(env, "wtAccept(id): id must be a number", true);
    };
    match s.wt_accept(id) {
        Some(sid) => nu::uint(env, sid),
        None => nu::undefined(env),
    }
}

/// `wtOpen(sessionId, bidi) → streamId | undefined`
pub(crate) unsafe extern "C" fn wt_open(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<2>(env, info);
    // SAFETY: as in wt_accept.
    let s = unsafe { server(data) };
    let (Some(sid), Some(bidi)) = (nu::get_u32(env, argv[0]), nu::get_bool(env, argv[1])) else {
        return nu::throw(env, "wtOpen(session, bidi): bad arguments", true);
    };
    match s.wt_open(sid, bidi) {
        Some(id) => nu::uint(env, id),
        None => nu::undefined(env),
    }
}

/// `wtWrite(streamId, data, fin) → status` (0 sent, 1 buffered: wait for the drain event, 2 dropped, 3 closed)
pub(crate) unsafe extern "C" fn wt_write(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<3>(env, info);
    // SAFETY: as in wt_accept.
    let s = unsafe { server(data) };
    let mut bytes = Vec::new();
    let (Some(id), Some(())) = (
        nu::get_u32(env, argv[0]),
        bytes_arg(env, argv[1], &mut bytes),
    ) else {
        return nu::throw(
            env,
            "wtWrite(stream, data, fin): data must be a string or a Uint8Array",
            true,
        );
    };
    let fin = nu::get_bool(env, argv[2]).unwrap_or(false);
    nu::uint(env, s.wt_write(id, &bytes, fin) as u32)
}

/// `wtReset(streamId, code, stop)`: resets the stream's sending, or (`stop`) asks the client to stop its own.
pub(crate) unsafe extern "C" fn wt_reset(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<3>(env, info);
    // SAFETY: as in wt_accept.
    let s = unsafe { server(data) };
    let (Some(id), Some(code)) = (nu::get_u32(env, argv[0]), nu::get_u32(env, argv[1])) else {
        return nu::throw(env, "wtReset(stream, code, stop): bad arguments", true);
    };
    s.wt_reset(id, code, nu::get_bool(env, argv[2]).unwrap_or(false));
    nu::undefined(env)
}

/// `wtPause(streamId, paused)`
pub(crate) unsafe extern "C" fn wt_pause(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<2>(env, info);
    // SAFETY: as in wt_accept.
    let s = unsafe { server(data) };
    if let (Some(id), Some(p)) = (nu::get_u32(env, argv[0]), nu::get_bool(env, argv[1])) {
        s.wt_pause(id, p);
    }
    nu::undefined(env)
}

/// `wtDatagram(sessionId, data) → status` (0 sent, 2 dropped: too large, 3 closed)
pub(crate) unsafe extern "C" fn wt_datagram(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<2>(env, info);
    // SAFETY: as in wt_accept.
    let s = unsafe { server(data) };
    let mut bytes = Vec::new();
    let (Some(id), Some(())) = (
        nu::get_u32(env, argv[0]),
        bytes_arg(env, argv[1], &mut bytes),
    ) else {
        return nu::throw(
            env,
            "wtDatagram(session, data): data must be a string or a Uint8Array",
            true,
        );
    };
    nu::uint(env, s.wt_datagram(id, &bytes) as u32)
}

/// `wtMaxDatagram(sessionId) → bytes`
pub(crate) unsafe extern "C" fn wt_max_datagram(
    env: napi_env,
    info: napi_callback_info,
) -> napi_value {
    let (argv, _, data) = nu::args::<1>(env, info);
    // SAFETY: as in wt_accept.
    let s = unsafe { server(data) };
    let n = nu::get_u32(env, argv[0]).map_or(0, |id| s.wt_max_datagram(id));
    nu::uint(env, n as u32)
}

/// `wtClose(sessionId, code, reason)`
pub(crate) unsafe extern "C" fn wt_close(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<3>(env, info);
    // SAFETY: as in wt_accept.
    let s = unsafe { server(data) };
    let (Some(id), Some(code)) = (nu::get_u32(env, argv[0]), nu::get_u32(env, argv[1])) else {
        return nu::throw(env, "wtClose(session, code, reason): bad arguments", true);
    };
    let reason = nu::get_string(env, argv[2]).unwrap_or_default();
    s.wt_close(id, code, &String::from_utf8_lossy(&reason));
    nu::undefined(env)
}
