//! `createServer(options, dispatch, onEvent)` and the methods of the object it returns. Each method is a
//! raw Node-API function whose data pointer is a strong `Rc<Server>`, dropped by the function's finalizer.
//! Programmer errors (wrong argument types) throw; expected failures (request gone) return false/undefined.

use std::ffi::{c_void, CStr};
use std::ptr;
use std::rc::Rc;

use gale_server::{Config, MethodSel, Server};
use napi::sys::{self, napi_callback_info, napi_env, napi_value, ValueType};

use crate::handler::JsHandler;
use crate::napi_util as nu;

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

pub(crate) fn num_opt(env: napi_env, opts: napi_value, name: &CStr) -> Option<f64> {
    let v = nu::get_prop(env, opts, name);
    (nu::type_of(env, v) == ValueType::napi_number)
        .then(|| nu::get_f64(env, v))
        .flatten()
}

pub(crate) fn bool_opt(env: napi_env, opts: napi_value, name: &CStr) -> Option<bool> {
    let v = nu::get_prop(env, opts, name);
    (nu::type_of(env, v) == ValueType::napi_boolean)
        .then(|| nu::get_bool(env, v))
        .flatten()
}

/// `compression: true | { threshold, brotli, gzip, brotliQuality, gzipLevel }` (anything else: off).
fn compression_opt(env: napi_env, v: napi_value) -> Option<gale_server::CompressOptions> {
    let mut c = gale_server::CompressOptions::default();
    match nu::type_of(env, v) {
        ValueType::napi_boolean => return nu::get_bool(env, v).unwrap_or(false).then_some(c),
        ValueType::napi_object => {}
        _ => return None,
    }
    if let Some(n) = num_opt(env, v, c"threshold") {
        c.threshold = n.max(0.0) as usize;
    }
    if let Some(b) = bool_opt(env, v, c"brotli") {
        c.brotli = b;
    }
    if let Some(b) = bool_opt(env, v, c"gzip") {
        c.gzip = b;
    }
    if let Some(n) = num_opt(env, v, c"brotliQuality") {
        c.brotli_quality = n.clamp(0.0, 11.0) as u32;
    }
    if let Some(n) = num_opt(env, v, c"gzipLevel") {
        c.gzip_level = n.clamp(0.0, 9.0) as u32;
    }
    (c.brotli || c.gzip).then_some(c)
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
    if let Some(n) = num_opt(env, opts, c"maxConnections") {
        c.max_connections = us(n).max(1);
    }
    if let Some(n) = num_opt(env, opts, c"sendTimeout") {
        c.send_timeout_ms = n.max(0.0) as u64;
    }
    if let Some(n) = num_opt(env, opts, c"maxWriteBuffer") {
        c.max_write_buffer = us(n);
    }
    if let Some(n) = num_opt(env, opts, c"backlog") {
        c.backlog = n as i32;
    }
    c.compression = compression_opt(env, nu::get_prop(env, opts, c"compression"));
    if let Some(b) = bool_opt(env, opts, c"proxyProtocol") {
        c.proxy_protocol = b;
    }
    if let Some(b) = bool_opt(env, opts, c"reusePort") {
        c.reuse_port = b;
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
    let (argv, _, _) = nu::args::<4>(env, info);
    if nu::type_of(env, argv[1]) != ValueType::napi_function
        || nu::type_of(env, argv[2]) != ValueType::napi_function
        || nu::type_of(env, argv[3]) != ValueType::napi_function
    {
        return nu::throw(
            env,
            "createServer(options, dispatch, onEvent, onWsMessage): the last three must be functions",
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
    let handler = JsHandler::new(env, argv[1], argv[2], argv[3], resource);
    let server = match Server::new(cfg, Box::new(handler), lp as gale_server::UvLoop) {
        Ok(s) => s,
        Err(e) => return nu::throw(env, &format!("cannot create the server: {e}"), false),
    };
    let mut obj = ptr::null_mut();
    // SAFETY: plain object creation.
    unsafe { sys::napi_create_object(env, &mut obj) };
    let table: [(&CStr, Cb); 42] = [
        (c"route", crate::setup::route),
        (c"fixed", crate::setup::fixed),
        (c"listen", crate::setup::listen),
        (c"close", crate::setup::close),
        (c"forceClose", crate::setup::force_close),
        (c"connections", crate::setup::connections),
        (c"stats", crate::setup::stats),
        (c"setTls", crate::setup::set_tls),
        (c"setHttp2", crate::setup::set_http2),
        (c"end", crate::reply::end),
        (c"writeHead", crate::reply::write_head),
        (c"write", crate::reply::write),
        (c"endStream", crate::reply::end_stream),
        (c"release", crate::reply::release),
        (c"destroy", crate::reply::destroy),
        (c"static", crate::setup::static_mount),
        (c"sendFile", crate::reply::send_file),
        (c"fallback", crate::setup::fallback),
        (c"takeBody", crate::reply::take_body),
        (c"method", crate::reqinfo::req_method),
        (c"url", crate::reqinfo::req_url),
        (c"headers", crate::reqinfo::req_headers),
        (c"header", crate::reqinfo::req_header),
        (c"body", crate::reqinfo::req_body),
        (c"remote", crate::reqinfo::req_remote),
        (c"local", crate::reqinfo::req_local),
        (c"version", crate::reqinfo::req_version),
        (c"wsRoute", crate::ws::ws_route),
        (c"wsAccept", crate::ws::ws_accept),
        (c"wsSend", crate::ws::ws_send),
        (c"wsPing", crate::ws::ws_ping),
        (c"wsClose", crate::ws::ws_close),
        (c"wsTerminate", crate::ws::ws_terminate),
        (c"wsBuffered", crate::ws::ws_buffered),
        (c"wsRemote", crate::ws::ws_remote),
        (c"wsSubscribe", crate::ws::ws_subscribe),
        (c"wsUnsubscribe", crate::ws::ws_unsubscribe),
        (c"wsIsSubscribed", crate::ws::ws_is_subscribed),
        (c"wsTopics", crate::ws::ws_topics),
        (c"wsPublish", crate::ws::ws_publish),
        (c"wsSubscribers", crate::ws::ws_subscribers),
        (c"wsWatchTopics", crate::ws::ws_watch_topics),
    ];
    for (name, cb) in table {
        method(env, obj, name, cb, &server);
    }
    obj
}

/// The server bound to a method call.
///
/// # Safety
/// `data` must be the data pointer of a function created by `method`: an `Rc<Server>` turned into
/// a raw pointer, whose strong count that function object holds until its finalizer drops it. JS
/// can only call the function while the object is alive, so the server outlives every call.
pub(crate) unsafe fn server<'a>(data: *mut c_void) -> &'a Server {
    // SAFETY: caller's contract.
    unsafe { &*(data as *const Server) }
}

pub(crate) fn method_sel(env: napi_env, v: napi_value) -> Result<MethodSel, napi_value> {
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
