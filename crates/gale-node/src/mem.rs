//! In-process connection methods (`app.request`): open one, write the request's bytes, read the response back as
//! status, reason, header pairs and body bytes (parsed by gale-http in the engine), close it. Cold next to the
//! reply methods: one call per request, or per piece of a streamed body.

use std::rc::Rc;

use gale_server::{MemState, MemWrite, Server};
use napi::sys::{napi_callback_info, napi_env, napi_value};

use crate::bound::server;
use crate::napi_util as nu;

/// `memOpen(flags) → key | undefined`: flags 1 = an `https:` URL (the request reads as secure), 2 = a HEAD request.
/// Undefined while the server is closing.
pub(crate) unsafe extern "C" fn mem_open(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<1>(env, info);
    let data = data as *const Server;
    // SAFETY: data is the Rc pointer installed by `method`; bumping the count gives an Rc to hand to `mem_open`,
    // which needs one for the uv timers it may create (as `listen` does).
    let rc = unsafe {
        Rc::increment_strong_count(data);
        Rc::from_raw(data)
    };
    let flags = nu::get_u32(env, argv[0]).unwrap_or(0);
    match rc.mem_open(flags & 1 != 0, flags & 2 != 0) {
        Ok(Some(key)) => nu::uint(env, key),
        Ok(None) => nu::undefined(env),
        Err(e) => nu::throw(
            env,
            &format!("cannot start the engine's timers: {e}"),
            false,
        ),
    }
}

/// `memWrite(key, bytes) → 0 | 1 | 2`: queued / queued but wait for the next wake-up / the connection is gone.
pub(crate) unsafe extern "C" fn mem_write(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<2>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    let (Some(key), Some(bytes)) = (nu::get_u32(env, argv[0]), nu::get_bytes(env, argv[1])) else {
        return nu::throw(
            env,
            "memWrite(key, bytes): bytes must be a Uint8Array",
            true,
        );
    };
    let r = match s.mem_write(key, bytes) {
        MemWrite::Ok => 0,
        MemWrite::Full => 1,
        MemWrite::Gone => 2,
    };
    nu::uint(env, r)
}

/// `memRead(key) → [state, body?, status?, reason?, headers?] | undefined`: state 0 more to come, 1 complete,
/// 2 failed (cut short, or not a response); body the bytes since the last read (undefined: none); status, reason
/// and `[name, value, …]` in the read that completes the head.
pub(crate) unsafe extern "C" fn mem_read(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<1>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    let Some(key) = nu::get_u32(env, argv[0]) else {
        return nu::throw(env, "memRead(key): key must be a number", true);
    };
    s.mem_read(key, |o| {
        let state = match o.state {
            MemState::More => 0,
            MemState::Done => 1,
            MemState::Failed => 2,
        };
        let body = if o.body.is_empty() {
            nu::undefined(env)
        } else {
            nu::buffer_copy(env, o.body)
        };
        let mut items = vec![nu::uint(env, state), body];
        if let Some(h) = o.head {
            items.push(nu::uint(env, u32::from(h.status)));
            items.push(nu::latin1(env, h.reason));
            let mut fields = Vec::with_capacity(h.fields.len() * 2);
            for (name, value) in &h.fields {
                fields.push(nu::latin1(env, name));
                fields.push(nu::latin1(env, value));
            }
            items.push(nu::array(env, &fields));
        }
        nu::array(env, &items)
    })
    .unwrap_or_else(|| nu::undefined(env))
}

/// `memClose(key)`: JS is done with the connection (the response read, or given up on: a request in flight is
/// aborted, as when a client hangs up).
pub(crate) unsafe extern "C" fn mem_close(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<1>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    if let Some(key) = nu::get_u32(env, argv[0]) {
        s.mem_close(key);
    }
    nu::undefined(env)
}
