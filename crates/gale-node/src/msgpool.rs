//! Buffers for WebSocket messages handed to JS. A message up to 4 KiB is copied into a shared 64 KiB
//! ArrayBuffer and passed as (arrayBuffer, offset, length), so JS makes a Buffer view of it without the
//! malloc, backing-store registration and GC sweep that a Buffer of its own costs per message.

use std::cell::Cell;
use std::ptr;

use napi::sys::{self, napi_env, napi_ref, napi_value};

const POOL_BYTES: usize = 64 * 1024;
/// Larger messages get a Buffer of their own.
pub(crate) const POOLED_MAX: usize = 4 * 1024;

/// The current pool. A region is never written twice: a full pool is replaced by a new one, and the
/// old one lives as long as JS keeps views of it (like Node's own Buffer pool).
pub(crate) struct MsgPool {
    pool: Cell<napi_ref>,
    base: Cell<*mut u8>,
    used: Cell<usize>,
}

impl MsgPool {
    pub fn new() -> MsgPool {
        MsgPool {
            pool: Cell::new(ptr::null_mut()),
            base: Cell::new(ptr::null_mut()),
            used: Cell::new(POOL_BYTES),
        }
    }

    /// Copies `data` (at most `POOLED_MAX` bytes) into the pool; returns the pool and the offset, or
    /// None when no pool could be allocated (the caller then gives the message a Buffer of its own).
    pub fn put(&self, env: napi_env, data: &[u8]) -> Option<(napi_value, usize)> {
        debug_assert!(data.len() <= POOLED_MAX);
        let mut value = ptr::null_mut();
        // No pool yet (`used` starts at POOL_BYTES, but an empty message fits "within" that, so the
        // null reference must be checked on its own: reading it was the empty-message SIGSEGV).
        if self.pool.get().is_null() || self.used.get() + data.len() > POOL_BYTES {
            let mut base: *mut std::ffi::c_void = ptr::null_mut();
            // SAFETY: a live env inside the handler's scope; base and value are out-pointers.
            let st =
                unsafe { sys::napi_create_arraybuffer(env, POOL_BYTES, &mut base, &mut value) };
            if st != sys::Status::napi_ok || base.is_null() || value.is_null() {
                return None;
            }
            let mut r = ptr::null_mut();
            // SAFETY: the old reference (if any) is ours to delete: views JS holds keep that
            // ArrayBuffer alive on their own. `value` is live in the current handle scope.
            unsafe {
                if !self.pool.get().is_null() {
                    sys::napi_delete_reference(env, self.pool.get());
                }
                sys::napi_create_reference(env, value, 1, &mut r);
            }
            self.pool.set(r);
            self.base.set(base as *mut u8);
            self.used.set(0);
        } else {
            // SAFETY: pool is non-null here (checked above) and a strong reference we own.
            unsafe { sys::napi_get_reference_value(env, self.pool.get(), &mut value) };
        }
        let off = self.used.get();
        if !data.is_empty() {
            // SAFETY: base points at POOL_BYTES bytes kept alive by the strong reference, and
            // off + len <= POOL_BYTES (checked above); data is an engine-owned slice, so the two
            // cannot overlap. A region is never written twice, so no JS view sees it change.
            unsafe {
                ptr::copy_nonoverlapping(data.as_ptr(), self.base.get().add(off), data.len())
            };
        }
        // 8-byte aligned, so views can be reinterpreted as wider typed arrays.
        self.used.set(off + ((data.len() + 7) & !7));
        Some((value, off))
    }
}
