//! The decoder's close errors, one per protocol rule, so tests can name the rule that fired.

use crate::close::CloseError;

pub(crate) const UNMASKED: CloseError = CloseError::protocol("client frames must be masked");
pub(crate) const MASKED: CloseError = CloseError::protocol("server frames must not be masked");
pub(crate) const RSV: CloseError = CloseError::protocol("reserved bits set");
pub(crate) const RSV1: CloseError =
    CloseError::protocol("RSV1 set without a compressed message start");
pub(crate) const OPCODE: CloseError = CloseError::protocol("reserved opcode");
pub(crate) const FRAGMENTED_CONTROL: CloseError = CloseError::protocol("fragmented control frame");
pub(crate) const LONG_CONTROL: CloseError =
    CloseError::protocol("control frame longer than 125 bytes");
pub(crate) const NO_MESSAGE: CloseError =
    CloseError::protocol("continuation frame without a message");
pub(crate) const OPEN_MESSAGE: CloseError =
    CloseError::protocol("new message inside a fragmented message");
pub(crate) const LENGTH: CloseError = CloseError::protocol("64-bit length with the top bit set");
pub(crate) const TOO_BIG: CloseError =
    CloseError::too_big("message longer than the maximum payload");
pub(crate) const NOT_UTF8: CloseError = CloseError::invalid_data("text message is not valid UTF-8");
pub(crate) const CLOSE_LEN: CloseError = CloseError::protocol("close frame with a 1-byte payload");
pub(crate) const CLOSE_CODE: CloseError = CloseError::protocol("invalid close code");
pub(crate) const CLOSE_REASON: CloseError =
    CloseError::invalid_data("close reason is not valid UTF-8");
