//! gale-router: Gale's route tree. Bytes in, decisions out: never touches a socket, no napi,
//! no uv. Register `(method, pattern)` routes, then `find` raw request paths without allocating.

#![forbid(unsafe_code)]

mod constraint;
mod decode;
mod error;
mod lexer;
mod method;
mod node;
mod pattern;
mod router;
mod search;
mod template;

pub use decode::{decode_param, DecodeError};
pub use error::{RouteError, RouteErrorKind};
pub use method::{Method, MethodSel};
pub use router::{Found, Router, RouterOptions, ABSENT};

#[cfg(test)]
mod tests;
