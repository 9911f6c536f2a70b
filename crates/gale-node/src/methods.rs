//! `createServer(options, dispatch, onEvent)` and the methods of the object it returns. Each method is a
//! raw Node-API function whose data pointer is a strong `Rc<Server>`, dropped by the function's finalizer.
//! Programmer errors (wrong argument types) throw; expected failures (request gone) return false/undefined.

use std::ffi::CStr;
use std::ptr;

use gale_server::Server;
use napi::sys::{self, napi_callback_info, napi_env, napi_value, ValueType};

use crate::bound::{method, Cb};
use crate::handler::JsHandler;
use crate::napi_util as nu;

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
    let cfg = match crate::config::config(env, argv[0]) {
        Ok(c) => c,
        Err(msg) => return nu::throw(env, &format!("createServer: {msg}"), true),
    };
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
    let table: [(&CStr, Cb, u32); 66] = [
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
        (c"setTls", crate::config::set_tls, 1),
        (c"setHttp2", crate::config::set_http2, 1),
        (c"setHttp3", crate::config::set_http3, 1),
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
        (c"wtAccept", crate::wt::wt_accept, 1),
        (c"wtOpen", crate::wt::wt_open, 2),
        (c"wtWrite", crate::wt::wt_write, 3),
        (c"wtReset", crate::wt::wt_reset, 3),
        (c"wtPause", crate::wt::wt_pause, 2),
        (c"wtDatagram", crate::wt::wt_datagram, 2),
        (c"wtMaxDatagram", crate::wt::wt_max_datagram, 1),
        (c"wtClose", crate::wt::wt_close, 3),
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
