//! WebSocket methods for JS: the route, accept, send/ping/close/terminate, pub/sub and socket facts.
//! `wsSend` and `wsPublish` are the hot path: strings are written straight into the engine's buffers.
//! Over 400 lines: the binding's 18 WebSocket methods, one short function each, and the argument readers they share
//! (`data_arg`, `sid_arg`, `topic_list`; a route's options are read in config.rs).

use napi::sys::{napi_callback_info, napi_env, napi_value, ValueType};

use crate::bound::server;
use crate::napi_util as nu;

/// A message argument: a string (sent as UTF-8) or bytes.
enum Data<'a> {
    Str(napi_value, usize),
    Bytes(&'a [u8]),
}

fn data_arg<'a>(env: napi_env, v: napi_value) -> Option<Data<'a>> {
    match nu::type_of(env, v) {
        ValueType::napi_string => Some(Data::Str(v, nu::utf8_len(env, v).unwrap_or(0))),
        _ => nu::get_bytes(env, v).map(Data::Bytes),
    }
}

fn sid_arg(env: napi_env, v: napi_value) -> Option<u32> {
    nu::get_u32(env, v)
}

/// `wsRoute(path, routeId, options) → paramNames`
pub(crate) unsafe extern "C" fn ws_route(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<3>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    let (Some(pattern), Some(id)) = (nu::get_string(env, argv[0]), nu::get_u32(env, argv[1]))
    else {
        return nu::throw(env, "wsRoute(path, id, options): bad arguments", true);
    };
    let opts = match crate::config::ws_options(env, argv[2]) {
        Ok(o) => o,
        Err(msg) => return nu::throw(env, &format!("wsRoute: {msg}"), true),
    };
    let r = s.add_ws_route(&String::from_utf8_lossy(&pattern), id, opts);
    crate::setup::route_names(env, r)
}

/// Whether `lines` is zero or more "Name: value\r\n" lines the app may add to a 101: valid names and
/// values, and none of the headers the engine writes for the handshake itself.
fn valid_101_headers(lines: &[u8]) -> bool {
    const OURS: [&[u8]; 7] = [
        b"upgrade",
        b"connection",
        b"sec-websocket-accept",
        b"sec-websocket-protocol",
        b"sec-websocket-extensions",
        b"content-length",
        b"transfer-encoding",
    ];
    let Some(body) = lines.strip_suffix(b"\r\n") else {
        return lines.is_empty();
    };
    body.split(|&b| b == b'\n').all(|line| {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let Some(colon) = line.iter().position(|&b| b == b':') else {
            return false;
        };
        let (name, value) = (&line[..colon], &line[colon + 1..]);
        gale_http::is_token(name)
            && gale_http::is_header_value(value)
            && !OURS.iter().any(|o| name.eq_ignore_ascii_case(o))
    })
}

/// `wsAccept(requestId, protocol?, headerLines?, keepHead?) → socketId | undefined`; with `keepHead` the
/// request's head stays in the engine for `wsRequest` instead of being read by JS now.
pub(crate) unsafe extern "C" fn ws_accept(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<4>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    let Some(id) = nu::get_u32(env, argv[0]) else {
        return nu::throw(env, "wsAccept(id, protocol): id must be a number", true);
    };
    let protocol = (nu::type_of(env, argv[1]) == ValueType::napi_string)
        .then(|| nu::get_string(env, argv[1]))
        .flatten()
        .filter(|p| !p.is_empty() && gale_http::is_token(p));
    let headers = (nu::type_of(env, argv[2]) == ValueType::napi_string)
        .then(|| nu::get_string(env, argv[2]))
        .flatten()
        .unwrap_or_default();
    if !valid_101_headers(&headers) {
        return nu::throw(
            env,
            "wsAccept: extra headers must be \"Name: value\\r\\n\" lines, and may not replace the handshake's own",
            true,
        );
    }
    let keep_head = nu::get_bool(env, argv[3]).unwrap_or(false);
    match s.ws_accept(id, protocol.as_deref(), &headers, keep_head) {
        Some(sid) => nu::uint(env, sid),
        None => nu::undefined(env),
    }
}

/// `wsRequest(sid) → [method, url, minorVersion, flatHeaders, [address, port, family, secure]] | undefined`:
/// the upgrade request a socket accepted with `keepHead` kept, handed over once (undefined after).
pub(crate) unsafe extern "C" fn ws_request(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<1>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    let Some(sid) = nu::get_u32(env, argv[0]) else {
        return nu::throw(env, "wsRequest(sid): sid must be a number", true);
    };
    s.ws_take_request(sid, |k, peer, secure| {
        let remote = crate::setup::addr_array(env, peer);
        // SAFETY: remote is an array from the current scope.
        unsafe { napi::sys::napi_set_element(env, remote, 3, nu::boolean(env, secure)) };
        nu::array(
            env,
            &[
                nu::latin1(env, k.method()),
                nu::latin1(env, k.target()),
                nu::uint(env, u32::from(k.minor_version())),
                crate::reqinfo::flat_headers(env, k.headers()),
                remote,
            ],
        )
    })
    .unwrap_or_else(|| nu::undefined(env))
}

/// `wsNative(routeId, on, hasClose) → boolean`: lets the engine accept the upgrades of a WebSocket route by itself
/// (see `Server::ws_accept_natively`), or takes that back.
pub(crate) unsafe extern "C" fn ws_native(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<3>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    let Some(route) = nu::get_u32(env, argv[0]) else {
        return nu::throw(
            env,
            "wsNative(routeId, on, hasClose): routeId must be a number",
            true,
        );
    };
    let on = nu::get_bool(env, argv[1]).unwrap_or(false);
    let close = nu::get_bool(env, argv[2]).unwrap_or(false);
    nu::boolean(env, s.ws_accept_natively(route, on, close))
}

/// `wsAdopt(sid) → [routeId, protocol] | undefined`: a socket the engine accepted by itself, once, on JS's first
/// sight of it.
pub(crate) unsafe extern "C" fn ws_adopt(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<1>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    let Some(sid) = nu::get_u32(env, argv[0]) else {
        return nu::throw(env, "wsAdopt(sid): sid must be a number", true);
    };
    match s.ws_adopt(sid) {
        Some((route, protocol)) => {
            nu::array(env, &[nu::uint(env, route), nu::latin1(env, &protocol)])
        }
        None => nu::undefined(env),
    }
}

/// `wsSend(sid, data, binary, compress) → 0 sent | 1 buffered | 2 dropped | 3 closed`
pub(crate) unsafe extern "C" fn ws_send(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<4>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    let (Some(sid), Some(msg)) = (sid_arg(env, argv[0]), data_arg(env, argv[1])) else {
        return nu::throw(
            env,
            "send(data): data must be a string, a Buffer or a Uint8Array",
            true,
        );
    };
    let binary = nu::get_bool(env, argv[2]).unwrap_or(false);
    let compress = nu::get_bool(env, argv[3]).unwrap_or(false);
    let r = match msg {
        Data::Str(v, n) => s.ws_send(sid, binary, compress, n, |out| {
            nu::append_utf8(env, v, n, out)
        }),
        Data::Bytes(b) => s.ws_send(sid, binary, compress, b.len(), |out| {
            out.extend_from_slice(b)
        }),
    };
    nu::uint(env, r as u32)
}

fn bytes_of(env: napi_env, v: napi_value) -> Option<Vec<u8>> {
    match data_arg(env, v)? {
        Data::Str(v, _) => nu::get_string(env, v),
        Data::Bytes(b) => Some(b.to_vec()),
    }
}

/// `wsPing(sid, data?) → result`
pub(crate) unsafe extern "C" fn ws_ping(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<2>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    let Some(sid) = sid_arg(env, argv[0]) else {
        return nu::throw(env, "wsPing(sid, data): bad arguments", true);
    };
    let payload = bytes_of(env, argv[1]).unwrap_or_default();
    nu::uint(env, s.ws_ping(sid, &payload) as u32)
}

/// `wsClose(sid, code, reason) → boolean`
pub(crate) unsafe extern "C" fn ws_close(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<3>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    let (Some(sid), Some(code)) = (sid_arg(env, argv[0]), nu::get_u32(env, argv[1])) else {
        return nu::throw(env, "wsClose(sid, code, reason): bad arguments", true);
    };
    let reason = bytes_of(env, argv[2]).unwrap_or_default();
    nu::boolean(env, s.ws_close(sid, code as u16, &reason))
}

/// `wsTerminate(sid) → boolean`
pub(crate) unsafe extern "C" fn ws_terminate(
    env: napi_env,
    info: napi_callback_info,
) -> napi_value {
    let (argv, _, data) = nu::args::<1>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    let ok = sid_arg(env, argv[0]).is_some_and(|sid| s.ws_terminate(sid));
    nu::boolean(env, ok)
}

/// `wsBuffered(sid) → number | undefined`
pub(crate) unsafe extern "C" fn ws_buffered(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<1>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    match sid_arg(env, argv[0]).and_then(|sid| s.ws_buffered(sid)) {
        Some(n) => nu::uint(env, n.min(u32::MAX as usize) as u32),
        None => nu::undefined(env),
    }
}

/// `wsRemote(sid) → [address, port, family] | undefined`
pub(crate) unsafe extern "C" fn ws_remote(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<1>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    match sid_arg(env, argv[0]).and_then(|sid| s.ws_remote(sid)) {
        Some(a) => crate::setup::addr_array(env, a),
        None => nu::undefined(env),
    }
}

/// Reads `(sid, topic)` for the subscription methods.
fn sid_topic(
    env: napi_env,
    info: napi_callback_info,
) -> Result<(&'static gale_server::Server, u32, Vec<u8>), napi_value> {
    let (argv, _, data) = nu::args::<2>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    match (sid_arg(env, argv[0]), nu::get_string(env, argv[1])) {
        (Some(sid), Some(topic)) => Ok((s, sid, topic)),
        _ => Err(nu::throw(env, "topic must be a string", true)),
    }
}

/// `wsSubscribe(sid, topic) → boolean`
pub(crate) unsafe extern "C" fn ws_subscribe(
    env: napi_env,
    info: napi_callback_info,
) -> napi_value {
    match sid_topic(env, info) {
        Ok((s, sid, t)) => nu::boolean(env, s.ws_subscribe(sid, &t)),
        Err(e) => e,
    }
}

/// `wsUnsubscribe(sid, topic) → boolean`
pub(crate) unsafe extern "C" fn ws_unsubscribe(
    env: napi_env,
    info: napi_callback_info,
) -> napi_value {
    match sid_topic(env, info) {
        Ok((s, sid, t)) => nu::boolean(env, s.ws_unsubscribe(sid, &t)),
        Err(e) => e,
    }
}

/// `wsIsSubscribed(sid, topic) → boolean`
pub(crate) unsafe extern "C" fn ws_is_subscribed(
    env: napi_env,
    info: napi_callback_info,
) -> napi_value {
    match sid_topic(env, info) {
        Ok((s, sid, t)) => nu::boolean(env, s.ws_is_subscribed(sid, &t)),
        Err(e) => e,
    }
}

/// `wsTopics(sid) → string[]`
pub(crate) unsafe extern "C" fn ws_topics(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<1>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    let topics = sid_arg(env, argv[0])
        .map(|sid| s.ws_topics(sid))
        .unwrap_or_default();
    let vals: Vec<napi_value> = topics.iter().map(|t| nu::string(env, t)).collect();
    nu::array(env, &vals)
}

/// Topic names from a string or an array of strings (None for anything else).
fn topic_list(env: napi_env, v: napi_value) -> Option<Vec<Vec<u8>>> {
    if nu::type_of(env, v) == ValueType::napi_string {
        return nu::get_string(env, v).map(|t| vec![t]);
    }
    let mut is_array = false;
    // SAFETY: v is a value from the current scope; is_array is an out-pointer.
    unsafe { napi::sys::napi_is_array(env, v, &mut is_array) };
    if !is_array {
        return None;
    }
    let mut len = 0u32;
    // SAFETY: v is an array from the current scope.
    unsafe { napi::sys::napi_get_array_length(env, v, &mut len) };
    (0..len)
        .map(|i| {
            let mut item = std::ptr::null_mut();
            // SAFETY: i < len; item is an out-pointer valid in the current scope.
            unsafe { napi::sys::napi_get_element(env, v, i, &mut item) };
            (nu::type_of(env, item) == ValueType::napi_string)
                .then(|| nu::get_string(env, item))
                .flatten()
        })
        .collect()
}

/// `wsPublish(topics, data, binary, compress, excludeSid?, except?, volatile?) → sockets reached`:
/// `topics` a name or an array of names (each socket gets the message once), `except` names whose
/// subscribers are left out, `volatile` leaves out sockets whose send buffer is full.
pub(crate) unsafe extern "C" fn ws_publish(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<7>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    let Some(topics) = topic_list(env, argv[0]) else {
        return nu::throw(
            env,
            "publish(topic, data): topic must be a string or an array of strings",
            true,
        );
    };
    let except = match nu::type_of(env, argv[5]) {
        ValueType::napi_undefined | ValueType::napi_null => Vec::new(),
        _ => match topic_list(env, argv[5]) {
            Some(t) => t,
            None => return nu::throw(env, "publish: except must be an array of topic names", true),
        },
    };
    let binary = nu::get_bool(env, argv[2]).unwrap_or(false);
    let compress = nu::get_bool(env, argv[3]).unwrap_or(false);
    let topic_refs: Vec<&[u8]> = topics.iter().map(Vec::as_slice).collect();
    let except_refs: Vec<&[u8]> = except.iter().map(Vec::as_slice).collect();
    let to = gale_server::Audience {
        topics: &topic_refs,
        except: &except_refs,
        exclude: sid_arg(env, argv[4]),
        skip_busy: nu::get_bool(env, argv[6]).unwrap_or(false),
    };
    // The data argument is read last: nothing after it may run JS (see napi_util::get_bytes).
    let n = match data_arg(env, argv[1]) {
        Some(Data::Bytes(b)) => s.ws_publish(&to, binary, compress, b),
        Some(Data::Str(v, n)) => {
            let mut buf = Vec::with_capacity(n + 1);
            nu::append_utf8(env, v, n, &mut buf);
            s.ws_publish(&to, binary, compress, &buf)
        }
        None => {
            return nu::throw(
                env,
                "publish(topic, data): data must be a string, a Buffer or a Uint8Array",
                true,
            )
        }
    };
    nu::uint(env, n as u32)
}

/// `wsSubscribers(topic) → number`
pub(crate) unsafe extern "C" fn ws_subscribers(
    env: napi_env,
    info: napi_callback_info,
) -> napi_value {
    let (argv, _, data) = nu::args::<1>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    let n = nu::get_string(env, argv[0]).map_or(0, |t| s.ws_subscriber_count(&t));
    nu::uint(env, n as u32)
}

/// `wsWatchTopics(on)`: report topics becoming active and inactive (onEvent EV_TOPIC).
pub(crate) unsafe extern "C" fn ws_watch_topics(
    env: napi_env,
    info: napi_callback_info,
) -> napi_value {
    let (argv, _, data) = nu::args::<1>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    s.watch_topics(nu::get_bool(env, argv[0]).unwrap_or(false));
    nu::undefined(env)
}
