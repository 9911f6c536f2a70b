//! A binding method bound to its server: each is a raw Node-API function whose data pointer is a strong `Rc<Server>`,
//! dropped by the function's finalizer, and `server()` reads that pointer back inside a call.

use std::ffi::{c_void, CStr};
use std::ptr;
use std::rc::Rc;

use gale_server::Server;
use napi::sys::{self, napi_callback_info, napi_env, napi_value};

use crate::napi_util as nu;

/// The signature of every method (`methods.rs` lists them).
pub(crate) type Cb = unsafe extern "C" fn(napi_env, napi_callback_info) -> napi_value;

unsafe extern "C" fn drop_server(_env: napi_env, data: *mut c_void, _hint: *mut c_void) {
    // SAFETY: data is the Rc pointer given to this function object in `method`.
    unsafe { drop(Rc::from_raw(data as *const Server)) };
}

/// Adds method `name` (taking `arity` arguments) bound to `server` to `obj`.
pub(crate) fn method(
    env: napi_env,
    obj: napi_value,
    name: &CStr,
    cb: Cb,
    arity: u32,
    server: &Rc<Server>,
) {
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
    // A function made by Node-API reports length 0; give it the arguments it takes, as a JS function has.
    let length = nu::uint(env, arity);
    let desc = sys::napi_property_descriptor {
        utf8name: c"length".as_ptr(),
        name: ptr::null_mut(),
        method: None,
        getter: None,
        setter: None,
        value: length,
        attributes: sys::PropertyAttributes::configurable,
        data: ptr::null_mut(),
    };
    // SAFETY: `f` is the function just created; the descriptor points to a static name and a live value.
    unsafe { sys::napi_define_properties(env, f, 1, &desc) };
    nu::set_prop(env, obj, name, f);
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
