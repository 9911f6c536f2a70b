//! `createServer(options, dispatch, onEvent)` and the methods of the object it returns. Each method is a
//! raw Node-API function whose data pointer is a strong `Rc<Server>`, dropped by the function's finalizer.
//! Programmer errors (wrong argument types) throw; expected failures (request gone) return false/undefined.

use std::cell::RefCell;
use std::ffi::{c_char, c_void, CStr};
use std::ptr;
use std::rc::Rc;

use gale_server::{Config, MethodSel, Reply, Server};
use napi::sys::{self, napi_callback_info, napi_env, napi_value, ValueType};

use crate::handler::JsHandler;
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
}

type Cb = unsafe extern "C" fn(napi_env, napi_callback_info) -> napi_value;

/// Adds `createServer` to `exports`.
///
/// # Safety
/// `env` and `exports` must be live (module registration).
pub unsafe fn register(env: napi_env, exports: napi_value) {
    let mut f = ptr::null_mut();
    // SAFETY: creating a plain function on a live env.
    unsafe {
        sys::napi_create_function(
            env,
            c"createServer".as_ptr(),
            12,
            Some(create_server),
            ptr::null_mut(),
            &mut f,
        );
    }
    nu::set_prop(env, exports, c"createServer", f);
}

unsafe extern "C" fn drop_server(_env: napi_env, data: *mut c_void, _hint: *mut c_void) {
    // SAFETY: data is the Rc pointer given to this function object in `method`.
    unsafe { drop(Rc::from_raw(data as *const Server)) };
}

fn method(env: napi_env, obj: napi_value, name: &CStr, cb: Cb, server: &Rc<Server>) {
    let data = Rc::into_raw(server.clone()) as *mut c_void;
    let mut f = ptr::null_mut();
    // SAFETY: the function's data pointer stays valid until its finalizer drops the Rc.
    unsafe {
        sys::napi_create_function(
            env,
            name.as_ptr(),
            name.to_bytes().len() as isize,
            Some(cb),
            data,
            &mut f,
        );
        sys::napi_add_finalizer(
            env,
            f,
            data,
            Some(drop_server),
            ptr::null_mut(),
            ptr::null_mut(),
        );
    }
    nu::set_prop(env, obj, name, f);
}

fn num_opt(env: napi_env, opts: napi_value, name: &CStr) -> Option<f64> {
    let v = nu::get_prop(env, opts, name);
    (nu::type_of(env, v) == ValueType::napi_number)
        .then(|| nu::get_f64(env, v))
        .flatten()
}

fn bool_opt(env: napi_env, opts: napi_value, name: &CStr) -> Option<bool> {
    let v = nu::get_prop(env, opts, name);
    (nu::type_of(env, v) == ValueType::napi_boolean)
        .then(|| nu::get_bool(env, v))
        .flatten()
}

fn config(env: napi_env, opts: napi_value) -> Config {
    let mut c = Config::default();
    if nu::type_of(env, opts) != ValueType::napi_object {
        return c;
    }
    let us = |n: f64| n.max(0.0) as usize;
    if let Some(n) = num_opt(env, opts, c"bodyLimit") {
        c.body_limit = n.max(0.0) as u64;
    }
    if let Some(n) = num_opt(env, opts, c"maxHeaderSize") {
        c.limits.max_head_bytes = us(n);
    }
    if let Some(n) = num_opt(env, opts, c"maxHeaders") {
        c.limits.max_headers = us(n);
    }
    if let Some(n) = num_opt(env, opts, c"maxUriLength") {
        c.limits.max_uri_bytes = us(n);
    }
    if let Some(n) = num_opt(env, opts, c"headersTimeout") {
        c.headers_timeout_ms = n as u64;
    }
    if let Some(n) = num_opt(env, opts, c"requestTimeout") {
        c.request_timeout_ms = n as u64;
    }
    if let Some(n) = num_opt(env, opts, c"keepAliveTimeout") {
        c.keep_alive_timeout_ms = n as u64;
    }
    if let Some(n) = num_opt(env, opts, c"maxPipeline") {
        c.max_pipeline = us(n).max(1);
    }
    if let Some(n) = num_opt(env, opts, c"highWaterMark") {
        c.high_water_mark = us(n);
    }
    if let Some(n) = num_opt(env, opts, c"backlog") {
        c.backlog = n as i32;
    }
    if let Some(b) = bool_opt(env, opts, c"caseSensitive") {
        c.router.case_sensitive = b;
    }
    if let Some(b) = bool_opt(env, opts, c"strict") {
        c.router.strict = b;
    }
    c
}

unsafe extern "C" fn create_server(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, _) = nu::args::<3>(env, info);
    if nu::type_of(env, argv[1]) != ValueType::napi_function
        || nu::type_of(env, argv[2]) != ValueType::napi_function
    {
        return nu::throw(
            env,
            "createServer(options, dispatch, onEvent): dispatch and onEvent must be functions",
            true,
        );
    }
    let cfg = config(env, argv[0]);
    let mut lp = ptr::null_mut();
    let mut resource = ptr::null_mut();
    // SAFETY: plain queries on a live env.
    unsafe {
        sys::napi_get_uv_event_loop(env, &mut lp);
        sys::napi_create_object(env, &mut resource);
    }
    let handler = JsHandler::new(env, argv[1], argv[2], resource);
    let server = match Server::new(cfg, Box::new(handler), lp as gale_server::UvLoop) {
        Ok(s) => s,
        Err(e) => return nu::throw(env, &format!("cannot create the server: {e}"), false),
    };
    let mut obj = ptr::null_mut();
    // SAFETY: plain object creation.
    unsafe { sys::napi_create_object(env, &mut obj) };
    let table: [(&CStr, Cb); 23] = [
        (c"route", route),
        (c"fixed", fixed),
        (c"listen", listen),
        (c"close", close),
        (c"forceClose", force_close),
        (c"connections", connections),
        (c"end", end),
        (c"writeHead", write_head),
        (c"write", write),
        (c"endStream", end_stream),
        (c"release", release),
        (c"destroy", destroy),
        (c"static", static_mount),
        (c"sendFile", send_file),
        (c"fallback", fallback),
        (c"takeBody", take_body),
        (c"method", req_method),
        (c"url", req_url),
        (c"headers", req_headers),
        (c"header", req_header),
        (c"body", req_body),
        (c"remote", req_remote),
        (c"version", req_version),
    ];
    for (name, cb) in table {
        method(env, obj, name, cb, &server);
    }
    obj
}

/// The server bound to a method call.
///
/// # Safety
/// `data` must be the pointer installed by `method` (kept alive by the function object).
unsafe fn server<'a>(data: *mut c_void) -> &'a Server {
    // SAFETY: caller's contract.
    unsafe { &*(data as *const Server) }
}

fn method_sel(env: napi_env, v: napi_value) -> Result<MethodSel, napi_value> {
    let m =
        nu::get_string(env, v).ok_or_else(|| nu::throw(env, "method must be a string", true))?;
    if m == b"ALL" {
        return Ok(MethodSel::All);
    }
    gale_router::Method::from_bytes(&m)
        .map(MethodSel::One)
        .ok_or_else(|| {
            nu::throw(
                env,
                &format!("unknown method {:?}", String::from_utf8_lossy(&m)),
                true,
            )
        })
}

unsafe extern "C" fn route(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<3>(env, info);
    // SAFETY: data installed by `method`.
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
    let pattern = String::from_utf8_lossy(&pattern);
    match s.add_route(sel, &pattern, id) {
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

unsafe extern "C" fn fixed(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<5>(env, info);
    // SAFETY: data installed by `method`.
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

fn addr_array(env: napi_env, a: std::net::SocketAddr) -> napi_value {
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

unsafe extern "C" fn listen(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<2>(env, info);
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
    match rc.listen(&host, port as u16) {
        Ok(a) => addr_array(env, a),
        Err(e) => {
            let code = match e.kind() {
                std::io::ErrorKind::AddrInUse => "EADDRINUSE",
                std::io::ErrorKind::PermissionDenied => "EACCES",
                std::io::ErrorKind::AddrNotAvailable => "EADDRNOTAVAIL",
                _ => "ELISTEN",
            };
            let msg = format!("listen {code}: {e} ({host}:{port})\0");
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

unsafe extern "C" fn close(env: napi_env, info: napi_callback_info) -> napi_value {
    let (_, _, data) = nu::args::<0>(env, info);
    // SAFETY: data installed by `method`.
    unsafe { server(data) }.close();
    nu::undefined(env)
}

unsafe extern "C" fn force_close(env: napi_env, info: napi_callback_info) -> napi_value {
    let (_, _, data) = nu::args::<0>(env, info);
    // SAFETY: data installed by `method`.
    unsafe { server(data) }.force_close();
    nu::undefined(env)
}

unsafe extern "C" fn connections(env: napi_env, info: napi_callback_info) -> napi_value {
    let (_, _, data) = nu::args::<0>(env, info);
    // SAFETY: data installed by `method`.
    nu::uint(env, unsafe { server(data) }.connection_count() as u32)
}

/// Reads (status, content type, header lines) arguments into the scratch buffers and runs `f`.
fn with_reply<R>(
    env: napi_env,
    status: napi_value,
    ctype: napi_value,
    headers: napi_value,
    f: impl FnOnce(&Reply) -> R,
) -> Result<R, napi_value> {
    let status = match nu::get_u32(env, status) {
        Some(s) if (100..=999).contains(&s) => s as u16,
        _ => {
            return Err(nu::throw(
                env,
                "status must be an integer from 100 to 999",
                true,
            ))
        }
    };
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
                let len = nu::utf8_len(env, ctype).unwrap_or(0);
                nu::append_utf8(env, ctype, len, ct_buf);
                ct_buf
            }
            _ => b"",
        };
        let hdrs: &[u8] = if nu::type_of(env, headers) == ValueType::napi_string {
            hdr_buf.clear();
            let len = nu::utf8_len(env, headers).unwrap_or(0);
            nu::append_utf8(env, headers, len, hdr_buf);
            hdr_buf
        } else {
            b""
        };
        Ok(f(&Reply {
            status,
            content_type: ct,
            headers: hdrs,
        }))
    })
}

/// A body argument: its length and how to append it.
enum Body<'a> {
    Str(napi_value, usize),
    Bytes(&'a [u8]),
    None,
}

fn body_arg<'a>(env: napi_env, v: napi_value) -> Result<Body<'a>, napi_value> {
    match nu::type_of(env, v) {
        ValueType::napi_undefined | ValueType::napi_null => Ok(Body::None),
        ValueType::napi_string => Ok(Body::Str(v, nu::utf8_len(env, v).unwrap_or(0))),
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
            Body::Str(_, n) => *n,
            Body::Bytes(b) => b.len(),
            Body::None => 0,
        }
    }

    fn append(&self, env: napi_env, out: &mut Vec<u8>) {
        match self {
            Body::Str(v, n) => nu::append_utf8(env, *v, *n, out),
            Body::Bytes(b) => out.extend_from_slice(b),
            Body::None => {}
        }
    }
}

unsafe extern "C" fn end(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<5>(env, info);
    // SAFETY: data installed by `method`.
    let s = unsafe { server(data) };
    let Some(id) = nu::get_u32(env, argv[0]) else {
        return nu::throw(env, "end(): id must be a number", true);
    };
    let body = match body_arg(env, argv[4]) {
        Ok(b) => b,
        Err(e) => return e,
    };
    match with_reply(env, argv[1], argv[2], argv[3], |reply| {
        s.end(id, reply, body.len(), |out| body.append(env, out))
    }) {
        Ok(ok) => nu::boolean(env, ok),
        Err(e) => e,
    }
}

unsafe extern "C" fn write_head(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<4>(env, info);
    // SAFETY: data installed by `method`.
    let s = unsafe { server(data) };
    let Some(id) = nu::get_u32(env, argv[0]) else {
        return nu::throw(env, "writeHead(): id must be a number", true);
    };
    match with_reply(env, argv[1], argv[2], argv[3], |reply| {
        s.write_head(id, reply)
    }) {
        Ok(ok) => nu::boolean(env, ok),
        Err(e) => e,
    }
}

unsafe extern "C" fn write(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<2>(env, info);
    // SAFETY: data installed by `method`.
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

unsafe extern "C" fn end_stream(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<2>(env, info);
    // SAFETY: data installed by `method`.
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

unsafe extern "C" fn release(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<1>(env, info);
    // SAFETY: data installed by `method`.
    let s = unsafe { server(data) };
    if let Some(id) = nu::get_u32(env, argv[0]) {
        s.release(id);
    }
    nu::undefined(env)
}

unsafe extern "C" fn destroy(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<1>(env, info);
    // SAFETY: data installed by `method`.
    let s = unsafe { server(data) };
    if let Some(id) = nu::get_u32(env, argv[0]) {
        s.destroy(id);
    }
    nu::undefined(env)
}

/// takeBody(id) → [Buffer, state] (state 0 more coming, 1 complete, else an error status) or undefined.
unsafe extern "C" fn take_body(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<1>(env, info);
    // SAFETY: data installed by `method`.
    let s = unsafe { server(data) };
    let Some(id) = nu::get_u32(env, argv[0]) else {
        return nu::throw(env, "takeBody(id): id must be a number", true);
    };
    match s.take_body(id) {
        Some((bytes, state)) => nu::array(
            env,
            &[nu::buffer_copy(env, &bytes), nu::uint(env, state as u32)],
        ),
        None => nu::undefined(env),
    }
}

unsafe extern "C" fn fallback(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<1>(env, info);
    // SAFETY: data installed by `method`.
    let s = unsafe { server(data) };
    s.set_fallback(nu::get_u32(env, argv[0]));
    nu::undefined(env)
}

/// A JS array of strings as Rust strings (non-strings are skipped).
fn string_array(env: napi_env, v: napi_value) -> Vec<String> {
    let mut len = 0u32;
    let mut is = false;
    // SAFETY: plain queries on a value from the current scope.
    unsafe { sys::napi_is_array(env, v, &mut is) };
    if !is {
        return Vec::new();
    }
    // SAFETY: v is an array.
    unsafe { sys::napi_get_array_length(env, v, &mut len) };
    (0..len)
        .filter_map(|i| {
            let mut e = ptr::null_mut();
            // SAFETY: i is within the array's length.
            unsafe { sys::napi_get_element(env, v, i, &mut e) };
            nu::get_string(env, e).map(|b| String::from_utf8_lossy(&b).into_owned())
        })
        .collect()
}

fn static_options(env: napi_env, o: napi_value) -> Result<gale_server::StaticOptions, String> {
    let mut opts = gale_server::StaticOptions::default();
    if nu::type_of(env, o) != ValueType::napi_object {
        return Ok(opts);
    }
    let v = nu::get_prop(env, o, c"index");
    if nu::type_of(env, v) == ValueType::napi_object {
        opts.index = string_array(env, v);
    }
    opts.extensions = string_array(env, nu::get_prop(env, o, c"extensions"));
    let fb = nu::get_prop(env, o, c"fallback");
    opts.fallback = nu::get_string(env, fb).map(|b| String::from_utf8_lossy(&b).into_owned());
    if let Some(d) = nu::get_string(env, nu::get_prop(env, o, c"dotfiles")) {
        opts.dotfiles = match d.as_slice() {
            b"allow" => gale_server::Dotfiles::Allow,
            b"deny" => gale_server::Dotfiles::Deny,
            _ => gale_server::Dotfiles::Ignore,
        };
    }
    opts.max_age = num_opt(env, o, c"maxAge").map(|n| n.max(0.0) as u64);
    if let Some(src) = nu::get_string(env, nu::get_prop(env, o, c"immutable")) {
        let src = String::from_utf8_lossy(&src);
        opts.immutable = Some(
            regex_lite::Regex::new(&src).map_err(|e| format!("immutable pattern {src:?}: {e}"))?,
        );
    }
    if let Some(b) = bool_opt(env, o, c"cache") {
        opts.cache = b;
    }
    if let Some(n) = num_opt(env, o, c"cacheFileMax") {
        opts.cache_file_max = n.max(0.0) as u64;
    }
    if let Some(n) = num_opt(env, o, c"cacheMax") {
        opts.cache_max = n.max(0.0) as u64;
    }
    if let Some(b) = bool_opt(env, o, c"precompressed") {
        opts.precompressed = b;
    }
    if let Some(b) = bool_opt(env, o, c"compress") {
        opts.compress = b;
    }
    if let Some(b) = bool_opt(env, o, c"redirect") {
        opts.redirect = b;
    }
    if let Some(h) = nu::get_string(env, nu::get_prop(env, o, c"headers")) {
        opts.headers = h;
    }
    Ok(opts)
}

unsafe extern "C" fn static_mount(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<3>(env, info);
    // SAFETY: data installed by `method`.
    let s = unsafe { server(data) };
    let (Some(prefix), Some(dir)) = (nu::get_string(env, argv[0]), nu::get_string(env, argv[1]))
    else {
        return nu::throw(
            env,
            "static(prefix, dir, options): prefix and dir must be strings",
            true,
        );
    };
    let opts = match static_options(env, argv[2]) {
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

/// sendFile(id, path, headerLines) → 0 sent, 1 request gone, 404 no such file.
unsafe extern "C" fn send_file(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<3>(env, info);
    // SAFETY: data installed by `method`.
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

/// Runs `f` on request `argv[0]`, returning undefined when it is gone.
fn on_req(
    env: napi_env,
    info: napi_callback_info,
    f: impl FnOnce(&gale_server::ReqView, napi_value) -> napi_value,
) -> napi_value {
    let (argv, _, data) = nu::args::<2>(env, info);
    // SAFETY: data installed by `method`.
    let s = unsafe { server(data) };
    let Some(id) = nu::get_u32(env, argv[0]) else {
        return nu::throw(env, "request id must be a number", true);
    };
    s.with_req(id, |r| f(r, argv[1]))
        .unwrap_or_else(|| nu::undefined(env))
}

unsafe extern "C" fn req_method(env: napi_env, info: napi_callback_info) -> napi_value {
    on_req(env, info, |r, _| nu::latin1(env, r.method()))
}

unsafe extern "C" fn req_url(env: napi_env, info: napi_callback_info) -> napi_value {
    on_req(env, info, |r, _| nu::latin1(env, r.target()))
}

unsafe extern "C" fn req_version(env: napi_env, info: napi_callback_info) -> napi_value {
    on_req(env, info, |r, _| nu::uint(env, r.minor_version() as u32))
}

unsafe extern "C" fn req_headers(env: napi_env, info: napi_callback_info) -> napi_value {
    on_req(env, info, |r, _| {
        let mut vals = Vec::with_capacity(32);
        let mut lower = Vec::with_capacity(32);
        for (n, v) in r.headers() {
            lower.clear();
            lower.extend(n.iter().map(u8::to_ascii_lowercase));
            vals.push(nu::latin1(env, &lower));
            vals.push(nu::latin1(env, v));
        }
        nu::array(env, &vals)
    })
}

unsafe extern "C" fn req_header(env: napi_env, info: napi_callback_info) -> napi_value {
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

unsafe extern "C" fn req_body(env: napi_env, info: napi_callback_info) -> napi_value {
    on_req(env, info, |r, _| nu::buffer_copy(env, r.body()))
}

unsafe extern "C" fn req_remote(env: napi_env, info: napi_callback_info) -> napi_value {
    on_req(env, info, |r, _| match r.peer() {
        Some(a) => addr_array(env, a),
        None => nu::null(env),
    })
}
