//! Setup-time options from JS into gale-server's config: `createServer`'s (limits, timeouts, compression), and
//! those of `setTls`, `setHttp2`, `setHttp3` and static mounts. Cold paths; gale-server checks the ranges and
//! its errors name the option (`tests/options-agree.test.ts` keeps these readers, the TypeScript types and rules in step).

use std::ptr;

use gale_server::Config;
use napi::sys::{self, napi_callback_info, napi_env, napi_value, ValueType};

use crate::bound::server;
use crate::napi_util::{self as nu, bool_opt, num_opt};

/// `compression: true | { threshold, brotli, gzip, brotliQuality, gzipLevel }` (anything else: off).
pub(crate) fn compression_opt(
    env: napi_env,
    v: napi_value,
) -> Option<gale_server::CompressOptions> {
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

pub(crate) fn config(env: napi_env, opts: napi_value) -> Config {
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

/// A JS array of strings as Rust strings (non-strings are skipped).
pub(crate) fn string_array(env: napi_env, v: napi_value) -> Vec<String> {
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

pub(crate) fn static_options(
    env: napi_env,
    o: napi_value,
) -> Result<gale_server::StaticOptions, String> {
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
    if let Some(b) = bool_opt(env, o, c"etag") {
        opts.validators.etag = b;
    }
    if let Some(b) = bool_opt(env, o, c"lastModified") {
        opts.validators.last_modified = b;
    }
    if let Some(b) = bool_opt(env, o, c"acceptRanges") {
        opts.validators.ranges = b;
    }
    if let Some(h) = nu::get_string(env, nu::get_prop(env, o, c"headers")) {
        opts.headers = h;
    }
    Ok(opts)
}

/// Bytes of a string or Uint8Array property (None when absent).
fn bytes_prop(env: napi_env, obj: napi_value, name: &std::ffi::CStr) -> Option<Vec<u8>> {
    let v = nu::get_prop(env, obj, name);
    match nu::type_of(env, v) {
        ValueType::napi_string => nu::get_string(env, v),
        ValueType::napi_undefined | ValueType::napi_null => None,
        _ => nu::get_bytes(env, v).map(<[u8]>::to_vec),
    }
}

fn cert_pem(env: napi_env, obj: napi_value) -> Option<gale_server::tls::CertPem> {
    Some(gale_server::tls::CertPem {
        cert: bytes_prop(env, obj, c"cert")?,
        key: bytes_prop(env, obj, c"key")?,
    })
}

/// `setTls({ cert, key, sni: [[name, { cert, key }]], ca, alpn: [..], minVersion })`: serve (or reload)
/// TLS; throws an Error saying what is wrong, and then the previous certificates stay in use.
pub(crate) unsafe extern "C" fn set_tls(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<1>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    let o = argv[0];
    if nu::type_of(env, o) != ValueType::napi_object {
        return nu::throw(env, "setTls(options): options must be an object", true);
    }
    let mut t = gale_server::tls::TlsOptions {
        default: cert_pem(env, o),
        ca: bytes_prop(env, o, c"ca").unwrap_or_default(),
        ..Default::default()
    };
    let list = |name: &std::ffi::CStr| -> Vec<napi_value> {
        let v = nu::get_prop(env, o, name);
        let mut is = false;
        // SAFETY: v is a value from the current scope.
        unsafe { sys::napi_is_array(env, v, &mut is) };
        if !is {
            return Vec::new();
        }
        let mut len = 0u32;
        // SAFETY: v is an array.
        unsafe { sys::napi_get_array_length(env, v, &mut len) };
        (0..len)
            .map(|i| {
                let mut item = ptr::null_mut();
                // SAFETY: i < len; item is an out-pointer.
                unsafe { sys::napi_get_element(env, v, i, &mut item) };
                item
            })
            .collect()
    };
    for entry in list(c"sni") {
        let (Some(name), Some(pem)) = (
            nu::get_string(env, nu::get_prop(env, entry, c"name")),
            cert_pem(env, entry),
        ) else {
            return nu::throw(env, "setTls: each sni entry needs name, cert and key", true);
        };
        t.sni
            .push((String::from_utf8_lossy(&name).into_owned(), pem));
    }
    t.alpn = list(c"alpn")
        .into_iter()
        .filter_map(|v| nu::get_string(env, v))
        .collect();
    t.min_version = match nu::get_string(env, nu::get_prop(env, o, c"minVersion")).as_deref() {
        None | Some(b"TLSv1.2") => 0x0303,
        Some(b"TLSv1.3") => 0x0304,
        Some(other) => {
            let msg = format!(
                "tls.minVersion must be 'TLSv1.2' or 'TLSv1.3', not {:?}",
                String::from_utf8_lossy(other)
            );
            return nu::throw(env, &msg, true);
        }
    };
    match s.set_tls(&t) {
        Ok(()) => nu::undefined(env),
        Err(msg) => nu::throw(env, &msg, false),
    }
}

/// `setHttp2({ maxConcurrentStreams, initialWindowSize, connectionWindowSize, maxFrameSize, cleartext, http1 })`
/// serves HTTP/2 (over TLS when ALPN offers `h2`, and cleartext with prior knowledge unless `cleartext: false`;
/// HTTP/1.x beside it unless `http1: false`);
/// `setHttp2(null)` turns it off. Throws an Error naming an option out of range.
pub(crate) unsafe extern "C" fn set_http2(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<1>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    let o = argv[0];
    let opts = if nu::type_of(env, o) == ValueType::napi_object {
        let mut h = gale_server::H2Options::default();
        let num = |name: &std::ffi::CStr, dflt: u32| {
            num_opt(env, o, name).map_or(dflt, |n| n.clamp(0.0, u32::MAX as f64) as u32)
        };
        h.max_concurrent_streams = num(c"maxConcurrentStreams", h.max_concurrent_streams);
        h.initial_window_size = num(c"initialWindowSize", h.initial_window_size);
        h.connection_window_size = num(c"connectionWindowSize", h.connection_window_size);
        h.max_frame_size = num(c"maxFrameSize", h.max_frame_size);
        h.cleartext = bool_opt(env, o, c"cleartext").unwrap_or(h.cleartext);
        h.http1 = bool_opt(env, o, c"http1").unwrap_or(h.http1);
        Some(h)
    } else {
        None
    };
    match s.set_http2(opts) {
        Ok(()) => nu::undefined(env),
        Err(msg) => nu::throw(env, &msg, false),
    }
}

/// `setHttp3({ maxConcurrentStreams, idleTimeout, maxConnectionsPerAddress, retryAbove, maxHandshakesPerSecond,
/// segmentationOffload })` serves HTTP/3 on UDP at the TLS listener's port from the next
/// `listen`; `setHttp3(null)` turns it off. Throws an Error naming an option out of range.
pub(crate) unsafe extern "C" fn set_http3(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<1>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    let o = argv[0];
    let opts = if nu::type_of(env, o) == ValueType::napi_object {
        let mut h = gale_server::H3Options::default();
        if let Some(n) = num_opt(env, o, c"maxConcurrentStreams") {
            h.max_concurrent_streams = n.clamp(0.0, u32::MAX as f64) as u32;
        }
        if let Some(n) = num_opt(env, o, c"idleTimeout") {
            h.idle_timeout_ms = n.clamp(0.0, u64::MAX as f64) as u64;
        }
        if let Some(n) = num_opt(env, o, c"maxConnectionsPerAddress") {
            h.max_connections_per_address = n.clamp(0.0, u32::MAX as f64) as u32;
        }
        if let Some(n) = num_opt(env, o, c"retryAbove") {
            h.retry_above = n.clamp(0.0, u32::MAX as f64) as u32;
        }
        if let Some(n) = num_opt(env, o, c"maxHandshakesPerSecond") {
            h.max_handshakes_per_second = n.clamp(0.0, u32::MAX as f64) as u32;
        }
        if let Some(b) = bool_opt(env, o, c"segmentationOffload") {
            h.segmentation_offload = b;
        }
        Some(h)
    } else {
        None
    };
    match s.set_http3(opts) {
        Ok(()) => nu::undefined(env),
        Err(msg) => nu::throw(env, &msg, false),
    }
}
