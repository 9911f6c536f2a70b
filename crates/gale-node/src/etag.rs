//! `etag(body, weak)`: the entity tag Express's `etag fn` makes (the `etag` package's format), computed here so that
//! a response pays one Node-API call instead of node:crypto's hash object, digest and base64 string.

use std::cell::RefCell;

use napi::sys::{napi_callback_info, napi_env, napi_value, ValueType};

use crate::napi_util as nu;

thread_local! {
    /// The UTF-8 bytes of a string body, reused: an ETag is computed for most responses.
    static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// `etag(body: string | Uint8Array, weak: boolean): string`.
pub(crate) unsafe extern "C" fn etag(env: napi_env, info: napi_callback_info) -> napi_value {
    let (argv, _, _) = nu::args::<2>(env, info);
    let weak = nu::get_bool(env, argv[1]).unwrap_or(false);
    let mut tag = Vec::with_capacity(48);
    if let Some(bytes) = nu::get_bytes(env, argv[0]) {
        gale_http::entity_tag(bytes, weak, &mut tag);
    } else if nu::type_of(env, argv[0]) == ValueType::napi_string {
        SCRATCH.with_borrow_mut(|buf| {
            buf.clear();
            // One call for the usual short body; a longer one is measured first.
            nu::append_utf8_any(env, argv[0], 4096, buf);
            gale_http::entity_tag(buf, weak, &mut tag);
            // A one-off large body does not keep its buffer for the life of the process.
            if buf.capacity() > 64 * 1024 {
                *buf = Vec::new();
            }
        });
    } else {
        return nu::throw(
            env,
            "etag(body, weak): body must be a string or a Uint8Array",
            true,
        );
    }
    nu::latin1(env, &tag)
}
