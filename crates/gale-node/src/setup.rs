//! Server set-up methods: routes, fixed responses, static mounts, the fallback route, listen and close.
//! Cold paths: called while the app is built or shut down, never per request. The options these take are read in
//! config.rs.

use std::ffi::c_char;
use std::ptr;
use std::rc::Rc;

use gale_server::Server;
use napi::sys::{self, napi_callback_info, napi_env, napi_value};

use crate::bound::server;
use crate::napi_util as nu;

pub(crate) unsafe extern "C" fn route(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<3>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    let sel = match method_sel(env, argv[0]) {
        Ok(m) => m,
        Err(e) => return e,
    };
    let (Some(pattern), Some(id)) = (nu::get_string(env, argv[1]), nu::get_u32(env, argv[2]))
    else {
        return nu::throw(
            env,
            "route(method, path, id): path must be a string and id a number",
            true,
        );
    };
    if id >= 1 << crate::handler::ROUTE_BITS {
        return nu::throw(
            env,
            "route(method, path, id): too many routes (2^24 at most)",
            true,
        );
    }
    let pattern = String::from_utf8_lossy(&pattern);
    route_names(env, s.add_route(sel, &pattern, id))
}

/// A route registration's result for JS: its param names, or a thrown Error saying what is wrong.
pub(crate) fn route_names(env: napi_env, r: Result<Vec<String>, String>) -> napi_value {
    match r {
        Ok(names) => {
            let vals: Vec<napi_value> = names
                .iter()
                .map(|n| nu::string(env, n.as_bytes()))
                .collect();
            nu::array(env, &vals)
        }
        Err(msg) => nu::throw(env, &msg, false),
    }
}

pub(crate) unsafe extern "C" fn fixed(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<5>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    let sel = match method_sel(env, argv[0]) {
        Ok(m) => m,
        Err(e) => return e,
    };
    let (Some(pattern), Some(status)) = (nu::get_string(env, argv[1]), nu::get_u32(env, argv[2]))
    else {
        return nu::throw(
            env,
            "fixed(method, path, status, headers, body): bad arguments",
            true,
        );
    };
    let mut headers = Vec::new();
    let mut len = 0u32;
    // SAFETY: argv[3] is checked to be an array by napi (errors leave len 0).
    unsafe { sys::napi_get_array_length(env, argv[3], &mut len) };
    let mut i = 0;
    while i + 1 < len {
        let mut k = ptr::null_mut();
        let mut v = ptr::null_mut();
        // SAFETY: indices are within the array's length.
        unsafe {
            sys::napi_get_element(env, argv[3], i, &mut k);
            sys::napi_get_element(env, argv[3], i + 1, &mut v);
        }
        let (Some(k), Some(v)) = (nu::get_string(env, k), nu::get_string(env, v)) else {
            return nu::throw(
                env,
                "fixed(): header names and values must be strings",
                true,
            );
        };
        headers.push((
            String::from_utf8_lossy(&k).into_owned(),
            String::from_utf8_lossy(&v).into_owned(),
        ));
        i += 2;
    }
    let body = match nu::get_string(env, argv[4]) {
        Some(b) => b,
        None => match nu::get_bytes(env, argv[4]) {
            Some(b) => b.to_vec(),
            None => return nu::throw(env, "fixed(): body must be a string or a Uint8Array", true),
        },
    };
    let pattern = String::from_utf8_lossy(&pattern);
    match s.add_fixed(sel, &pattern, status as u16, &headers, body) {
        Ok(()) => nu::undefined(env),
        Err(msg) => nu::throw(env, &msg, false),
    }
}

pub(crate) fn addr_array(env: napi_env, a: std::net::SocketAddr) -> napi_value {
    let ip = a.ip().to_string();
    let family: &[u8] = if a.is_ipv4() { b"IPv4" } else { b"IPv6" };
    nu::array(
        env,
        &[
            nu::string(env, ip.as_bytes()),
            nu::uint(env, a.port() as u32),
            nu::latin1(env, family),
        ],
    )
}

pub(crate) unsafe extern "C" fn listen(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<3>(env, info);
    let data = data as *const Server;
    // SAFETY: data is the Rc pointer installed by `method`; bumping the count gives us an Rc to
    // hand to `listen`, which needs one for the uv handles.
    let rc = unsafe {
        Rc::increment_strong_count(data);
        Rc::from_raw(data)
    };
    let (Some(host), Some(port)) = (nu::get_string(env, argv[0]), nu::get_u32(env, argv[1])) else {
        return nu::throw(env, "listen(host, port): bad arguments", true);
    };
    let host = String::from_utf8_lossy(&host).into_owned();
    // listen({ io }) was checked in TS (option-rules.ts): 'auto', 'uring' or 'epoll'.
    let io = match nu::get_string(env, argv[2]).as_deref() {
        Some(b"uring") => gale_server::IoBackend::Uring,
        Some(b"epoll") => gale_server::IoBackend::Epoll,
        _ => gale_server::IoBackend::Auto,
    };
    match rc.listen_io(&host, port as u16, io) {
        Ok((a, fallback)) => nu::array(
            env,
            &[
                addr_array(env, a),
                nu::latin1(env, rc.io_backend().as_bytes()),
                match fallback {
                    Some(why) => nu::string(env, why.as_bytes()),
                    None => nu::undefined(env),
                },
            ],
        ),
        Err(e) => {
            // node:http's codes and texts (libuv's), so code that matches on either works the same.
            let (code, text) = match e.kind() {
                std::io::ErrorKind::AddrInUse => {
                    ("EADDRINUSE", "address already in use".to_string())
                }
                std::io::ErrorKind::PermissionDenied => ("EACCES", "permission denied".to_string()),
                std::io::ErrorKind::AddrNotAvailable => {
                    ("EADDRNOTAVAIL", "address not available".to_string())
                }
                _ => ("ELISTEN", e.to_string()),
            };
            // An error the engine made (not the system's alone) says what failed: the HTTP/3 UDP bind, say.
            let msg = match e.get_ref() {
                Some(why) if code != "ELISTEN" => {
                    format!("listen {code}: {text} {host}:{port} ({why})\0")
                }
                _ => format!("listen {code}: {text} {host}:{port}\0"),
            };
            let code = format!("{code}\0");
            // SAFETY: both strings are NUL-terminated.
            unsafe {
                sys::napi_throw_error(
                    env,
                    code.as_ptr() as *const c_char,
                    msg.as_ptr() as *const c_char,
                );
            }
            ptr::null_mut()
        }
    }
}

/// `close(idleGraceMs)`: graceful close; idle HTTP/1.1 connections stay open for the grace (see close_with_grace).
pub(crate) unsafe extern "C" fn close(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<1>(env, info);
    let grace = nu::get_u32(env, argv[0]).unwrap_or(0);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    unsafe { server(data) }.close_with_grace(u64::from(grace));
    nu::undefined(env)
}

/// `setKeepAliveTimeout(ms)`: the idle keep-alive timeout from now on (node:http's `server.keepAliveTimeout =`).
pub(crate) unsafe extern "C" fn keep_alive(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<1>(env, info);
    let Some(ms) = nu::get_u32(env, argv[0]) else {
        return nu::throw(
            env,
            "setKeepAliveTimeout(ms): ms must be a number of milliseconds",
            true,
        );
    };
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    unsafe { server(data) }.set_keep_alive_timeout(u64::from(ms));
    nu::undefined(env)
}

/// `serveAdopted()`: serve connections handed over with `adopt(fd)` (a node:cluster worker's), without a listener.
pub(crate) unsafe extern "C" fn serve_adopted(
    env: napi_env,
    info: napi_callback_info,
) -> napi_value {
    let (_, _, data) = nu::args::<0>(env, info);
    let data = data as *const Server;
    // SAFETY: as in `listen`: data is the Rc pointer installed by `method`; the bumped count is the Rc the uv
    // handles keep.
    let rc = unsafe {
        Rc::increment_strong_count(data);
        Rc::from_raw(data)
    };
    serve_adopted_on(env, &rc)
}

#[cfg(unix)]
fn serve_adopted_on(env: napi_env, server: &Rc<Server>) -> napi_value {
    match server.serve_adopted() {
        Ok(()) => nu::undefined(env),
        Err(e) => nu::throw(env, &format!("serveAdopted: {e}"), false),
    }
}

#[cfg(not(unix))]
fn serve_adopted_on(env: napi_env, _server: &Rc<Server>) -> napi_value {
    nu::throw(
        env,
        "serveAdopted: connections handed over by descriptor are Unix only",
        false,
    )
}

/// `adopt(fd)`: serve a connected TCP socket accepted elsewhere (a copy of `fd`; the caller closes its own).
/// Returns an error message, or undefined.
pub(crate) unsafe extern "C" fn adopt(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<1>(env, info);
    let Some(fd) = nu::get_u32(env, argv[0]) else {
        return nu::throw(env, "adopt(fd): fd must be a descriptor number", true);
    };
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    adopt_on(env, unsafe { server(data) }, fd)
}

#[cfg(unix)]
fn adopt_on(env: napi_env, server: &Server, fd: u32) -> napi_value {
    match server.adopt(fd as std::os::fd::RawFd) {
        Ok(()) => nu::undefined(env),
        Err(e) => nu::string(env, e.to_string().as_bytes()),
    }
}

#[cfg(not(unix))]
fn adopt_on(env: napi_env, _server: &Server, _fd: u32) -> napi_value {
    nu::string(env, b"connections handed over by descriptor are Unix only")
}

pub(crate) unsafe extern "C" fn force_close(env: napi_env, info: napi_callback_info) -> napi_value {
    let (_, _, data) = nu::args::<0>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    unsafe { server(data) }.force_close();
    nu::undefined(env)
}

pub(crate) unsafe extern "C" fn connections(env: napi_env, info: napi_callback_info) -> napi_value {
    let (_, _, data) = nu::args::<0>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    nu::uint(env, unsafe { server(data) }.connection_count() as u32)
}

/// `stats() → [connections, websockets, requestsInFlight, requestRecords, requestsTotal, pendingOutput, acceptPaused]`
pub(crate) unsafe extern "C" fn stats(env: napi_env, info: napi_callback_info) -> napi_value {
    let (_, _, data) = nu::args::<0>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) }.stats();
    let num = |n: f64| {
        let mut v = ptr::null_mut();
        // SAFETY: plain value creation on the current env.
        unsafe { sys::napi_create_double(env, n, &mut v) };
        v
    };
    nu::array(
        env,
        &[
            num(s.connections as f64),
            num(s.websockets as f64),
            num(s.requests_in_flight as f64),
            num(s.request_records as f64),
            num(s.requests_total as f64),
            num(s.pending_output as f64),
            nu::boolean(env, s.accept_paused),
        ],
    )
}

pub(crate) unsafe extern "C" fn fallback(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<1>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    s.set_fallback(nu::get_u32(env, argv[0]));
    nu::undefined(env)
}

pub(crate) unsafe extern "C" fn static_mount(
    env: napi_env,
    info: napi_callback_info,
) -> napi_value {
    let (argv, _, data) = nu::args::<3>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    let (Some(prefix), Some(dir)) = (nu::get_string(env, argv[0]), nu::get_string(env, argv[1]))
    else {
        return nu::throw(
            env,
            "static(prefix, dir, options): prefix and dir must be strings",
            true,
        );
    };
    let opts = match crate::config::static_options(env, argv[2]) {
        Ok(o) => o,
        Err(msg) => return nu::throw(env, &msg, true),
    };
    let prefix = String::from_utf8_lossy(&prefix);
    let dir = std::path::PathBuf::from(String::from_utf8_lossy(&dir).into_owned());
    match s.add_static(&prefix, &dir, opts) {
        Ok(()) => nu::undefined(env),
        Err(msg) => nu::throw(env, &msg, false),
    }
}

/// A route method from JS (`GET`, …, or `ALL`).
pub(crate) fn method_sel(
    env: napi_env,
    v: napi_value,
) -> Result<gale_server::MethodSel, napi_value> {
    let m =
        nu::get_string(env, v).ok_or_else(|| nu::throw(env, "method must be a string", true))?;
    if m == b"ALL" {
        return Ok(gale_server::MethodSel::All);
    }
    gale_router::Method::from_bytes(&m)
        .map(gale_server::MethodSel::One)
        .ok_or_else(|| {
            nu::throw(
                env,
                &format!("unknown method {:?}", String::from_utf8_lossy(&m)),
                true,
            )
        })
}
