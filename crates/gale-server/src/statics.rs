//! Static files served by the engine, without entering JS: mounts, path resolution on disk (index files,
//! extension and SPA fallbacks, symlinks kept inside the root), the optional memory cache with
//! precompressed and on-the-fly compressed variants. Protocol decisions come from `gale_http::files`.
//! Over 400 lines: a mount's options, its path resolution (index, extensions, fallback, symlinks kept inside the root
//! with openat2) and its memory cache are one lookup; apart, the cache would need the resolution's internals.

use std::collections::HashMap;
use std::fs::{self, File};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::UNIX_EPOCH;

use gale_http::files::{self, Dotfiles, Encoding, PathError};

/// How a mount behaves; built by the binding from the JS options.
#[derive(Clone, Debug)]
pub struct StaticOptions {
    /// Files tried, in order, for a directory (default `["index.html"]`).
    pub index: Vec<String>,
    /// Extensions tried when the path has no file (`["html"]` serves `/about` from `about.html`).
    pub extensions: Vec<String>,
    /// File (relative to the root) served with 200 for any path that matches nothing.
    pub fallback: Option<String>,
    pub dotfiles: Dotfiles,
    /// `Cache-Control: public, max-age=N`.
    pub max_age: Option<u64>,
    /// Paths matching this get `Cache-Control: public, max-age=31536000, immutable`.
    pub immutable: Option<regex_lite::Regex>,
    /// Keep file bytes in memory.
    pub cache: bool,
    /// Largest file kept in memory.
    pub cache_file_max: u64,
    /// All cached bytes together.
    pub cache_max: u64,
    /// Look for `.br` / `.gz` siblings.
    pub precompressed: bool,
    /// Compress compressible types on the fly (cached when `cache` is on).
    pub compress: bool,
    /// Extra header lines ("Name: value\r\n").
    pub headers: Vec<u8>,
    /// Redirect a directory path without a trailing slash to the slash form.
    pub redirect: bool,
    /// Which validators and ranges the answers carry and honour (serve-static's `etag`, `lastModified`,
    /// `acceptRanges`).
    pub validators: Validators,
}

/// serve-static's `etag`, `lastModified` and `acceptRanges` switches, all on by default. Off, a validator is
/// neither sent nor matched (If-None-Match lists and If-Range tags never match, `*` still does; the date
/// conditionals are ignored), and `ranges: false` sends no Accept-Ranges and answers every Range with the whole file.
#[derive(Clone, Copy, Debug)]
pub struct Validators {
    pub etag: bool,
    pub last_modified: bool,
    pub ranges: bool,
}

impl Validators {
    /// Everything on: `res.sendFile` and a mount with default options.
    pub const ALL: Validators = Validators {
        etag: true,
        last_modified: true,
        ranges: true,
    };
}

impl Default for StaticOptions {
    fn default() -> Self {
        StaticOptions {
            index: vec!["index.html".into()],
            extensions: Vec::new(),
            fallback: None,
            dotfiles: Dotfiles::Ignore,
            max_age: None,
            immutable: None,
            cache: false,
            cache_file_max: 1024 * 1024,
            cache_max: 64 * 1024 * 1024,
            precompressed: true,
            compress: false,
            headers: Vec::new(),
            redirect: true,
            validators: Validators::ALL,
        }
    }
}

/// A file found on disk (or in the cache), ready to answer from.
pub(crate) struct Found {
    pub path: PathBuf,
    /// The file, already open, for an uncached request (taken once when the body is sent).
    pub open: std::cell::Cell<Option<File>>,
    /// The path relative to the root, with '/' separators (for the immutable pattern).
    pub rel: String,
    pub size: u64,
    pub mtime: u64,
    pub etag: String,
    pub last_modified: String,
    /// Cache-Control value from the mount's options, if any.
    pub cache_control: Option<String>,
    pub content_type: Rc<str>,
    /// The identity bytes when cached.
    pub bytes: Option<Rc<[u8]>>,
    /// Encoded variants: cached bytes, or a sibling file path when not cached.
    pub variants: Vec<(Encoding, Variant)>,
}

#[derive(Clone)]
pub(crate) enum Variant {
    Bytes(Rc<[u8]>),
    /// A `.br`/`.gz` file beside the original: its path, its size, and (for an uncached lookup) the descriptor the
    /// lookup opened, taken by the answer that sends it so the file is not opened twice.
    Sibling(PathBuf, u64, Rc<std::cell::Cell<Option<File>>>),
}

/// What resolving a request path gave.
pub(crate) enum Resolved {
    File(Rc<Found>),
    /// A directory asked for without its trailing slash.
    Redirect,
    NotFound,
    Forbidden,
}

struct CacheEntry {
    found: Rc<Found>,
    checked_ms: u64,
}

/// One `app.static(prefix, dir)` mount.
pub(crate) struct Mount {
    pub prefix: String,
    root: PathBuf,
    /// The root directory, open, for `openat2(RESOLVE_BENEATH)` lookups (Linux).
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    root_dir: Option<File>,
    pub opts: StaticOptions,
    cache: HashMap<String, CacheEntry>,
    cached_bytes: u64,
}

/// How often a cached file is checked against the disk.
const RECHECK_MS: u64 = 1000;

fn mtime_secs(m: &fs::Metadata) -> u64 {
    m.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_secs())
}

impl Mount {
    pub fn new(prefix: String, dir: &Path, opts: StaticOptions) -> Result<Mount, String> {
        let root =
            fs::canonicalize(dir).map_err(|e| format!("static root {}: {e}", dir.display()))?;
        if !root.is_dir() {
            return Err(format!("static root {} is not a directory", root.display()));
        }
        let root_dir = File::open(&root).ok();
        Ok(Mount {
            prefix,
            root_dir,
            root,
            opts,
            cache: HashMap::new(),
            cached_bytes: 0,
        })
    }

    /// Resolves the raw path below the prefix to a file (cached or fresh from disk).
    pub fn resolve(&mut self, raw_tail: &[u8], now_ms: u64, br_first: bool) -> Resolved {
        let safe = match files::safe_path(raw_tail, self.opts.dotfiles) {
            Ok(s) => s,
            Err(PathError::Dotfile) if self.opts.dotfiles == Dotfiles::Deny => {
                return Resolved::Forbidden
            }
            Err(_) => return Resolved::NotFound,
        };
        // `dir` and `dir/` resolve differently (redirect vs index), so they are cached apart.
        let key = if safe.trailing_slash {
            format!("{}/", safe.rel)
        } else {
            safe.rel.clone()
        };
        if self.opts.cache {
            if let Some(e) = self.cache.get(&key) {
                if now_ms.saturating_sub(e.checked_ms) < RECHECK_MS {
                    return Resolved::File(e.found.clone());
                }
            }
        }
        // A file that will be cached keeps every variant, whoever asked first.
        let r = self.lookup(&safe.rel, safe.trailing_slash, br_first && !self.opts.cache);
        if let (true, Resolved::File(f)) = (self.opts.cache, &r) {
            if let Some(e) = self.cache.get_mut(&key) {
                if e.found.size == f.size && e.found.mtime == f.mtime && e.found.path == f.path {
                    e.checked_ms = now_ms;
                    return Resolved::File(e.found.clone());
                }
            }
            if let Some(old) = self.cache.remove(&key) {
                self.cached_bytes -= old.found.cached_len();
            }
            if let Some(loaded) = self.load(f) {
                let loaded = Rc::new(loaded);
                let len = loaded.cached_len();
                if self.cached_bytes + len <= self.opts.cache_max {
                    self.cached_bytes += len;
                    self.cache.insert(
                        key,
                        CacheEntry {
                            found: loaded.clone(),
                            checked_ms: now_ms,
                        },
                    );
                }
                return Resolved::File(loaded);
            }
        }
        r
    }

    /// Finds the file on disk: the path, its index files, its extensions, then the fallback.
    /// `br_first`: the client takes br over gzip, so a `.gz` sibling is not looked for when a `.br` one exists.
    fn lookup(&self, rel: &str, trailing_slash: bool, br_first: bool) -> Resolved {
        if let Some(file) = self.open_beneath(rel) {
            match file.metadata() {
                Ok(m) if m.is_dir() => {
                    let redirect = !trailing_slash
                        && self.opts.redirect
                        && (!rel.is_empty() || !self.prefix_is_root());
                    if redirect {
                        return Resolved::Redirect;
                    }
                    for name in &self.opts.index {
                        if let Some(f) = self.found(&join_rel(rel, name), br_first) {
                            return Resolved::File(Rc::new(f));
                        }
                    }
                }
                Ok(m) if m.is_file() && !trailing_slash => {
                    return Resolved::File(Rc::new(self.make_found(file, &m, rel, br_first)));
                }
                _ => {}
            }
        } else if !trailing_slash {
            for ext in &self.opts.extensions {
                let with = format!("{rel}.{ext}");
                if let Some(f) = self.found(&with, br_first) {
                    return Resolved::File(Rc::new(f));
                }
            }
        }
        if let Some(fb) = &self.opts.fallback {
            if let Some(f) = self.found(fb, br_first) {
                return Resolved::File(Rc::new(f));
            }
        }
        Resolved::NotFound
    }

    /// Opens `rel` below the root without ever leaving it; symlinks that stay inside are followed.
    /// One `openat2(RESOLVE_BENEATH)` on Linux; elsewhere (or for an absolute symlink, which
    /// RESOLVE_BENEATH refuses even when it points inside) a canonicalized path checked against the root.
    fn open_beneath(&self, rel: &str) -> Option<File> {
        #[cfg(target_os = "linux")]
        if let Some(dir) = &self.root_dir {
            match openat2_beneath(dir, rel) {
                Ok(f) => return Some(f),
                Err(e)
                    if matches!(
                        e.raw_os_error(),
                        Some(libc::ENOSYS | libc::EXDEV | libc::EPERM)
                    ) => {}
                Err(_) => return None,
            }
        }
        let real = fs::canonicalize(self.root.join(rel)).ok()?;
        if !real.starts_with(&self.root) {
            return None;
        }
        crate::sys::open_read(&real).ok()
    }

    /// A regular file at `rel`, open, with its validators.
    fn found(&self, rel: &str, br_first: bool) -> Option<Found> {
        let file = self.open_beneath(rel)?;
        let m = file.metadata().ok()?;
        m.is_file()
            .then(|| self.make_found(file, &m, rel, br_first))
    }

    fn prefix_is_root(&self) -> bool {
        self.prefix == "/" || self.prefix.is_empty()
    }

    /// The `Found` for an open regular file: validators, type, and `.br`/`.gz` siblings (looked up
    /// even when this client accepts neither, so the answer carries `Vary` for caches, as nginx does; the `.gz`
    /// one not when a `.br` one exists and the client takes br first: `br_first`).
    fn make_found(&self, file: File, m: &fs::Metadata, rel: &str, br_first: bool) -> Found {
        let size = m.len();
        let mtime = mtime_secs(m);
        let mut variants = Vec::new();
        if self.opts.precompressed {
            for enc in [Encoding::Brotli, Encoding::Gzip] {
                if br_first && !variants.is_empty() {
                    break;
                }
                let sibling = format!("{rel}{}", enc.suffix());
                if let Some(sf) = self.open_beneath(&sibling) {
                    if let Ok(sm) = sf.metadata() {
                        if sm.is_file() {
                            let open = Rc::new(std::cell::Cell::new(Some(sf)));
                            variants.push((
                                enc,
                                Variant::Sibling(self.root.join(&sibling), sm.len(), open),
                            ));
                        }
                    }
                }
            }
        }
        Found {
            content_type: content_type(rel),
            etag: files::weak_etag(size, mtime),
            last_modified: files::http_date(mtime),
            cache_control: self.cache_control(rel),
            path: self.root.join(rel),
            open: std::cell::Cell::new(Some(file)),
            rel: rel.to_string(),
            size,
            mtime,
            bytes: None,
            variants,
        }
    }

    /// Reads a found file (and its variants) into memory for the cache; None if too large.
    fn load(&self, f: &Found) -> Option<Found> {
        if f.size > self.opts.cache_file_max {
            return None;
        }
        let mut raw = Vec::with_capacity(f.size as usize);
        match f.open.take() {
            Some(mut file) => file.read_to_end(&mut raw).ok()?,
            None => File::open(&f.path).ok()?.read_to_end(&mut raw).ok()?,
        };
        let bytes: Rc<[u8]> = raw.into();
        if bytes.len() as u64 != f.size {
            return None;
        }
        let mut variants = Vec::new();
        for (enc, v) in &f.variants {
            if let Variant::Sibling(p, _, _) = v {
                if let Ok(b) = fs::read(p) {
                    variants.push((*enc, Variant::Bytes(b.into())));
                }
            }
        }
        if self.opts.compress
            && variants.is_empty()
            && bytes.len() >= 1024
            && files::is_compressible(&f.content_type)
        {
            variants.extend(compress_all(&bytes));
        }
        Some(Found {
            path: f.path.clone(),
            rel: f.rel.clone(),
            size: f.size,
            mtime: f.mtime,
            open: std::cell::Cell::new(None),
            etag: f.etag.clone(),
            last_modified: f.last_modified.clone(),
            cache_control: f.cache_control.clone(),
            content_type: f.content_type.clone(),
            bytes: Some(bytes),
            variants,
        })
    }

    /// The Cache-Control value for a file, if any.
    pub fn cache_control(&self, rel: &str) -> Option<String> {
        if self
            .opts
            .immutable
            .as_ref()
            .is_some_and(|r| r.is_match(rel))
        {
            return Some("public, max-age=31536000, immutable".into());
        }
        self.opts.max_age.map(|s| format!("public, max-age={s}"))
    }
}

fn join_rel(rel: &str, name: &str) -> String {
    if rel.is_empty() {
        name.to_string()
    } else {
        format!("{rel}/{name}")
    }
}

/// gzip and brotli variants of `bytes`, smaller than the original only.
pub(crate) fn compress_all(bytes: &[u8]) -> Vec<(Encoding, Variant)> {
    let mut out = Vec::new();
    let mut br = Vec::new();
    {
        let mut w = brotli::CompressorWriter::new(&mut br, 4096, 5, 22);
        if w.write_all(bytes).is_ok() && w.flush().is_ok() {
            drop(w);
            if br.len() < bytes.len() {
                out.push((Encoding::Brotli, Variant::Bytes(br.into())));
            }
        }
    }
    let mut gz = Vec::new();
    if crate::compress::Gzip::new(6).compress(bytes, &mut gz) && gz.len() < bytes.len() {
        out.push((Encoding::Gzip, Variant::Bytes(gz.into())));
    }
    out
}

impl Found {
    fn cached_len(&self) -> u64 {
        let v: u64 = self
            .variants
            .iter()
            .map(|(_, v)| match v {
                Variant::Bytes(b) => b.len() as u64,
                Variant::Sibling(..) => 0,
            })
            .sum();
        self.bytes.as_ref().map_or(0, |b| b.len() as u64) + v
    }

    /// The file for a fresh request from a path (`res.sendFile`), no root.
    pub fn from_path(path: &Path, precompressed: bool) -> Option<Found> {
        let real = fs::canonicalize(path).ok()?;
        let m = fs::metadata(&real).ok()?;
        if !m.is_file() {
            return None;
        }
        let rel = real.file_name()?.to_string_lossy().into_owned();
        let mut variants = Vec::new();
        if precompressed {
            for enc in [Encoding::Brotli, Encoding::Gzip] {
                let mut p = real.clone().into_os_string();
                p.push(enc.suffix());
                let p = PathBuf::from(p);
                if let Ok(sm) = fs::metadata(&p) {
                    if sm.is_file() {
                        let none = Rc::new(std::cell::Cell::new(None));
                        variants.push((enc, Variant::Sibling(p, sm.len(), none)));
                    }
                }
            }
        }
        Some(Found {
            content_type: content_type(&rel),
            etag: files::weak_etag(m.len(), mtime_secs(&m)),
            last_modified: files::http_date(mtime_secs(&m)),
            cache_control: None,
            open: std::cell::Cell::new(None),
            size: m.len(),
            mtime: mtime_secs(&m),
            path: real,
            rel,
            bytes: None,
            variants,
        })
    }
}

const TYPES_KEPT: usize = 64;
thread_local! {
    /// Extension → Content-Type, for `content_type`.
    static TYPES: std::cell::RefCell<Vec<(Box<str>, Rc<str>)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The Content-Type for a file name, remembered by extension: mime_guess's lookup (a case-insensitive binary search
/// over its table) and the string it makes were ~2 % of an uncached static answer's CPU (`perf`, the arena's static
/// profile). Only names of files found on disk reach here; at most `TYPES_KEPT` extensions are kept.
fn content_type(rel: &str) -> Rc<str> {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    // The same rule as content_type_for: no dot, or a leading one only, is "no extension".
    let ext = match name.rfind('.') {
        Some(dot) if dot > 0 => &name[dot + 1..],
        _ => "",
    };
    TYPES.with_borrow_mut(|types| {
        if let Some((_, t)) = types.iter().find(|(e, _)| &**e == ext) {
            return t.clone();
        }
        let t: Rc<str> = files::content_type_for(name).into();
        if types.len() >= TYPES_KEPT {
            types.clear();
        }
        types.push((ext.into(), t.clone()));
        t
    })
}

/// Reads `len` bytes at `offset` of a file (for multipart ranges of uncached files).
pub(crate) fn read_at(path: &Path, offset: u64, len: u64) -> Option<Vec<u8>> {
    use std::io::{Seek, SeekFrom};
    let mut f = File::open(path).ok()?;
    f.seek(SeekFrom::Start(offset)).ok()?;
    let mut buf = vec![0; len as usize];
    f.read_exact(&mut buf).ok()?;
    Some(buf)
}

/// `openat2(dir, rel, RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)`: never resolves outside `dir`.
#[cfg(target_os = "linux")]
fn openat2_beneath(dir: &File, rel: &str) -> std::io::Result<File> {
    use std::os::fd::{AsRawFd, FromRawFd};
    let path = std::ffi::CString::new(if rel.is_empty() { "." } else { rel })?;
    // SAFETY: open_how is a plain C struct; all-zero is its documented default.
    let mut how: libc::open_how = unsafe { std::mem::zeroed() };
    how.flags = (libc::O_RDONLY | libc::O_CLOEXEC) as u64;
    how.resolve = libc::RESOLVE_BENEATH | libc::RESOLVE_NO_MAGICLINKS;
    // SAFETY: dir is an open directory fd, path is NUL-terminated, how lives for the call.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_openat2,
            dir.as_raw_fd(),
            path.as_ptr(),
            &how as *const libc::open_how,
            std::mem::size_of::<libc::open_how>(),
        )
    };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: the kernel returned a new fd that we now own.
    Ok(unsafe { File::from_raw_fd(fd as std::os::fd::RawFd) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembered_types_are_content_type_for_s() {
        // Twice over: the second pass answers from the memo, and must agree with the first.
        let names = [
            "a.css",
            "b/A.CSS",
            "app.js",
            "x.mjs",
            "README",
            ".bashrc",
            "trailing.",
            "img/logo.png",
            "d.json",
            "e.svg",
            "f.woff2",
            "g.unknownext",
        ];
        for _ in 0..2 {
            for n in names {
                assert_eq!(&*content_type(n), files::content_type_for(n), "{n}");
            }
        }
    }

    #[test]
    fn the_memo_stays_bounded() {
        for i in 0..200 {
            let n = format!("f.ext{i}");
            assert_eq!(&*content_type(&n), files::content_type_for(&n));
        }
        TYPES.with_borrow(|t| assert!(t.len() <= TYPES_KEPT, "{} kept", t.len()));
    }
}
