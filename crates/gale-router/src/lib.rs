//! gale-router: Gale's route tree. Bytes in, decisions out: never touches a socket, no napi,
//! no uv. Register `(method, pattern)` routes, then `find` raw request paths without allocating.

#![forbid(unsafe_code)]

mod decode;
mod method;
mod node;
mod pattern;
mod router;

pub use decode::{decode_param, DecodeError};
pub use method::{Method, MethodSel};
pub use pattern::{RouteError, RouteErrorKind};
pub use router::{Found, Router, RouterOptions};

#[cfg(test)]
mod tests;
