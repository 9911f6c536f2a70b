//! The frame decoder (RFC 6455 §5): bytes in, whole messages and control frames out, with
//! every protocol check, fragment reassembly, unmasking and permessage-deflate inflation.

use crate::close::CloseError;
use crate::deflate::{DeflateParams, Inflater};
use crate::frame::{apply_mask, Opcode};
use crate::utf8::Utf8;
use errors::*;

pub(crate) mod errors;
mod header;

/// Which end of the connection the decoder serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Decodes frames from a client: they must be masked.
    Server,
    /// Decodes frames from a server: they must not be masked.
    Client,
}

/// What one [`Decoder::decode`] call produced; the bytes are in [`Decoder::payload`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// A whole text message, valid UTF-8 (inflated when it was compressed).
    Text,
    /// A whole binary message.
    Binary,
    /// A ping; answer with a pong carrying the same payload.
    Ping,
    /// A pong.
    Pong,
    /// A close frame: `code` is 1005 when the frame had none; the payload is the reason
    /// (valid UTF-8). Answer with a close frame, then close the connection.
    Close {
        /// The peer's close code, already checked with [`crate::valid_close_code`].
        code: u16,
    },
}

/// Which buffer [`Decoder::payload`] shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Last {
    Data,
    Control,
}

/// The frame whose payload is being read (16 bytes: every idle WebSocket carries an `Option` of it).
#[derive(Debug, Clone, Copy)]
struct Frame {
    opcode: Opcode,
    fin: bool,
    /// Payload bytes read so far, modulo 4: the masking key's phase.
    phase: u8,
    mask: Option<[u8; 4]>,
    remaining: u64,
}

/// permessage-deflate state, boxed apart: a socket that did not negotiate it keeps only a null pointer.
#[derive(Debug)]
struct Deflate {
    params: DeflateParams,
    /// The compressed bytes of a compressed message, inflated into `data` at its end.
    raw: Vec<u8>,
    /// Boxed: ~150 bytes that a socket without compressed messages never needs.
    inflater: Option<Box<Inflater>>,
}

/// The data message being reassembled.
#[derive(Debug, Clone, Copy)]
struct Message {
    text: bool,
    compressed: bool,
    /// Wire payload bytes announced so far by its frames' headers.
    len: u64,
}

/// A resumable WebSocket frame decoder. Buffers are reused from message to message, so in
/// steady state decoding allocates nothing.
///
/// ```
/// use gale_ws::{write_frame, Decoder, Event, Opcode, Role};
///
/// let mut wire = Vec::new();
/// write_frame(&mut wire, Opcode::Text, b"hello", false, Some([1, 2, 3, 4]));
/// write_frame(&mut wire, Opcode::Ping, b"", false, Some([5, 6, 7, 8]));
///
/// let mut dec = Decoder::new(Role::Server, 1 << 20, None);
/// let mut input = &wire[..];
/// loop {
///     match dec.decode(input) {
///         Ok((n, Some(Event::Text))) => {
///             assert_eq!(dec.payload(), b"hello");
///             input = &input[n..];
///         }
///         Ok((n, Some(event))) => {
///             assert_eq!(event, Event::Ping);
///             input = &input[n..];
///         }
///         // Keep the unconsumed rest (a partial header) for when more bytes arrive.
///         Ok((n, None)) => break assert_eq!(n, input.len()),
///         Err(close) => panic!("send a close frame with {close:?}, then close"),
///     }
/// }
/// ```
// Every open WebSocket holds one of these, so it is kept small (112 bytes on 64-bit targets; a test checks):
// deflate state and a failure are boxed, since most sockets never have them.
pub struct Decoder {
    max_payload: usize,
    deflate: Option<Box<Deflate>>,
    frame: Option<Frame>,
    message: Option<Message>,
    /// The message being reassembled, then the last whole message.
    pub(crate) data: Vec<u8>,
    /// The last control frame's payload (kept apart: control frames interleave fragments).
    control: Vec<u8>,
    failed: Option<Box<CloseError>>,
    utf8: Utf8,
    role: Role,
    last: Last,
}

impl std::fmt::Debug for Decoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Decoder")
            .field("role", &self.role)
            .field("max_payload", &self.max_payload)
            .field("deflate", &self.deflate.as_ref().map(|d| d.params))
            .field("frame", &self.frame)
            .field("message", &self.message)
            .field("failed", &self.failed)
            .finish_non_exhaustive()
    }
}

impl Decoder {
    /// A decoder for frames sent to `role`, failing with 1009 on messages longer than
    /// `max_payload` bytes (after inflating). `deflate` is the negotiated permessage-deflate,
    /// if any; its [`Inflater`] is created on the first compressed message.
    pub fn new(role: Role, max_payload: usize, deflate: Option<DeflateParams>) -> Decoder {
        Decoder {
            max_payload,
            deflate: deflate.map(|params| {
                Box::new(Deflate {
                    params,
                    raw: Vec::new(),
                    inflater: None,
                })
            }),
            frame: None,
            message: None,
            data: Vec::new(),
            control: Vec::new(),
            failed: None,
            utf8: Utf8::default(),
            role,
            last: Last::Data,
        }
    }

    /// The permessage-deflate parameters this decoder was made with, if any.
    pub fn deflate(&self) -> Option<DeflateParams> {
        self.deflate.as_ref().map(|d| d.params)
    }

    /// The compressed-message buffer (tests of `shrink_buffers`).
    #[cfg(test)]
    pub(crate) fn raw_capacity(&self) -> usize {
        self.deflate.as_ref().map_or(0, |d| d.raw.capacity())
    }

    /// Consumes bytes from `input` (part of a frame, one frame or several) and returns how
    /// many were consumed and at most one event. Call again with the rest after an event;
    /// `(n, None)` means everything usable was consumed: the `input.len() - n` bytes left
    /// (a partial frame header, at most 13 bytes) must be passed again, with more after them.
    ///
    /// Payload bytes are consumed (unmasked into the internal buffer) as they arrive; header
    /// bytes only when the whole header is present. On `Err` send a close frame with the
    /// error's code and reason, then close; the decoder keeps returning that error.
    pub fn decode(&mut self, input: &[u8]) -> Result<(usize, Option<Event>), CloseError> {
        if let Some(err) = &self.failed {
            return Err(**err);
        }
        let result = self.run(input);
        if let Err(err) = result {
            self.failed = Some(Box::new(err));
        }
        result
    }

    /// The payload of the last event: the whole message for Text/Binary, the payload of a
    /// Ping/Pong, the reason of a Close.
    pub fn payload(&self) -> &[u8] {
        match self.last {
            Last::Data => &self.data,
            Last::Control => &self.control,
        }
    }

    /// Moves the last event's payload out (to hand it on without a borrow). Give the buffer
    /// back with [`Decoder::restore_payload`] so its allocation is reused.
    pub fn take_payload(&mut self) -> Vec<u8> {
        match self.last {
            Last::Data => std::mem::take(&mut self.data),
            Last::Control => std::mem::take(&mut self.control),
        }
    }

    /// Returns a buffer from [`Decoder::take_payload`] (its contents are discarded). It is
    /// reused only if the slot it came from is still empty; otherwise it is dropped.
    pub fn restore_payload(&mut self, mut buf: Vec<u8>) {
        buf.clear();
        let slot = match self.last {
            Last::Data => &mut self.data,
            Last::Control => &mut self.control,
        };
        if slot.is_empty() && slot.capacity() < buf.capacity() {
            *slot = buf;
        }
    }

    /// Frees buffers larger than `keep` bytes of capacity that are not in use (e.g. after a
    /// rare huge message, or when the socket goes idle). The last event's payload is kept.
    pub fn shrink_buffers(&mut self, keep: usize) {
        let between = self.frame.is_none() && self.message.is_none();
        if between && self.last != Last::Data {
            self.data.clear();
        }
        let raw = self.deflate.as_mut().map(|d| &mut d.raw);
        for buf in std::iter::once(&mut self.data).chain(raw) {
            if buf.is_empty() && buf.capacity() > keep {
                *buf = Vec::new();
            }
        }
    }

    fn run(&mut self, input: &[u8]) -> Result<(usize, Option<Event>), CloseError> {
        let mut pos = 0;
        loop {
            let mut frame = match self.frame {
                Some(f) => f,
                None => match self.header(&input[pos..])? {
                    Some((f, n)) => {
                        pos += n;
                        f
                    }
                    None => return Ok((pos, None)),
                },
            };
            let n = usize::try_from(frame.remaining)
                .unwrap_or(usize::MAX)
                .min(input.len() - pos);
            self.payload_bytes(&frame, &input[pos..pos + n])?;
            pos += n;
            frame.phase = ((frame.phase as usize + n) % 4) as u8;
            frame.remaining -= n as u64;
            if frame.remaining > 0 {
                self.frame = Some(frame);
                return Ok((pos, None));
            }
            self.frame = None;
            if let Some(event) = self.end_frame(&frame)? {
                return Ok((pos, Some(event)));
            }
        }
    }

    /// Unmasks a piece of payload into its buffer; text is validated piece by piece.
    fn payload_bytes(&mut self, frame: &Frame, piece: &[u8]) -> Result<(), CloseError> {
        if piece.is_empty() {
            return Ok(());
        }
        let (buf, check_text) = match (frame.opcode.is_control(), &self.message) {
            (true, _) => (&mut self.control, false),
            (false, Some(m)) if m.compressed => match &mut self.deflate {
                Some(d) => (&mut d.raw, false),
                // The header check refuses RSV1 without deflate, so a compressed message implies it.
                None => unreachable!("compressed message without deflate"),
            },
            (false, m) => (&mut self.data, m.is_some_and(|m| m.text)),
        };
        let start = buf.len();
        buf.extend_from_slice(piece);
        if let Some(key) = frame.mask {
            apply_mask(&mut buf[start..], key, frame.phase as usize);
        }
        if check_text {
            self.utf8.feed(&self.data[start..]).map_err(|()| NOT_UTF8)?;
        }
        Ok(())
    }

    /// A frame's payload is complete: returns its event, if it ends something.
    fn end_frame(&mut self, frame: &Frame) -> Result<Option<Event>, CloseError> {
        let event = match frame.opcode {
            Opcode::Ping => Event::Ping,
            Opcode::Pong => Event::Pong,
            Opcode::Close => self.close_frame()?,
            Opcode::Continuation | Opcode::Text | Opcode::Binary => {
                if !frame.fin {
                    return Ok(None);
                }
                let m = self
                    .message
                    .take()
                    .expect("data frames belong to a message");
                if m.compressed {
                    self.inflate()?;
                    if m.text {
                        std::str::from_utf8(&self.data).map_err(|_| NOT_UTF8)?;
                    }
                } else if m.text && !self.utf8.complete() {
                    return Err(NOT_UTF8);
                }
                self.last = Last::Data;
                return Ok(Some(if m.text { Event::Text } else { Event::Binary }));
            }
        };
        self.last = Last::Control;
        Ok(Some(event))
    }

    fn close_frame(&mut self) -> Result<Event, CloseError> {
        let code = match self.control[..] {
            [] => return Ok(Event::Close { code: 1005 }),
            [_] => return Err(CLOSE_LEN),
            [hi, lo, ..] => u16::from_be_bytes([hi, lo]),
        };
        if !crate::valid_close_code(code) {
            return Err(CLOSE_CODE);
        }
        std::str::from_utf8(&self.control[2..]).map_err(|_| CLOSE_REASON)?;
        self.control.drain(..2);
        Ok(Event::Close { code })
    }

    fn inflate(&mut self) -> Result<(), CloseError> {
        let d = self
            .deflate
            .as_deref_mut()
            .expect("compressed messages need deflate");
        let params = d.params;
        let (bits, reset) = match self.role {
            Role::Server => (
                params.client_max_window_bits,
                params.client_no_context_takeover,
            ),
            Role::Client => (
                params.server_max_window_bits,
                params.server_no_context_takeover,
            ),
        };
        let inflater = d
            .inflater
            .get_or_insert_with(|| Box::new(Inflater::new(bits, reset)));
        self.data.clear();
        let result = inflater.decompress(&d.raw, &mut self.data, self.max_payload);
        // Keep the capacity for the next compressed message; `shrink_buffers` may free it.
        d.raw.clear();
        result
    }
}
