//! Setup-time options from JS into gale-server's config: `createServer`'s (limits, timeouts, compression), and
//! those of `setTls`, `setHttp2`, `setHttp3` and static mounts. Each is read by its napi-rs object type (options.rs,
//! whose TypeScript types are generated); cold paths. gale-server checks the ranges and its errors name the option.

use gale_server::Config;
use napi::bindgen_prelude::{Either, FromNapiValue};
use napi::sys::{napi_callback_info, napi_env, napi_value, ValueType};

use crate::bound::server;
use crate::napi_util as nu;
use crate::options::{
    NativeCompression, NativeHttp2, NativeHttp3, NativeOptions, NativeStaticOptions, NativeTls,
    NativeWsOptions,
};

/// Reads `v` as `T`; `undefined` and `null` give None. A value of the wrong shape is napi-rs's error, which names
/// the type and the field (`NativeOptions.bodyLimit`).
fn read<T: FromNapiValue>(env: napi_env, v: napi_value) -> Result<Option<T>, String> {
    match nu::type_of(env, v) {
        ValueType::napi_undefined | ValueType::napi_null => Ok(None),
        // SAFETY: `v` is a live value of the current scope; the conversion checks its type.
        _ => unsafe { T::from_napi_value(env, v) }
            .map(Some)
            .map_err(|e| e.reason.clone()),
    }
}

/// A count or size from JS: negative is 0, past the type's range its largest (NaN is 0).
fn count<T: TryFrom<u64> + Bounded>(n: f64) -> T {
    let n = n.max(0.0).min(T::MAX_F64) as u64;
    T::try_from(n).unwrap_or(T::MAX)
}

/// Sets `slot` to `v` as a [`count`] when the option was given.
fn set<T: TryFrom<u64> + Bounded>(slot: &mut T, v: Option<f64>) {
    if let Some(n) = v {
        *slot = count(n);
    }
}

trait Bounded: Sized {
    const MAX: Self;
    const MAX_F64: f64;
}
impl Bounded for u32 {
    const MAX: u32 = u32::MAX;
    const MAX_F64: f64 = u32::MAX as f64;
}
impl Bounded for u64 {
    const MAX: u64 = u64::MAX;
    const MAX_F64: f64 = u64::MAX as f64;
}
impl Bounded for usize {
    const MAX: usize = usize::MAX;
    const MAX_F64: f64 = usize::MAX as f64;
}

/// `compression: true | { threshold, brotli, gzip, brotliQuality, gzipLevel }` (false or absent: off).
fn compression(o: Option<Either<bool, NativeCompression>>) -> Option<gale_server::CompressOptions> {
    let mut c = gale_server::CompressOptions::default();
    let o = match o? {
        Either::A(on) => return on.then_some(c),
        Either::B(o) => o,
    };
    if let Some(n) = o.threshold {
        c.threshold = count(n);
    }
    c.brotli = o.brotli.unwrap_or(c.brotli);
    c.gzip = o.gzip.unwrap_or(c.gzip);
    if let Some(n) = o.brotli_quality {
        c.brotli_quality = n.clamp(0.0, 11.0) as u32;
    }
    if let Some(n) = o.gzip_level {
        c.gzip_level = n.clamp(0.0, 9.0) as u32;
    }
    (c.brotli || c.gzip).then_some(c)
}

/// `createServer`'s options as gale-server's config (defaults for what is absent).
pub(crate) fn config(env: napi_env, opts: napi_value) -> Result<Config, String> {
    let mut c = Config::default();
    let Some(o) = read::<NativeOptions>(env, opts)? else {
        return Ok(c);
    };
    if let Some(n) = o.body_limit {
        c.body_limit = count(n);
    }
    set(&mut c.limits.max_head_bytes, o.max_header_size);
    set(&mut c.limits.max_headers, o.max_headers);
    set(&mut c.limits.max_uri_bytes, o.max_uri_length);
    c.limits.strict_host = o.strict_host.unwrap_or(c.limits.strict_host);
    set(&mut c.headers_timeout_ms, o.headers_timeout);
    set(&mut c.request_timeout_ms, o.request_timeout);
    set(&mut c.keep_alive_timeout_ms, o.keep_alive_timeout);
    set(&mut c.send_timeout_ms, o.send_timeout);
    if let Some(n) = o.max_pipeline {
        c.max_pipeline = count::<usize>(n).max(1);
    }
    set(&mut c.high_water_mark, o.high_water_mark);
    if let Some(n) = o.max_connections {
        c.max_connections = count::<usize>(n).max(1);
    }
    set(&mut c.max_write_buffer, o.max_write_buffer);
    if let Some(n) = o.backlog {
        c.backlog = n as i32;
    }
    c.compression = compression(o.compression);
    c.proxy_protocol = o.proxy_protocol.unwrap_or(c.proxy_protocol);
    c.reuse_port = o.reuse_port.unwrap_or(c.reuse_port);
    c.keep_alive_header = o.keep_alive_header.unwrap_or(c.keep_alive_header);
    c.decode_params = o.decode_params.unwrap_or(c.decode_params);
    c.router.case_sensitive = o.case_sensitive.unwrap_or(c.router.case_sensitive);
    c.router.strict = o.strict.unwrap_or(c.router.strict);
    c.error_format = match o.error_format.as_deref() {
        Some("text") => gale_server::ErrorFormat::Text,
        Some("problem") => gale_server::ErrorFormat::Problem,
        _ => gale_server::ErrorFormat::Negotiate,
    };
    Ok(c)
}

/// A static mount's options (`app.static`) as gale-server's; the `immutable` pattern must compile.
pub(crate) fn static_options(
    env: napi_env,
    v: napi_value,
) -> Result<gale_server::StaticOptions, String> {
    let mut opts = gale_server::StaticOptions::default();
    let Some(o) = read::<NativeStaticOptions>(env, v)? else {
        return Ok(opts);
    };
    if let Some(index) = o.index {
        opts.index = index;
    }
    opts.extensions = o.extensions.unwrap_or_default();
    opts.fallback = o.fallback;
    if let Some(d) = o.dotfiles {
        opts.dotfiles = match d.as_str() {
            "allow" => gale_server::Dotfiles::Allow,
            "deny" => gale_server::Dotfiles::Deny,
            _ => gale_server::Dotfiles::Ignore,
        };
    }
    opts.max_age = o.max_age.map(count);
    if let Some(src) = o.immutable {
        opts.immutable = Some(
            regex_lite::Regex::new(&src).map_err(|e| format!("immutable pattern {src:?}: {e}"))?,
        );
    }
    opts.cache = o.cache.unwrap_or(opts.cache);
    if let Some(n) = o.cache_file_max {
        opts.cache_file_max = count(n);
    }
    if let Some(n) = o.cache_max {
        opts.cache_max = count(n);
    }
    opts.precompressed = o.precompressed.unwrap_or(opts.precompressed);
    opts.compress = o.compress.unwrap_or(opts.compress);
    opts.redirect = o.redirect.unwrap_or(opts.redirect);
    opts.validators.etag = o.etag.unwrap_or(opts.validators.etag);
    opts.validators.last_modified = o.last_modified.unwrap_or(opts.validators.last_modified);
    opts.validators.ranges = o.accept_ranges.unwrap_or(opts.validators.ranges);
    if let Some(h) = o.headers {
        opts.headers = h.into_bytes();
    }
    Ok(opts)
}

/// The largest message a socket may accept: 2 GiB, under Node's Buffer limit on every version (a message reaches
/// JS as one Buffer, and its length crosses as a u32).
const MAX_MESSAGE: usize = 1 << 31;

/// A WebSocket route's options as gale-server's.
pub(crate) fn ws_options(env: napi_env, v: napi_value) -> Result<gale_server::WsOptions, String> {
    let mut w = gale_server::WsOptions::default();
    let Some(o) = read::<NativeWsOptions>(env, v)? else {
        return Ok(w);
    };
    if let Some(n) = o.max_payload_length {
        w.max_payload = count::<usize>(n).min(MAX_MESSAGE);
    }
    if let Some(n) = o.idle_timeout {
        w.idle_timeout_ms = count(n * 1000.0);
    }
    w.send_pings = o.send_pings.unwrap_or(w.send_pings);
    if let Some(n) = o.max_backpressure {
        w.max_backpressure = count(n);
    }
    w.close_on_backpressure_limit = o
        .close_on_backpressure_limit
        .unwrap_or(w.close_on_backpressure_limit);
    w.compression = match o.compression.as_deref() {
        Some("shared") => gale_server::Compression::Shared,
        Some("dedicated") => gale_server::Compression::Dedicated,
        _ => gale_server::Compression::Off,
    };
    let mut d = gale_server::DeflateConfig::default();
    if let Some(n) = o.compression_threshold {
        d.threshold = count(n);
    }
    if let Some(n) = o.compression_level {
        d.level = n.clamp(0.0, 9.0) as u32;
    }
    // Out of 8–15 is refused by gale-server's check, naming the option (clamped, not wrapped: 300 stays out).
    if let Some(n) = o.server_max_window_bits {
        d.server_max_window_bits = n.clamp(0.0, 255.0) as u8;
    }
    if let Some(n) = o.client_max_window_bits {
        d.client_max_window_bits = n.clamp(0.0, 255.0) as u8;
    }
    d.server_no_context_takeover = o
        .server_no_context_takeover
        .unwrap_or(d.server_no_context_takeover);
    d.client_no_context_takeover = o
        .client_no_context_takeover
        .unwrap_or(d.client_no_context_takeover);
    w.deflate = d;
    Ok(w)
}

/// PEM text or bytes, as bytes.
fn pem_bytes(p: Either<String, napi::bindgen_prelude::Uint8Array>) -> Vec<u8> {
    match p {
        Either::A(text) => text.into_bytes(),
        Either::B(bytes) => bytes.to_vec(),
    }
}

/// `setTls({ cert, key, sni: [{ name, cert, key }], ca, alpn: [..], minVersion })`: serve (or reload) TLS; throws
/// an Error saying what is wrong, and then the previous certificates stay in use.
pub(crate) unsafe extern "C" fn set_tls(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<1>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    let o = match read::<NativeTls>(env, argv[0]) {
        Ok(Some(o)) => o,
        Ok(None) => return nu::throw(env, "setTls(options): options must be an object", true),
        Err(msg) => return nu::throw(env, &format!("setTls: {msg}"), true),
    };
    let min_version = match o.min_version.as_deref() {
        None | Some("TLSv1.2") => 0x0303,
        Some("TLSv1.3") => 0x0304,
        Some(other) => {
            let msg = format!("tls.minVersion must be 'TLSv1.2' or 'TLSv1.3', not {other:?}");
            return nu::throw(env, &msg, true);
        }
    };
    let default = match (o.cert, o.key) {
        (Some(cert), Some(key)) => Some(gale_server::tls::CertPem {
            cert: pem_bytes(cert),
            key: pem_bytes(key),
        }),
        _ => None,
    };
    let t = gale_server::tls::TlsOptions {
        default,
        ca: o.ca.map(pem_bytes).unwrap_or_default(),
        sni: o
            .sni
            .into_iter()
            .map(|e| {
                let pem = gale_server::tls::CertPem {
                    cert: pem_bytes(e.cert),
                    key: pem_bytes(e.key),
                };
                (e.name, pem)
            })
            .collect(),
        alpn: o.alpn.into_iter().map(String::into_bytes).collect(),
        min_version,
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
    let o = match read::<NativeHttp2>(env, argv[0]) {
        Ok(o) => o,
        Err(msg) => return nu::throw(env, &format!("setHttp2: {msg}"), true),
    };
    let opts = o.map(|o| {
        let mut h = gale_server::H2Options::default();
        let num = |v: Option<f64>, dflt: u32| v.map_or(dflt, count);
        h.max_concurrent_streams = num(o.max_concurrent_streams, h.max_concurrent_streams);
        h.initial_window_size = num(o.initial_window_size, h.initial_window_size);
        h.connection_window_size = num(o.connection_window_size, h.connection_window_size);
        h.max_frame_size = num(o.max_frame_size, h.max_frame_size);
        h.cleartext = o.cleartext.unwrap_or(h.cleartext);
        h.http1 = o.http1.unwrap_or(h.http1);
        h
    });
    match s.set_http2(opts) {
        Ok(()) => nu::undefined(env),
        Err(msg) => nu::throw(env, &msg, false),
    }
}

/// WebTransport's limits from JS, with their defaults: 4 sessions per connection, 100 streams per session, 16
/// streams held for sessions not accepted yet, for up to 5 s.
fn gale_wt_limits(w: &crate::options::NativeWebTransport) -> gale_server::WtLimits {
    let num = |v: Option<f64>, dflt: usize| v.map_or(dflt, |n| count::<u32>(n) as usize);
    gale_server::WtLimits {
        sessions: num(w.max_sessions, 4).max(1),
        streams: num(w.max_streams, 100),
        held: num(w.max_held_streams, 16),
        hold_ms: w.hold_timeout.map_or(5_000, |n| u64::from(count::<u32>(n))),
    }
}

/// `setHttp3({ maxConcurrentStreams, idleTimeout, maxConnectionsPerAddress, retryAbove, maxHandshakesPerSecond,
/// segmentationOffload })` serves HTTP/3 on UDP at the TLS listener's port from the next
/// `listen`; `setHttp3(null)` turns it off. Throws an Error naming an option out of range.
pub(crate) unsafe extern "C" fn set_http3(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, data) = nu::args::<1>(env, info);
    // SAFETY: `data` is this callback's own data pointer, set by `method` (see `server`).
    let s = unsafe { server(data) };
    let o = match read::<NativeHttp3>(env, argv[0]) {
        Ok(o) => o,
        Err(msg) => return nu::throw(env, &format!("setHttp3: {msg}"), true),
    };
    let opts = o.map(|o| {
        let mut h = gale_server::H3Options::default();
        let num = |v: Option<f64>, dflt: u32| v.map_or(dflt, count);
        h.max_concurrent_streams = num(o.max_concurrent_streams, h.max_concurrent_streams);
        if let Some(n) = o.idle_timeout {
            h.idle_timeout_ms = count(n);
        }
        h.max_connections_per_address =
            num(o.max_connections_per_address, h.max_connections_per_address);
        h.retry_above = num(o.retry_above, h.retry_above);
        h.max_handshakes_per_second = num(o.max_handshakes_per_second, h.max_handshakes_per_second);
        h.segmentation_offload = o.segmentation_offload.unwrap_or(h.segmentation_offload);
        h.webtransport = o.webtransport.map(|w| gale_wt_limits(&w));
        h
    });
    match s.set_http3(opts) {
        Ok(()) => nu::undefined(env),
        Err(msg) => nu::throw(env, &msg, false),
    }
}
