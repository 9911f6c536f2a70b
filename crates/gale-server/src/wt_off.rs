//! WebTransport where the engine has no HTTP/3 (Windows): every session call finds nothing, as it would after the
//! session ended. Requests never become sessions here, so JS never holds a live id.

use crate::{Server, WtStatus};

impl Server {
    pub fn wt_accept(&self, _id: u32) -> Option<u32> {
        None
    }
    pub fn wt_open(&self, _session: u32, _bidi: bool) -> Option<u32> {
        None
    }
    pub fn wt_write(&self, _stream: u32, _data: &[u8], _fin: bool) -> WtStatus {
        WtStatus::Closed
    }
    pub fn wt_reset(&self, _stream: u32, _code: u32, _stop: bool) {}
    pub fn wt_pause(&self, _stream: u32, _paused: bool) {}
    pub fn wt_datagram(&self, _session: u32, _data: &[u8]) -> WtStatus {
        WtStatus::Closed
    }
    pub fn wt_max_datagram(&self, _session: u32) -> usize {
        0
    }
    pub fn wt_close(&self, _session: u32, _code: u32, _reason: &str) {}
}
