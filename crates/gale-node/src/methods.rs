//! `createServer(options, dispatch, onEvent)` and the methods of the object it returns. Each method is a
//! raw Node-API function whose data pointer is a strong `Rc<Server>`, dropped by the function's finalizer.
//! Programmer errors (wrong argument types) throw; expected failures (request gone) return false/undefined.

use std::ffi::CStr;
use std::ptr;

use gale_server::{Config, Server};
use napi::sys::{self, napi_callback_info, napi_env, napi_value, ValueType};

use crate::bound::{method, Cb};
use crate::handler::JsHandler;
use crate::napi_util::{self as nu, bool_opt, num_opt};

/// Adds `createServer` and `etag` to `exports`.
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
    let mut e = ptr::null_mut();
    // SAFETY: as above.
    unsafe {
        sys::napi_create_function(
            env,
            c"etag".as_ptr(),
            4,
            Some(crate::etag::etag),
            ptr::null_mut(),
            &mut e,
        );
    }
    nu::set_prop(env, exports, c"etag", e);
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
    if let Some(b) = bool_opt(env, opts, c"strictHost") {
        c.limits.strict_host = b;
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
    if let Some(b) = bool_opt(env, opts, c"keepAliveHeader") {
        c.keep_alive_header = b;
    }
    if let Some(b) = bool_opt(env, opts, c"decodeParams") {
        c.decode_params = b;
    }
    if let Some(b) = bool_opt(env, opts, c"caseSensitive") {
        c.router.case_sensitive = b;
    }
    if let Some(b) = bool_opt(env, opts, c"strict") {
        c.router.strict = b;
    }
    // gale() checked the value (option-rules.ts): 'negotiate' (the default), 'text' or 'problem'.
    let fmt = nu::get_prop(env, opts, c"errorFormat");
    if nu::type_of(env, fmt) == ValueType::napi_string {
        c.error_format = match nu::get_string(env, fmt).as_deref() {
            Some(b"text") => gale_server::ErrorFormat::Text,
            Some(b"problem") => gale_server::ErrorFormat::Problem,
            _ => gale_server::ErrorFormat::Negotiate,
        };
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
    // (name, callback, arity): the arity becomes the function's `length`, which tests/api/binding-interface.test.ts
    // compares with the NativeServer interface in packages/gale/src/native.ts.
    let table: [(&CStr, Cb, u32); 58] = [
        (c"route", crate::setup::route, 3),
        (c"fixed", crate::setup::fixed, 5),
        (c"routeAnswer", crate::reply::route_answer, 6),
        (c"listen", crate::setup::listen, 3),
        (c"close", crate::setup::close, 1),
        (c"serveAdopted", crate::setup::serve_adopted, 0),
        (c"setKeepAliveTimeout", crate::setup::keep_alive, 1),
        (c"adopt", crate::setup::adopt, 1),
        (c"forceClose", crate::setup::force_close, 0),
        (c"connections", crate::setup::connections, 0),
        (c"stats", crate::setup::stats, 0),
        (c"setTls", crate::setup::set_tls, 1),
        (c"setHttp2", crate::setup::set_http2, 1),
        (c"setHttp3", crate::setup::set_http3, 1),
        (c"end", crate::reply::end, 7),
        (c"writeHead", crate::reply::write_head, 5),
        (c"write", crate::reply::write, 2),
        (c"endStream", crate::reply::end_stream, 2),
        (c"release", crate::reply::release, 1),
        (c"destroy", crate::reply::destroy, 1),
        (c"static", crate::setup::static_mount, 3),
        (c"sendFile", crate::reply::send_file, 3),
        (c"fallback", crate::setup::fallback, 1),
        (c"takeBody", crate::reply::take_body, 1),
        (c"takeBodyText", crate::reply::take_body_text, 2),
        (c"dropChunk", crate::reply::drop_chunk, 1),
        (c"method", crate::reqinfo::req_method, 1),
        (c"url", crate::reqinfo::req_url, 1),
        (c"headers", crate::reqinfo::req_headers, 1),
        (c"header", crate::reqinfo::req_header, 2),
        (c"body", crate::reqinfo::req_body, 1),
        (c"remote", crate::reqinfo::req_remote, 1),
        (c"local", crate::reqinfo::req_local, 1),
        (c"version", crate::reqinfo::req_version, 1),
        (c"keep", crate::reqinfo::req_keep, 1),
        (c"parseKept", crate::reqinfo::parse_kept, 1),
        (c"wsRoute", crate::ws::ws_route, 3),
        (c"wsAccept", crate::ws::ws_accept, 4),
        (c"wsRequest", crate::ws::ws_request, 1),
        (c"wsNative", crate::ws::ws_native, 3),
        (c"wsAdopt", crate::ws::ws_adopt, 1),
        (c"wsSend", crate::ws::ws_send, 4),
        (c"wsPing", crate::ws::ws_ping, 2),
        (c"wsClose", crate::ws::ws_close, 3),
        (c"wsTerminate", crate::ws::ws_terminate, 1),
        (c"wsBuffered", crate::ws::ws_buffered, 1),
        (c"wsRemote", crate::ws::ws_remote, 1),
        (c"wsSubscribe", crate::ws::ws_subscribe, 2),
        (c"wsUnsubscribe", crate::ws::ws_unsubscribe, 2),
        (c"wsIsSubscribed", crate::ws::ws_is_subscribed, 2),
        (c"wsTopics", crate::ws::ws_topics, 1),
        (c"wsPublish", crate::ws::ws_publish, 7),
        (c"wsSubscribers", crate::ws::ws_subscribers, 1),
        (c"wsWatchTopics", crate::ws::ws_watch_topics, 1),
        (c"memOpen", crate::mem::mem_open, 1),
        (c"memWrite", crate::mem::mem_write, 2),
        (c"memRead", crate::mem::mem_read, 1),
        (c"memClose", crate::mem::mem_close, 1),
    ];
    for (name, cb, arity) in table {
        method(env, obj, name, cb, arity, &server);
    }
    obj
}
