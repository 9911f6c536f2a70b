//! gale-node: the napi binding, the only crate that names napi. It builds `createServer`, whose
//! object's methods are raw Node-API functions bound to one `gale_server::Server`, and implements
//! `gale_server::Handler` by calling the JS dispatch function inside one callback scope per wakeup.

mod bound;
mod config;
mod etag;
mod handler;
mod mem;
mod methods;
mod msgpool;
mod napi_util;
mod options;
mod reply;
mod reqinfo;
mod setup;
mod ws;
mod wt;

use napi::bindgen_prelude::*;
use napi_derive::napi;

/// Module entry: adds `createServer` to the exports object.
#[napi(module_exports)]
pub fn init(exports: Object<'_>, env: Env) -> Result<()> {
    // SAFETY: env and exports are live for the duration of module registration.
    unsafe { methods::register(env.raw(), exports.raw()) };
    Ok(())
}
