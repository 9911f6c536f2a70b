//! `Handler` for the engine: opens a handle scope and a callback scope per loop wakeup, then calls the
//! JS `dispatch(id, route, ...params)` and `onEvent(kind, id)` functions with raw `napi_call_function`.

use std::cell::{Cell, RefCell};
use std::ptr;

use gale_server::{Event, Handler, Server};
use napi::sys::{self, napi_env, napi_ref, napi_value};

use crate::napi_util as nu;

pub(crate) const EV_ABORT: u32 = 0;
pub(crate) const EV_DRAIN: u32 = 1;
pub(crate) const EV_CLOSED: u32 = 2;
pub(crate) const EV_BODY: u32 = 3;
pub(crate) const EV_WS_CLOSE: u32 = 4;
pub(crate) const EV_WS_DRAIN: u32 = 5;
pub(crate) const EV_TOPIC: u32 = 6;
pub(crate) const EV_PIPE: u32 = 7;
/// A WebTransport event: (EV_WT, kind, id, a, b, data) as `wt_event` lays it out.
pub(crate) const EV_WT: u32 = 8;

pub(crate) struct JsHandler {
    pub env: napi_env,
    pub dispatch: napi_ref,
    pub on_event: napi_ref,
    pub on_ws_message: napi_ref,
    pub resource: napi_ref,
    pub async_ctx: sys::napi_async_context,
    depth: Cell<u32>,
    scope: Cell<sys::napi_handle_scope>,
    cb_scope: Cell<sys::napi_callback_scope>,
    dispatch_fn: Cell<napi_value>,
    ws_message_fn: Cell<napi_value>,
    recv: Cell<napi_value>,
    argv: RefCell<Vec<napi_value>>,
    msg_pool: crate::msgpool::MsgPool,
}

impl JsHandler {
    pub fn new(
        env: napi_env,
        dispatch: napi_value,
        on_event: napi_value,
        on_ws_message: napi_value,
        resource: napi_value,
    ) -> JsHandler {
        let mut d = ptr::null_mut();
        let mut e = ptr::null_mut();
        let mut w = ptr::null_mut();
        let mut r = ptr::null_mut();
        let mut ctx = ptr::null_mut();
        // SAFETY: the values are live in the caller's scope; references keep them alive afterwards.
        unsafe {
            sys::napi_create_reference(env, dispatch, 1, &mut d);
            sys::napi_create_reference(env, on_event, 1, &mut e);
            sys::napi_create_reference(env, on_ws_message, 1, &mut w);
            sys::napi_create_reference(env, resource, 1, &mut r);
            sys::napi_async_init(env, resource, nu::latin1(env, b"GaleServer"), &mut ctx);
        }
        JsHandler {
            env,
            dispatch: d,
            on_event: e,
            on_ws_message: w,
            resource: r,
            async_ctx: ctx,
            depth: Cell::new(0),
            scope: Cell::new(ptr::null_mut()),
            cb_scope: Cell::new(ptr::null_mut()),
            dispatch_fn: Cell::new(ptr::null_mut()),
            ws_message_fn: Cell::new(ptr::null_mut()),
            recv: Cell::new(ptr::null_mut()),
            argv: RefCell::new(Vec::with_capacity(8)),
            msg_pool: crate::msgpool::MsgPool::new(),
        }
    }

    fn ref_value(&self, r: napi_ref) -> napi_value {
        let mut v = ptr::null_mut();
        // SAFETY: r is a strong reference we own.
        unsafe { sys::napi_get_reference_value(self.env, r, &mut v) };
        v
    }

    fn call(&self, f: napi_value, argv: &[napi_value]) {
        let mut result = ptr::null_mut();
        // SAFETY: f and argv are live values in the open handle scope.
        let st = unsafe {
            sys::napi_call_function(
                self.env,
                self.recv.get(),
                f,
                argv.len(),
                argv.as_ptr(),
                &mut result,
            )
        };
        if st != sys::Status::napi_ok {
            nu::report_pending(self.env);
        }
    }
}

impl Handler for JsHandler {
    fn begin(&self) {
        let depth = self.depth.get();
        self.depth.set(depth + 1);
        if depth > 0 {
            return;
        }
        let env = self.env;
        let mut scope = ptr::null_mut();
        let mut cb_scope = ptr::null_mut();
        // SAFETY: called from a libuv callback on the JS thread, outside any JS frame.
        unsafe {
            sys::napi_open_handle_scope(env, &mut scope);
            let resource = self.ref_value(self.resource);
            sys::napi_open_callback_scope(env, resource, self.async_ctx, &mut cb_scope);
        }
        self.scope.set(scope);
        self.cb_scope.set(cb_scope);
        self.dispatch_fn.set(self.ref_value(self.dispatch));
        self.ws_message_fn.set(self.ref_value(self.on_ws_message));
        self.recv.set(nu::undefined(env));
    }

    fn end(&self) {
        let depth = self.depth.get() - 1;
        self.depth.set(depth);
        if depth > 0 {
            return;
        }
        // SAFETY: closes exactly the scopes opened in begin, innermost first. Closing the outermost
        // callback scope runs process.nextTick callbacks and promise jobs.
        unsafe {
            sys::napi_close_callback_scope(self.env, self.cb_scope.get());
            sys::napi_close_handle_scope(self.env, self.scope.get());
        }
    }

    fn checkpoint(&self) {
        // Only the outermost scope runs jobs when it closes; a nested one (the engine called from JS) must not.
        if self.depth.get() != 1 {
            return;
        }
        self.end();
        self.begin();
    }

    fn request(&self, server: &Server, id: u32, route: u32) {
        let env = self.env;
        let mut argv = self.argv.borrow_mut();
        argv.clear();
        argv.push(nu::uint(env, id));
        argv.push(nu::undefined(env));
        let mut flags = 0;
        server.with_req(id, |r| {
            flags = method_code(r.method()) | no_validators(r.headers());
            for p in r.params() {
                argv.push(match p {
                    Some(p) => nu::string(env, p),
                    None => nu::undefined(env),
                });
            }
        });
        // The route id with the method's code and NO_VALIDATORS in the top byte: JS knows `req.method`, and that
        // there is no If-None-Match or If-Modified-Since to check an ETag against, without asking.
        argv[1] = nu::uint(env, route | (flags << ROUTE_BITS));
        // The JS call may re-enter the engine but never this handler's request path, so holding
        // argv's borrow across it is safe; copy anyway to keep the RefCell free for nesting.
        let args: smallvec_like::Args = smallvec_like::Args::from(&argv[..]);
        drop(argv);
        self.call(self.dispatch_fn.get(), args.as_slice());
    }

    fn event(&self, _server: &Server, ev: Event) {
        let env = self.env;
        let f = self.ref_value(self.on_event);
        let (kind, id) = match ev {
            Event::Abort(id) => (EV_ABORT, id),
            Event::Drain(id) => (EV_DRAIN, id),
            Event::Closed => (EV_CLOSED, 0),
            Event::Body(id) => (EV_BODY, id),
            Event::WsDrain(sid) => (EV_WS_DRAIN, sid),
            Event::Pipe(key) => (EV_PIPE, key),
            Event::Topic { name, active } => {
                // (EV_TOPIC, active, 0, topic name)
                let args = [
                    nu::uint(env, EV_TOPIC),
                    nu::uint(env, u32::from(active)),
                    nu::uint(env, 0),
                    nu::string(env, &name),
                ];
                self.call(f, &args);
                return;
            }
            Event::Wt(e) => return self.call(f, &wt_event(env, *e)),
            Event::WsClose { sid, code, reason } => {
                let args = [
                    nu::uint(env, EV_WS_CLOSE),
                    nu::uint(env, sid),
                    nu::uint(env, code as u32),
                    nu::string(env, &reason),
                ];
                self.call(f, &args);
                return;
            }
        };
        self.call(f, &[nu::uint(env, kind), nu::uint(env, id)]);
    }

    fn ws_message(&self, _server: &Server, sid: u32, data: &[u8], binary: bool) {
        let env = self.env;
        // Messages arrive only from the read path, inside the scope `begin` opened.
        let f = self.ws_message_fn.get();
        let pooled = if data.len() <= crate::msgpool::POOLED_MAX {
            self.msg_pool.put(env, data)
        } else {
            None
        };
        let (buf, off) = match pooled {
            Some((pool, off)) => (pool, nu::uint(env, off as u32)),
            None => (nu::buffer_copy(env, data), nu::uint(env, u32::MAX)),
        };
        // (sid, pool ArrayBuffer, offset, length, binary), or (sid, Buffer, 0xFFFFFFFF, length, binary).
        let args = [
            nu::uint(env, sid),
            buf,
            off,
            nu::uint(env, data.len() as u32),
            nu::boolean(env, binary),
        ];
        self.call(f, &args);
    }
}

/// A WebTransport event's arguments: (EV_WT, kind, id, a, b, data). Kinds: 0 stream (id stream, a session, b bidi),
/// 1 data (id stream, a fin, data Buffer), 2 reset (id stream, a code or null, b stopped), 3 drain (id stream),
/// 4 datagram (id session, data Buffer), 5 draining (id session), 6 close (id session, a code, data reason).
fn wt_event(env: napi_env, e: gale_server::WtEvent) -> [napi_value; 6] {
    use gale_server::WtEvent as W;
    let u = |n: u32| nu::uint(env, n);
    let none = nu::undefined(env);
    let (kind, id, a, b, data) = match e {
        W::Stream {
            session,
            stream,
            bidi,
        } => (0, stream, u(session), nu::boolean(env, bidi), none),
        W::Data { stream, data, fin } => (
            1,
            stream,
            nu::boolean(env, fin),
            none,
            nu::buffer_copy(env, &data),
        ),
        W::Reset {
            stream,
            code,
            stopped,
        } => (
            2,
            stream,
            code.map_or(nu::null(env), u),
            nu::boolean(env, stopped),
            none,
        ),
        W::Drain(stream) => (3, stream, none, none, none),
        W::Datagram { session, data } => (4, session, none, none, nu::buffer_copy(env, &data)),
        W::Draining(session) => (5, session, none, none, none),
        W::Close {
            session,
            code,
            reason,
        } => (6, session, u(code), none, nu::string(env, &reason)),
    };
    [u(EV_WT), u(kind), u(id), a, b, data]
}

/// A fixed-capacity argument list on the stack (routes rarely have more than a few params).
mod smallvec_like {
    use napi::sys::napi_value;

    pub enum Args {
        Inline([napi_value; 8], usize),
        Heap(Vec<napi_value>),
    }

    impl Args {
        pub fn from(v: &[napi_value]) -> Args {
            if v.len() <= 8 {
                let mut a = [std::ptr::null_mut(); 8];
                a[..v.len()].copy_from_slice(v);
                Args::Inline(a, v.len())
            } else {
                Args::Heap(v.to_vec())
            }
        }

        pub fn as_slice(&self) -> &[napi_value] {
            match self {
                Args::Inline(a, n) => &a[..*n],
                Args::Heap(v) => v,
            }
        }
    }
}

/// Route ids take the low 24 bits of dispatch's second argument; the top byte holds the method's code
/// (`method_code`, bits 0–2) and NO_VALIDATORS (bit 3).
pub(crate) const ROUTE_BITS: u32 = 24;

/// The request has neither If-None-Match nor If-Modified-Since (request.ts's `_noValidators`).
const NO_VALIDATORS: u32 = 8;

/// NO_VALIDATORS unless a header is If-None-Match or If-Modified-Since (names compared only at those lengths).
fn no_validators<'a>(mut headers: impl Iterator<Item = (&'a [u8], &'a [u8])>) -> u32 {
    let found = headers.any(|(n, _)| {
        (n.len() == 13 && n.eq_ignore_ascii_case(b"if-none-match"))
            || (n.len() == 17 && n.eq_ignore_ascii_case(b"if-modified-since"))
    });
    if found {
        0
    } else {
        NO_VALIDATORS
    }
}

/// The code JS's `METHOD_CODES` (packages/gale/src/request.ts) reads back: 1–7 for the common methods, 0 for any other
/// (JS then asks the engine for it).
fn method_code(method: &[u8]) -> u32 {
    match method {
        b"GET" => 1,
        b"HEAD" => 2,
        b"POST" => 3,
        b"PUT" => 4,
        b"DELETE" => 5,
        b"PATCH" => 6,
        b"OPTIONS" => 7,
        _ => 0,
    }
}
