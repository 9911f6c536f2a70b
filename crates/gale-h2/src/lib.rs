//! gale-h2: the HTTP/2 pieces of Gale that need no socket. The `h2` crate (in gale-server) runs the protocol; this
//! crate holds what Gale adds around it: the flood guard that reads the client's frame headers before h2 does
//! ([`Guard`]), the HTTP/1.1 request head an HTTP/2 request stands for ([`request_head`], parsed by gale-http like
//! any other), the HTTP/2 response built from a reply's fields ([`response`], never from HTTP/1.1 bytes), and the
//! connection preface's check ([`preface`]) and the answer to a wrong one ([`preface_error`]).
//! No I/O, no napi, no unsafe.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod guard;
mod head;
mod preface;

pub use guard::{Flood, Guard, GuardLimits, PREFACE};
pub use head::{connection_specific, request_head, response, response_from_fields};
pub use preface::{preface, preface_error, Preface};
