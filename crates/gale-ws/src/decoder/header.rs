//! Frame header parsing and the checks that can be made from the header alone, before any
//! payload byte arrives (reserved bits, opcodes, masking, control-frame rules, lengths).

use super::errors::*;
use super::{Decoder, Frame, Message, Role};
use crate::close::CloseError;
use crate::frame::Opcode;

impl Decoder {
    /// Parses and checks a frame header at the start of `b`; `None` until it is complete.
    /// Checks run in a fixed order as bytes allow, so any split of the input gives the same
    /// error.
    pub(super) fn header(&mut self, b: &[u8]) -> Result<Option<(Frame, usize)>, CloseError> {
        let (&b0, &b1) = match b {
            [b0, b1, ..] => (b0, b1),
            _ => return Ok(None),
        };
        if b0 & 0x30 != 0 {
            return Err(RSV);
        }
        let opcode = Opcode::from_u8(b0 & 0x0f).ok_or(OPCODE)?;
        let (fin, rsv1, masked) = (b0 & 0x80 != 0, b0 & 0x40 != 0, b1 & 0x80 != 0);
        match (self.role, masked) {
            (Role::Server, false) => return Err(UNMASKED),
            (Role::Client, true) => return Err(MASKED),
            _ => {}
        }
        let len7 = b1 & 0x7f;
        if opcode.is_control() {
            if !fin {
                return Err(FRAGMENTED_CONTROL);
            }
            if len7 > 125 {
                return Err(LONG_CONTROL);
            }
            if rsv1 {
                return Err(RSV1);
            }
        } else {
            match (opcode, &self.message) {
                (Opcode::Continuation, None) => return Err(NO_MESSAGE),
                (Opcode::Continuation, Some(_)) if rsv1 => return Err(RSV1),
                (Opcode::Text | Opcode::Binary, Some(_)) => return Err(OPEN_MESSAGE),
                _ if rsv1 && self.deflate.is_none() => return Err(RSV1),
                _ => {}
            }
        }
        let ext = match len7 {
            126 => 2,
            127 => 8,
            _ => 0,
        };
        let header_len = 2 + ext + if masked { 4 } else { 0 };
        if b.len() < 2 + ext {
            return Ok(None);
        }
        let len = match ext {
            0 => u64::from(len7),
            2 => u64::from(u16::from_be_bytes([b[2], b[3]])),
            _ => u64::from_be_bytes(b[2..10].try_into().expect("8 bytes")),
        };
        if len >> 63 != 0 {
            return Err(LENGTH);
        }
        if !opcode.is_control() {
            let before = self.message.map_or(0, |m| m.len);
            let limit = match self.message.map_or(rsv1, |m| m.compressed) {
                true => compressed_limit(self.max_payload),
                false => self.max_payload as u64,
            };
            if before + len > limit {
                return Err(TOO_BIG);
            }
        }
        if b.len() < header_len {
            return Ok(None);
        }
        let mask = masked.then(|| {
            let k = &b[header_len - 4..header_len];
            [k[0], k[1], k[2], k[3]]
        });
        self.start_frame(opcode, rsv1, len);
        let frame = Frame {
            opcode,
            fin,
            phase: 0,
            mask,
            remaining: len,
        };
        Ok(Some((frame, header_len)))
    }

    /// Prepares the buffer a checked frame's payload goes to.
    fn start_frame(&mut self, opcode: Opcode, rsv1: bool, len: u64) {
        match opcode {
            Opcode::Continuation => {
                if let Some(m) = &mut self.message {
                    m.len += len;
                }
            }
            Opcode::Text | Opcode::Binary => {
                self.message = Some(Message {
                    text: opcode == Opcode::Text,
                    compressed: rsv1,
                    len,
                });
                self.data.clear();
                if let Some(d) = &mut self.deflate {
                    d.raw.clear();
                }
                self.utf8.reset();
            }
            Opcode::Close | Opcode::Ping | Opcode::Pong => self.control.clear(),
        }
    }
}

/// The most compressed bytes accepted for a message of at most `max` bytes: DEFLATE can
/// expand incompressible data slightly (5 bytes per stored block of up to 64 KiB, plus
/// flush markers), so a little room is allowed over `max`.
fn compressed_limit(max: usize) -> u64 {
    let max = max as u64;
    max.saturating_add(max / 1024 + 64)
}
