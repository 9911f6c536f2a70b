//! The operating-system calls that differ between Unix and Windows, so the rest of the I/O crate is written once:
//! positional file reads, the receive into a buffer's spare capacity, the open-file limit, libuv symbol lookup
//! in the Node process, and `SO_REUSEPORT`.

use std::ffi::{c_void, CStr};
use std::fs::File;
use std::io;
use std::mem::MaybeUninit;

/// Positional reads that leave no state behind: `pread` on Unix; on Windows `seek_read`, which also moves the
/// file's cursor — harmless, since the engine never reads a file through its cursor.
pub(crate) trait ReadAt {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize>;

    // Unix reads with read_exact_at_append's pread loop; Windows still comes through here.
    #[cfg_attr(unix, allow(dead_code))]
    fn read_exact_at(&self, mut buf: &mut [u8], mut offset: u64) -> io::Result<()> {
        while !buf.is_empty() {
            match self.read_at(buf, offset) {
                Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
                Ok(n) => {
                    buf = &mut buf[n..];
                    offset += n as u64;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

impl ReadAt for File {
    #[cfg(unix)]
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        std::os::unix::fs::FileExt::read_at(self, buf, offset)
    }

    #[cfg(windows)]
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        std::os::windows::fs::FileExt::seek_read(self, buf, offset)
    }
}

/// Appends `n` bytes read at `offset` of `file` to `out`, reading into its spare capacity (no zeroing first: a
/// static answer's body, up to 64 KiB, was memset before each read — 1.6 % of the arena's static profile). On an
/// error or an early end of file `out` is left as it was.
pub(crate) fn read_exact_at_append(
    file: &File,
    out: &mut Vec<u8>,
    n: usize,
    offset: u64,
) -> io::Result<()> {
    let at = out.len();
    out.reserve_exact(n);
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        let mut done = 0;
        while done < n {
            let spare = &mut out.spare_capacity_mut()[done..n];
            // SAFETY: pread writes at most spare.len() bytes into memory we own; MaybeUninit<u8> has u8's layout.
            let r = unsafe {
                libc::pread(
                    file.as_raw_fd(),
                    spare.as_mut_ptr() as *mut c_void,
                    spare.len(),
                    (offset + done as u64) as libc::off_t,
                )
            };
            match r {
                0 => return Err(io::ErrorKind::UnexpectedEof.into()),
                r if r > 0 => done += r as usize,
                _ => {
                    let e = io::Error::last_os_error();
                    if e.kind() != io::ErrorKind::Interrupted {
                        return Err(e);
                    }
                }
            }
        }
        // SAFETY: the n bytes after `at` were written by pread above.
        unsafe { out.set_len(at + n) };
        Ok(())
    }
    #[cfg(windows)]
    {
        out.resize(at + n, 0);
        let r = file.read_exact_at(&mut out[at..], offset);
        if r.is_err() {
            out.truncate(at);
        }
        r
    }
}

/// Opens a file or a directory for reading. Windows opens a directory only with FILE_FLAG_BACKUP_SEMANTICS;
/// Unix needs nothing special.
pub(crate) fn open_read(path: &std::path::Path) -> io::Result<File> {
    let mut opts = std::fs::OpenOptions::new();
    opts.read(true);
    #[cfg(windows)]
    {
        use std::os::windows::fs::OpenOptionsExt;
        const FILE_FLAG_BACKUP_SEMANTICS: u32 = 0x0200_0000;
        opts.custom_flags(FILE_FLAG_BACKUP_SEMANTICS);
    }
    opts.open(path)
}

/// Whether a listener sets SO_REUSEADDR: on Unix it only lets a restarted server bind past TIME_WAIT, but on
/// Windows it would let a second socket bind a port that is already listening, so there it stays off.
pub(crate) const REUSE_ADDRESS: bool = cfg!(unix);

/// A write that tells the kernel more follows at once (`MSG_MORE` on Linux, where a sendfile comes next): the bytes
/// wait for it instead of leaving as a segment of their own. Elsewhere a plain write.
pub(crate) fn send_more(sock: &mut mio::net::TcpStream, out: &[u8]) -> io::Result<usize> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: send reads at most out.len() bytes of memory we borrow for the call.
        let n = unsafe {
            libc::send(
                sock.as_raw_fd(),
                out.as_ptr() as *const c_void,
                out.len(),
                libc::MSG_MORE | libc::MSG_NOSIGNAL,
            )
        };
        if n < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(n as usize)
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        use std::io::Write;
        sock.write(out)
    }
}

/// One receive into `spare` (no zeroing first). Ok(0) is the peer's end of stream.
#[cfg(unix)]
pub(crate) fn recv(sock: &mio::net::TcpStream, spare: &mut [MaybeUninit<u8>]) -> io::Result<usize> {
    use std::os::fd::AsRawFd;
    // SAFETY: recv writes at most spare.len() bytes into memory we own; MaybeUninit<u8> has u8's layout.
    let n = unsafe {
        libc::recv(
            sock.as_raw_fd(),
            spare.as_mut_ptr() as *mut libc::c_void,
            spare.len(),
            0,
        )
    };
    if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(n as usize)
    }
}

/// One receive into `spare` (no zeroing first). Ok(0) is the peer's end of stream. Through `try_io`, because
/// mio's Windows readiness is edge-triggered by emulation: a WouldBlock it does not see never re-arms the socket.
#[cfg(windows)]
pub(crate) fn recv(sock: &mio::net::TcpStream, spare: &mut [MaybeUninit<u8>]) -> io::Result<usize> {
    sock.try_io(|| socket2::SockRef::from(sock).recv(spare))
}

/// Bytes waiting in the socket's receive queue (FIONREAD), or None when the system cannot say.
#[cfg(unix)]
pub(crate) fn pending(sock: &mio::net::TcpStream) -> Option<usize> {
    use std::os::fd::AsRawFd;
    let mut n: libc::c_int = 0;
    // SAFETY: FIONREAD writes one int into `n`, which lives for the call.
    let r = unsafe { libc::ioctl(sock.as_raw_fd(), libc::FIONREAD, &mut n) };
    (r == 0 && n >= 0).then_some(n as usize)
}

/// Bytes waiting in the socket's receive queue: not asked on Windows (the caller's default size is used).
#[cfg(windows)]
pub(crate) fn pending(_sock: &mio::net::TcpStream) -> Option<usize> {
    None
}

/// The soft limit on open descriptors, when the system has one (Windows has none for sockets).
#[cfg(unix)]
pub(crate) fn open_file_limit() -> Option<usize> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes into the struct we pass; it has no other effect.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } == 0;
    (ok && lim.rlim_cur != libc::RLIM_INFINITY).then_some(lim.rlim_cur as usize)
}

/// The soft limit on open descriptors, when the system has one (Windows has none for sockets).
#[cfg(windows)]
pub(crate) fn open_file_limit() -> Option<usize> {
    None
}

/// Finds an exported function of the Node process by name: `dlsym` on Unix; on Windows `GetProcAddress` on
/// node.exe's module (Node exports libuv from the executable, which is also what addons built with MSVC link to).
pub(crate) fn node_symbol(name: &CStr) -> *mut c_void {
    #[cfg(unix)]
    {
        // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name only reads the process's symbol tables.
        unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) }
    }
    #[cfg(windows)]
    {
        use windows_sys::Win32::System::LibraryLoader::{GetModuleHandleW, GetProcAddress};
        // SAFETY: a null name asks for the executable's own module handle, which needs no release.
        let exe = unsafe { GetModuleHandleW(std::ptr::null()) };
        if exe.is_null() {
            return std::ptr::null_mut();
        }
        // SAFETY: exe is a loaded module and name is NUL-terminated.
        match unsafe { GetProcAddress(exe, name.as_ptr() as *const u8) } {
            Some(f) => f as *mut c_void,
            None => std::ptr::null_mut(),
        }
    }
}

/// Lets several processes accept on one port (the kernel spreads connections). Windows has no such option.
pub(crate) fn set_reuse_port(socket: &socket2::Socket) -> io::Result<()> {
    #[cfg(unix)]
    {
        socket.set_reuse_port(true)
    }
    #[cfg(windows)]
    {
        let _ = socket;
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "reusePort is not available on Windows (it has no SO_REUSEPORT): run one process per port, or one \
             process with the engine's single listener",
        ))
    }
}
