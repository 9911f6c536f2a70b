//! The engine's routing table: the router and what its targets index — fixed answers, static mounts — and the
//! fallback JS route. Registration lives here (lifecycle.rs and ws/api.rs check and delegate); `Inner::route`
//! (find.rs) finds a request's target in it, for every protocol.

mod find;

use gale_router::{Method, MethodSel, Router, RouterOptions};

use crate::statics::Mount;
use crate::wire::Fixed;
use crate::ws::WsRoute;

/// A route's target inside the router.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Target {
    Js(u32),
    /// A JS route (registered for all methods) with a native answer (`Routes::fixed` index) the app's JS would give
    /// any GET or HEAD request that has no body and no validator (`Server::set_route_answer`); other requests run
    /// the JS route.
    Answer(u32, u32),
    Fixed(u32),
    Static(u32),
    /// A WebSocket route: JS route (its middleware and upgrade step) and `WsState::routes` index.
    Ws(u32, u32),
}

/// The routing table: what a request's method and path lead to.
pub(crate) struct Routes {
    pub router: Router<Target>,
    /// Answers given entirely by the engine (`Target::Fixed`, `Target::Answer`).
    pub fixed: Vec<Fixed>,
    /// Static directories (`Target::Static`).
    pub mounts: Vec<Mount>,
    /// JS route that answers paths no route matches (middleware + notFound), instead of a native 404.
    pub fallback: Option<u32>,
}

impl Routes {
    pub fn new(opts: RouterOptions) -> Routes {
        Routes {
            router: Router::new(opts),
            fixed: Vec::new(),
            mounts: Vec::new(),
            fallback: None,
        }
    }

    /// Registers JS route `route`; its param names in capture order. A GET on a WebSocket route's path becomes that
    /// route's plain-HTTP route (`ws`: the WebSocket routes), so plain GETs come here and upgrades stay there.
    pub fn add_js(
        &mut self,
        method: MethodSel,
        pattern: &str,
        route: u32,
        ws: &mut [WsRoute],
    ) -> Result<Vec<String>, String> {
        match self.router.insert(method, pattern, Target::Js(route)) {
            Ok(names) => Ok(names),
            Err(e) => {
                let get = MethodSel::One(Method::Get);
                if method == get {
                    if let Some((Target::Ws(_, wr), names)) = self.router.route_mut(get, pattern) {
                        let ws = &mut ws[*wr as usize];
                        if ws.http.is_none() {
                            ws.http = Some(route);
                            return Ok(names);
                        }
                    }
                }
                Err(e.to_string())
            }
        }
    }

    /// Registers an answer given entirely by the engine.
    pub fn add_fixed(
        &mut self,
        method: MethodSel,
        pattern: &str,
        fixed: Fixed,
    ) -> Result<(), String> {
        let id = self.fixed.len() as u32;
        self.router
            .insert(method, pattern, Target::Fixed(id))
            .map_err(|e| e.to_string())?;
        self.fixed.push(fixed);
        Ok(())
    }

    /// Gives the JS route registered for all methods at `pattern` the native answer `fixed`, or takes it back
    /// (`None`).
    pub fn set_answer(&mut self, pattern: &str, fixed: Option<Fixed>) -> Result<(), String> {
        let Some((target, _)) = self.router.route_mut(MethodSel::All, pattern) else {
            return Err(format!("no route for all methods at {pattern:?}"));
        };
        *target = match (*target, fixed) {
            (Target::Js(route), Some(f)) => {
                self.fixed.push(f);
                Target::Answer(route, self.fixed.len() as u32 - 1)
            }
            (Target::Answer(route, id), Some(f)) => {
                self.fixed[id as usize] = f;
                Target::Answer(route, id)
            }
            (Target::Answer(route, _) | Target::Js(route), None) => Target::Js(route),
            _ => return Err(format!("the route at {pattern:?} is not a JS route")),
        };
        Ok(())
    }

    /// Mounts a static directory at its prefix (a trimmed `/path`, or "" for the root) for GET and HEAD.
    pub fn add_mount(&mut self, prefix: &str, mount: Mount) -> Result<(), String> {
        let id = self.mounts.len() as u32;
        let get = MethodSel::One(Method::Get);
        if prefix.is_empty() {
            // A root mount answers "/" only when no route owns it: `app.get('/')` keeps "/".
            let _ = self.router.insert(get, "/", Target::Static(id));
        } else {
            self.router
                .insert(get, prefix, Target::Static(id))
                .map_err(|e| e.to_string())?;
        }
        self.router
            .insert(get, &format!("{prefix}/*static_path"), Target::Static(id))
            .map_err(|e| e.to_string())?;
        self.mounts.push(mount);
        Ok(())
    }
}
