//! Thin, checked wrappers over raw Node-API calls used by the binding. Raw calls (not napi-rs typed
//! calls) because the request path is measured in nanoseconds; every wrapper is unsafe-free to call.

use std::ffi::{c_char, c_void};
use std::ptr;

use napi::sys::{self, napi_env, napi_value, ValueType};

/// Throws a JS Error (or TypeError) with `msg` and returns null (the Node-API "no value").
pub fn throw(env: napi_env, msg: &str, type_error: bool) -> napi_value {
    let mut bytes = msg.as_bytes().to_vec();
    bytes.retain(|&b| b != 0);
    bytes.push(0);
    // SAFETY: env is the current env; bytes is NUL-terminated.
    unsafe {
        if type_error {
            sys::napi_throw_type_error(env, ptr::null(), bytes.as_ptr() as *const c_char);
        } else {
            sys::napi_throw_error(env, ptr::null(), bytes.as_ptr() as *const c_char);
        }
    }
    ptr::null_mut()
}

/// Reads up to N arguments and the function's data pointer.
pub fn args<const N: usize>(
    env: napi_env,
    info: sys::napi_callback_info,
) -> ([napi_value; N], usize, *mut c_void) {
    let mut argv = [ptr::null_mut(); N];
    let mut argc = N;
    let mut data = ptr::null_mut();
    // SAFETY: argv has room for argc values.
    unsafe {
        sys::napi_get_cb_info(
            env,
            info,
            &mut argc,
            argv.as_mut_ptr(),
            ptr::null_mut(),
            &mut data,
        );
    }
    (argv, argc.min(N), data)
}

pub fn type_of(env: napi_env, v: napi_value) -> i32 {
    let mut t = 0;
    if v.is_null() {
        return ValueType::napi_undefined;
    }
    // SAFETY: v is a value from the current scope.
    unsafe { sys::napi_typeof(env, v, &mut t) };
    t
}

pub fn get_u32(env: napi_env, v: napi_value) -> Option<u32> {
    let mut out = 0u32;
    // SAFETY: v is a value from the current scope.
    let st = unsafe { sys::napi_get_value_uint32(env, v, &mut out) };
    (st == sys::Status::napi_ok).then_some(out)
}

pub fn get_f64(env: napi_env, v: napi_value) -> Option<f64> {
    let mut out = 0f64;
    // SAFETY: v is a value from the current scope.
    let st = unsafe { sys::napi_get_value_double(env, v, &mut out) };
    (st == sys::Status::napi_ok).then_some(out)
}

pub fn get_bool(env: napi_env, v: napi_value) -> Option<bool> {
    let mut out = false;
    // SAFETY: v is a value from the current scope.
    let st = unsafe { sys::napi_get_value_bool(env, v, &mut out) };
    (st == sys::Status::napi_ok).then_some(out)
}

/// UTF-8 byte length of a JS string (None if `v` is not a string).
pub fn utf8_len(env: napi_env, v: napi_value) -> Option<usize> {
    let mut len = 0usize;
    // SAFETY: a null buffer asks only for the length.
    let st = unsafe { sys::napi_get_value_string_utf8(env, v, ptr::null_mut(), 0, &mut len) };
    (st == sys::Status::napi_ok).then_some(len)
}

/// Appends exactly `len` UTF-8 bytes of string `v` to `out` (`len` from `utf8_len`).
pub fn append_utf8(env: napi_env, v: napi_value, len: usize, out: &mut Vec<u8>) {
    // Node-API always writes a NUL after the text, so reserve one byte more than we keep.
    out.reserve(len + 1);
    let start = out.len();
    let mut written = 0usize;
    // SAFETY: the spare capacity holds len + 1 bytes; napi writes at most that many and reports
    // how many text bytes it wrote, all of which are initialised.
    unsafe {
        sys::napi_get_value_string_utf8(
            env,
            v,
            out.as_mut_ptr().add(start) as *mut c_char,
            len + 1,
            &mut written,
        );
        out.set_len(start + written.min(len));
    }
}

/// Appends string `v`'s UTF-8 to `out` in one Node-API call when it fits in `room` bytes, without first asking V8
/// for its length (which walks the string a second time); false, with `out` as it was, when it may not have fit.
pub fn append_utf8_within(env: napi_env, v: napi_value, room: usize, out: &mut Vec<u8>) -> bool {
    out.reserve(room);
    let start = out.len();
    let mut written = 0usize;
    // SAFETY: the spare capacity holds `room` bytes; napi writes at most that many (text and its NUL) and reports how
    // many text bytes it wrote, all of which are initialised.
    let st = unsafe {
        sys::napi_get_value_string_utf8(
            env,
            v,
            out.as_mut_ptr().add(start) as *mut c_char,
            room,
            &mut written,
        )
    };
    // A cut string stops short of a character that does not fit (at most 4 bytes) and its NUL: anything further than
    // that from the end was the whole string.
    if st != sys::Status::napi_ok || written + 6 > room {
        return false;
    }
    // SAFETY: `written` bytes from `start` were just initialised by napi.
    unsafe { out.set_len(start + written) };
    true
}

/// Appends string `v`'s UTF-8 to `out` whatever its length: one Node-API call when it fits in `room` bytes (the usual
/// case), else its length is asked first and it is appended whole. Nothing is appended when `v` is not a string.
pub fn append_utf8_any(env: napi_env, v: napi_value, room: usize, out: &mut Vec<u8>) {
    if !append_utf8_within(env, v, room, out) {
        let len = utf8_len(env, v).unwrap_or(0);
        append_utf8(env, v, len, out);
    }
}

/// A JS string as Rust bytes.
pub fn get_string(env: napi_env, v: napi_value) -> Option<Vec<u8>> {
    let len = utf8_len(env, v)?;
    let mut out = Vec::with_capacity(len + 1);
    append_utf8(env, v, len, &mut out);
    Some(out)
}

/// A JS string as Latin-1 bytes (one byte per UTF-16 unit, the inverse of [`latin1`]); None if `v` is not a string.
pub fn get_latin1(env: napi_env, v: napi_value) -> Option<Vec<u8>> {
    let mut len = 0usize;
    // SAFETY: v is a value from the current scope; a null buffer asks for the length only.
    let status = unsafe { sys::napi_get_value_string_latin1(env, v, ptr::null_mut(), 0, &mut len) };
    if status != sys::Status::napi_ok {
        return None;
    }
    let mut out = Vec::with_capacity(len + 1);
    let mut written = 0usize;
    // SAFETY: out has room for len bytes and the terminating NUL napi writes.
    unsafe {
        sys::napi_get_value_string_latin1(
            env,
            v,
            out.as_mut_ptr() as *mut c_char,
            len + 1,
            &mut written,
        );
        out.set_len(written.min(len));
    }
    Some(out)
}

/// The bytes of a Uint8Array/Buffer (None if `v` is not a typed array).
///
/// The slice borrows memory JS owns: it is valid until JS code runs again (JS could detach or
/// transfer the ArrayBuffer then). Callers use it within one native call and call nothing that can
/// run JS (a property getter, a function) while they hold it. A view of a detached ArrayBuffer has
/// length 0 and a null data pointer; it comes back as an empty slice, never as a slice built from
/// the null pointer (which would be undefined behaviour even at length 0).
pub fn get_bytes<'a>(env: napi_env, v: napi_value) -> Option<&'a [u8]> {
    let mut is = false;
    // SAFETY: v is a value from the current scope.
    unsafe { sys::napi_is_typedarray(env, v, &mut is) };
    if !is {
        return None;
    }
    let mut ty = 0;
    let mut len = 0usize;
    let mut data: *mut c_void = ptr::null_mut();
    // SAFETY: v is a typed array; Node-API returns its data pointer adjusted by byte_offset.
    unsafe {
        sys::napi_get_typedarray_info(
            env,
            v,
            &mut ty,
            &mut len,
            &mut data,
            ptr::null_mut(),
            ptr::null_mut(),
        );
    }
    if ty != sys::TypedarrayType::uint8_array && ty != sys::TypedarrayType::uint8_clamped_array {
        return None;
    }
    if len == 0 || data.is_null() {
        return Some(&[]);
    }
    // SAFETY: data points at len live bytes owned by the typed array, which outlives this call.
    Some(unsafe { std::slice::from_raw_parts(data as *const u8, len) })
}

pub fn string(env: napi_env, s: &[u8]) -> napi_value {
    let mut v = ptr::null_mut();
    // SAFETY: s is a valid slice; napi copies it.
    unsafe {
        sys::napi_create_string_utf8(env, s.as_ptr() as *const c_char, s.len() as isize, &mut v)
    };
    v
}

pub fn latin1(env: napi_env, s: &[u8]) -> napi_value {
    let mut v = ptr::null_mut();
    // SAFETY: s is a valid slice; napi copies it.
    unsafe {
        sys::napi_create_string_latin1(env, s.as_ptr() as *const c_char, s.len() as isize, &mut v)
    };
    v
}

pub fn uint(env: napi_env, n: u32) -> napi_value {
    let mut v = ptr::null_mut();
    // SAFETY: plain value creation.
    unsafe { sys::napi_create_uint32(env, n, &mut v) };
    v
}

pub fn boolean(env: napi_env, b: bool) -> napi_value {
    let mut v = ptr::null_mut();
    // SAFETY: plain value lookup.
    unsafe { sys::napi_get_boolean(env, b, &mut v) };
    v
}

pub fn undefined(env: napi_env) -> napi_value {
    let mut v = ptr::null_mut();
    // SAFETY: plain value lookup.
    unsafe { sys::napi_get_undefined(env, &mut v) };
    v
}

pub fn null(env: napi_env) -> napi_value {
    let mut v = ptr::null_mut();
    // SAFETY: plain value lookup.
    unsafe { sys::napi_get_null(env, &mut v) };
    v
}

pub fn array(env: napi_env, items: &[napi_value]) -> napi_value {
    let mut arr = ptr::null_mut();
    // SAFETY: arr is created, then filled with values from the current scope.
    unsafe {
        sys::napi_create_array_with_length(env, items.len(), &mut arr);
        for (i, &it) in items.iter().enumerate() {
            sys::napi_set_element(env, arr, i as u32, it);
        }
    }
    arr
}

pub fn buffer_copy(env: napi_env, bytes: &[u8]) -> napi_value {
    let mut v = ptr::null_mut();
    // SAFETY: napi copies len bytes from the slice.
    unsafe {
        sys::napi_create_buffer_copy(
            env,
            bytes.len(),
            bytes.as_ptr() as *const c_void,
            ptr::null_mut(),
            &mut v,
        )
    };
    v
}

/// Bytes at or above this size become a Buffer that owns them; below it a copy costs less than an external
/// buffer's finalizer (a weak reference V8 must track and a callback when it is collected).
pub const OWNED_BUFFER_MIN: usize = 64 * 1024;

/// A Buffer of `bytes`: large ones handed over without a copy (the Buffer owns the Vec), small ones copied; where
/// external buffers are refused (a runtime built with the V8 sandbox), a copy. `done` gets the Vec back once nothing
/// reads it: when the Buffer is freed (collected, or its ArrayBuffer detached), or at once when its bytes were copied;
/// Node runs that on the environment's own thread.
pub fn buffer_handed(env: napi_env, bytes: Vec<u8>, done: fn(Vec<u8>)) -> napi_value {
    if bytes.len() < OWNED_BUFFER_MIN {
        let v = buffer_copy(env, &bytes);
        done(bytes);
        return v;
    }
    unsafe extern "C" fn free_vec(_env: napi_env, _data: *mut c_void, hint: *mut c_void) {
        // SAFETY: `hint` is the Box leaked below, given back exactly once by this finalizer.
        let (bytes, done) = *unsafe { Box::from_raw(hint as *mut (Vec<u8>, fn(Vec<u8>))) };
        done(bytes);
    }
    let mut owned = Box::new((bytes, done));
    let (data, len) = (owned.0.as_mut_ptr(), owned.0.len());
    let hint = Box::into_raw(owned);
    let mut v = ptr::null_mut();
    // SAFETY: data/len describe the Vec's bytes, which stay where they are (the Vec is boxed and never touched again
    // until `free_vec` takes it back); on success the Buffer owns `hint`.
    let status = unsafe {
        sys::napi_create_external_buffer(
            env,
            len,
            data as *mut c_void,
            Some(free_vec),
            hint as *mut c_void,
            &mut v,
        )
    };
    if status != sys::Status::napi_ok {
        // SAFETY: not taken by Node-API (it failed), so still ours.
        let (bytes, done) = *unsafe { Box::from_raw(hint) };
        let v = buffer_copy(env, &bytes);
        done(bytes);
        return v;
    }
    v
}

pub fn set_prop(env: napi_env, obj: napi_value, name: &std::ffi::CStr, v: napi_value) {
    // SAFETY: obj is an object from the current scope; name is NUL-terminated.
    unsafe { sys::napi_set_named_property(env, obj, name.as_ptr(), v) };
}

/// Rethrows a pending JS exception as an uncaught exception (process 'uncaughtException').
pub fn report_pending(env: napi_env) {
    let mut pending = false;
    // SAFETY: plain queries on the current env.
    unsafe {
        sys::napi_is_exception_pending(env, &mut pending);
        if pending {
            let mut err = ptr::null_mut();
            sys::napi_get_and_clear_last_exception(env, &mut err);
            sys::napi_fatal_exception(env, err);
        }
    }
}
