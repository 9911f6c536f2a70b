//! The setup-time options as JS hands them over, written once: napi-rs object types whose conversion reads them,
//! and whose TypeScript types are generated into `packages/gale/src/native-options.ts` (`npm run binding-types`).
//! Ranges are checked in gale-server, whose errors name the option; config.rs turns these into its config.

use napi::bindgen_prelude::{Either, Uint8Array};
use napi_derive::napi;

/// `createServer`'s options: the engine's part of `gale()`'s (limits, timeouts, compression, routing).
#[napi(object)]
pub struct NativeOptions {
    pub body_limit: Option<f64>,
    pub max_header_size: Option<f64>,
    pub max_headers: Option<f64>,
    pub max_uri_length: Option<f64>,
    pub strict_host: Option<bool>,
    pub headers_timeout: Option<f64>,
    pub request_timeout: Option<f64>,
    pub keep_alive_timeout: Option<f64>,
    pub max_pipeline: Option<f64>,
    pub high_water_mark: Option<f64>,
    pub max_connections: Option<f64>,
    pub send_timeout: Option<f64>,
    pub max_write_buffer: Option<f64>,
    pub backlog: Option<f64>,
    pub compression: Option<Either<bool, NativeCompression>>,
    pub proxy_protocol: Option<bool>,
    pub reuse_port: Option<bool>,
    pub keep_alive_header: Option<bool>,
    pub decode_params: Option<bool>,
    pub case_sensitive: Option<bool>,
    pub strict: Option<bool>,
    /// 'negotiate' (the default), 'text' or 'problem'; gale() checked it (option-rules.ts).
    pub error_format: Option<String>,
}

/// `compression: { … }` (`true` takes the defaults).
#[napi(object)]
pub struct NativeCompression {
    pub threshold: Option<f64>,
    pub brotli: Option<bool>,
    pub gzip: Option<bool>,
    pub brotli_quality: Option<f64>,
    pub gzip_level: Option<f64>,
}

/// A static mount's options (`app.static`), as static-options.ts hands them over.
#[napi(object)]
pub struct NativeStaticOptions {
    pub index: Option<Vec<String>>,
    pub extensions: Option<Vec<String>>,
    pub fallback: Option<String>,
    /// 'ignore' (the default), 'deny' or 'allow'.
    pub dotfiles: Option<String>,
    pub max_age: Option<f64>,
    /// A regular expression source: files whose path matches get `immutable`.
    pub immutable: Option<String>,
    pub cache: Option<bool>,
    pub cache_file_max: Option<f64>,
    pub cache_max: Option<f64>,
    pub precompressed: Option<bool>,
    pub compress: Option<bool>,
    pub redirect: Option<bool>,
    pub etag: Option<bool>,
    pub last_modified: Option<bool>,
    pub accept_ranges: Option<bool>,
    /// Header lines (`name: value\r\n`) every file answer carries.
    pub headers: Option<String>,
}

/// `setTls`'s options: the certificates (PEM, as text or bytes), per-name certificates, the CA for client
/// certificates, the ALPN protocols offered and the lowest TLS version.
#[napi(object)]
pub struct NativeTls {
    pub cert: Option<Either<String, Uint8Array>>,
    pub key: Option<Either<String, Uint8Array>>,
    pub ca: Option<Either<String, Uint8Array>>,
    pub sni: Vec<NativeSni>,
    pub alpn: Vec<String>,
    /// 'TLSv1.2' (the default) or 'TLSv1.3'.
    pub min_version: Option<String>,
}

/// One `sni` entry: the certificate served for `name`.
#[napi(object)]
pub struct NativeSni {
    pub name: String,
    pub cert: Either<String, Uint8Array>,
    pub key: Either<String, Uint8Array>,
}

/// `setHttp2`'s options.
#[napi(object)]
pub struct NativeHttp2 {
    pub max_concurrent_streams: Option<f64>,
    pub initial_window_size: Option<f64>,
    pub connection_window_size: Option<f64>,
    pub max_frame_size: Option<f64>,
    pub cleartext: Option<bool>,
    pub http1: Option<bool>,
}

/// `setHttp3`'s options.
#[napi(object)]
pub struct NativeHttp3 {
    pub max_concurrent_streams: Option<f64>,
    pub idle_timeout: Option<f64>,
    pub max_connections_per_address: Option<f64>,
    pub retry_above: Option<f64>,
    pub max_handshakes_per_second: Option<f64>,
    pub segmentation_offload: Option<bool>,
    /// WebTransport's limits; present when the app has `webtransport` routes.
    pub webtransport: Option<NativeWebTransport>,
}

/// WebTransport's per-connection limits (`http3.webtransport`).
#[napi(object)]
pub struct NativeWebTransport {
    pub max_sessions: Option<f64>,
    pub max_streams: Option<f64>,
    pub max_held_streams: Option<f64>,
    /// Milliseconds a stream may wait for its session to be accepted.
    pub hold_timeout: Option<f64>,
}

/// A WebSocket route's options (`app.ws(path, behavior)`), as option-rules.ts checked them.
#[napi(object)]
pub struct NativeWsOptions {
    pub max_payload_length: Option<f64>,
    /// Seconds without a message after which the connection is closed (0: never).
    pub idle_timeout: Option<f64>,
    pub send_pings: Option<bool>,
    pub max_backpressure: Option<f64>,
    pub close_on_backpressure_limit: Option<bool>,
    /// permessage-deflate: 'shared', 'dedicated', or off (anything else).
    pub compression: Option<String>,
    pub compression_threshold: Option<f64>,
    pub compression_level: Option<f64>,
    pub server_max_window_bits: Option<f64>,
    pub client_max_window_bits: Option<f64>,
    pub server_no_context_takeover: Option<bool>,
    pub client_no_context_takeover: Option<bool>,
}
