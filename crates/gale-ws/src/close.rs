//! Close codes (RFC 6455 §7.4): the error type every protocol violation becomes, and the check
//! on codes a peer may put in a close frame.

/// A protocol violation, as the close frame to answer it with: send `code` and `reason`
/// (see [`crate::write_close`]), then close the connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CloseError {
    /// The close code (1002, 1007 or 1009 from this crate).
    pub code: u16,
    /// A short human-readable reason, at most 123 bytes so it fits a close frame.
    pub reason: &'static str,
}

impl CloseError {
    /// 1002 Protocol Error: the peer broke framing rules.
    pub const fn protocol(reason: &'static str) -> CloseError {
        CloseError { code: 1002, reason }
    }

    /// 1007 Invalid Frame Payload Data: text that is not UTF-8, or a corrupt compressed
    /// payload.
    pub const fn invalid_data(reason: &'static str) -> CloseError {
        CloseError { code: 1007, reason }
    }

    /// 1009 Message Too Big: the message exceeds the configured maximum payload.
    pub const fn too_big(reason: &'static str) -> CloseError {
        CloseError { code: 1009, reason }
    }
}

impl std::fmt::Display for CloseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.code, self.reason)
    }
}

impl std::error::Error for CloseError {}

/// Whether a peer may send `code` in a close frame (RFC 6455 §7.4.1 and the IANA registry):
/// 1000–1003, 1007–1014 and the application ranges 3000–4999. 1004 is reserved, and
/// 1005/1006/1015 are only ever reported locally, never sent.
///
/// ```
/// use gale_ws::valid_close_code;
/// assert!(valid_close_code(1000) && valid_close_code(4000));
/// assert!(!valid_close_code(1005) && !valid_close_code(999) && !valid_close_code(5000));
/// ```
pub fn valid_close_code(code: u16) -> bool {
    matches!(code, 1000..=1003 | 1007..=1014 | 3000..=4999)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_codes() {
        let valid: Vec<u16> = (0..=u16::MAX).filter(|&c| valid_close_code(c)).collect();
        assert_eq!(valid.len(), 4 + 8 + 2000);
        for bad in [0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000, u16::MAX] {
            assert!(!valid_close_code(bad), "{bad}");
        }
    }

    #[test]
    fn constructors() {
        assert_eq!(CloseError::protocol("x").code, 1002);
        assert_eq!(CloseError::invalid_data("x").code, 1007);
        assert_eq!(CloseError::too_big("x").code, 1009);
        assert_eq!(CloseError::too_big("big").to_string(), "1009 big");
    }
}
