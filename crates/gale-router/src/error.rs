//! The error type for route patterns that are malformed or conflict with a registered route.

use std::fmt;

/// What kind of problem a [`RouteError`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RouteErrorKind {
    /// The pattern text is not valid (or uses syntax Gale does not support).
    Malformed,
    /// The pattern is valid but an existing route already claims the same method and paths.
    Conflict,
}

/// Why [`Router::insert`](crate::Router::insert) rejected a route. The message is meant to be
/// shown to the application author as-is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RouteError {
    kind: RouteErrorKind,
    message: String,
}

impl RouteError {
    pub(crate) fn malformed(pattern: &str, reason: impl fmt::Display) -> Self {
        RouteError {
            kind: RouteErrorKind::Malformed,
            message: format!("invalid route pattern {pattern:?}: {reason}"),
        }
    }

    /// A malformed pattern with the byte offset (0-based) of the offending character, so that
    /// long patterns with several `:`/`{` point at the right one.
    pub(crate) fn malformed_at(pattern: &str, at: usize, reason: impl fmt::Display) -> Self {
        RouteError::malformed(pattern, format_args!("{reason} at byte {at}"))
    }

    pub(crate) fn conflict(message: String) -> Self {
        RouteError {
            kind: RouteErrorKind::Conflict,
            message,
        }
    }

    /// Human-readable description naming the offending pattern(s).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Malformed pattern or conflict with an existing route.
    pub fn kind(&self) -> RouteErrorKind {
        self.kind
    }
}

impl fmt::Display for RouteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for RouteError {}
