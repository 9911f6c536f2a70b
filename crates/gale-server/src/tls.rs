//! TLS for the engine with rustls: certificates and keys from PEM, SNI with several certificates, ALPN,
//! session resumption (tickets and a session cache), TLS 1.2/1.3; and the byte shuttling between a socket and
//! a rustls connection for the read and write paths. Reloading swaps the config: new handshakes use it,
//! established connections keep theirs.

use std::collections::HashMap;
use std::io::{ErrorKind, Read, Write};
use std::sync::Arc;

use rustls::crypto::ring as provider;
use rustls::server::{ClientHello, ResolvesServerCert, ServerConfig, ServerConnection};
use rustls::sign::CertifiedKey;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};

/// A certificate chain and its private key, as PEM bytes.
#[derive(Clone, Debug, Default)]
pub struct CertPem {
    /// One or more PEM certificates: the server's first, then intermediates.
    pub cert: Vec<u8>,
    /// The PEM private key (PKCS#8, PKCS#1 or SEC1).
    pub key: Vec<u8>,
}

/// TLS settings of a server.
#[derive(Clone, Debug, Default)]
pub struct TlsOptions {
    /// The certificate served when SNI names no other (or the client sends none).
    pub default: Option<CertPem>,
    /// Certificates by host name (`a.example.com`, or `*.example.com` for one level of subdomains).
    pub sni: Vec<(String, CertPem)>,
    /// Extra PEM certificates appended to every chain (intermediates the cert files leave out).
    pub ca: Vec<u8>,
    /// ALPN protocols in order of preference (e.g. `http/1.1`). Empty: no ALPN.
    pub alpn: Vec<Vec<u8>>,
    /// Lowest version accepted: 0x0303 (TLS 1.2, the default) or 0x0304 (TLS 1.3 only).
    pub min_version: u16,
}

/// Certificates chosen by the SNI name of the ClientHello.
#[derive(Debug)]
struct Resolver {
    exact: HashMap<String, Arc<CertifiedKey>>,
    /// `*.example.com` stored as `example.com`.
    wildcard: HashMap<String, Arc<CertifiedKey>>,
    default: Option<Arc<CertifiedKey>>,
}

impl ResolvesServerCert for Resolver {
    fn resolve(&self, hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        if let Some(name) = hello.server_name() {
            let name = name.to_ascii_lowercase();
            if let Some(k) = self.exact.get(&name) {
                return Some(k.clone());
            }
            if let Some((_, parent)) = name.split_once('.') {
                if let Some(k) = self.wildcard.get(parent) {
                    return Some(k.clone());
                }
            }
        }
        self.default.clone()
    }
}

fn certified(pem: &CertPem, ca: &[u8], what: &str) -> Result<Arc<CertifiedKey>, String> {
    let mut chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&pem.cert)
        .collect::<Result<_, _>>()
        .map_err(|e| format!("{what}: the certificate is not valid PEM ({e})"))?;
    if chain.is_empty() {
        return Err(format!(
            "{what}: no certificate found in the cert PEM (expected -----BEGIN CERTIFICATE-----)"
        ));
    }
    if !ca.is_empty() {
        for c in CertificateDer::pem_slice_iter(ca) {
            chain.push(c.map_err(|e| format!("{what}: the ca PEM is not valid ({e})"))?);
        }
    }
    let key = PrivateKeyDer::from_pem_slice(&pem.key).map_err(|e| {
        format!(
            "{what}: no usable private key in the key PEM ({e}); give an unencrypted PKCS#8, PKCS#1 or SEC1 key"
        )
    })?;
    let signing = provider::sign::any_supported_type(&key)
        .map_err(|e| format!("{what}: the private key cannot sign ({e})"))?;
    let ck = CertifiedKey::new(chain, signing);
    ck.keys_match()
        .map_err(|e| format!("{what}: the private key does not belong to the certificate ({e})"))?;
    Ok(Arc::new(ck))
}

/// Builds a server config, or says precisely what is wrong with the options.
pub fn server_config(o: &TlsOptions) -> Result<Arc<ServerConfig>, String> {
    let mut resolver = Resolver {
        exact: HashMap::new(),
        wildcard: HashMap::new(),
        default: None,
    };
    if let Some(d) = &o.default {
        resolver.default = Some(certified(d, &o.ca, "tls")?);
    }
    for (name, pem) in &o.sni {
        let ck = certified(pem, &o.ca, &format!("tls.sni[{name:?}]"))?;
        let name = name.to_ascii_lowercase();
        match name.strip_prefix("*.") {
            Some(parent) => resolver.wildcard.insert(parent.to_string(), ck),
            None => resolver.exact.insert(name, ck),
        };
    }
    if resolver.default.is_none() && resolver.exact.is_empty() && resolver.wildcard.is_empty() {
        return Err(
            "tls: give a certificate and key (tls: { cert, key }) or SNI certificates".into(),
        );
    }
    let versions: &[&'static rustls::SupportedProtocolVersion] = match o.min_version {
        0 | 0x0303 => &[&rustls::version::TLS13, &rustls::version::TLS12],
        0x0304 => &[&rustls::version::TLS13],
        v => {
            return Err(format!(
                "tls.minVersion: 0x{v:04x} is not TLSv1.2 or TLSv1.3"
            ))
        }
    };
    let mut cfg = ServerConfig::builder_with_provider(Arc::new(provider::default_provider()))
        .with_protocol_versions(versions)
        .map_err(|e| format!("tls: {e}"))?
        .with_no_client_auth()
        .with_cert_resolver(Arc::new(resolver));
    cfg.alpn_protocols = o.alpn.clone();
    cfg.session_storage = rustls::server::ServerSessionMemoryCache::new(4096);
    cfg.ticketer = provider::Ticketer::new().map_err(|e| format!("tls: session tickets: {e}"))?;
    Ok(Arc::new(cfg))
}

/// A fresh connection for `cfg`, with rustls's plaintext buffering capped (the engine keeps the rest).
pub(crate) fn connection(cfg: &Arc<ServerConfig>) -> Option<Box<ServerConnection>> {
    let mut c = ServerConnection::new(cfg.clone()).ok()?;
    c.set_buffer_limit(Some(64 * 1024));
    Some(Box::new(c))
}

/// What one round of reading a TLS socket produced.
pub(crate) enum TlsRead {
    /// Ciphertext was read (there may be more): plaintext, if any, was appended.
    More,
    /// The socket is drained; `true` if plaintext was appended this round.
    Drained(bool),
    /// The peer closed (close_notify or EOF); plaintext before it was appended.
    Eof,
    /// A TLS error (its alert is queued for sending) or a socket error.
    Failed,
}

/// Moves any plaintext rustls holds into `buf`. Err(()) on the peer's close_notify.
fn drain_plaintext(tls: &mut ServerConnection, buf: &mut Vec<u8>) -> Result<bool, ()> {
    let mut got = false;
    let mut chunk = [0u8; 16 * 1024];
    loop {
        match tls.reader().read(&mut chunk) {
            Ok(0) => return Err(()),
            Ok(n) => {
                buf.extend_from_slice(&chunk[..n]);
                got = true;
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => return Ok(got),
            Err(_) => return Err(()),
        }
    }
}

/// One round: plaintext already decrypted, then one read of ciphertext from the socket.
pub(crate) fn read(
    sock: &mut impl std::io::Read,
    tls: &mut ServerConnection,
    buf: &mut Vec<u8>,
) -> TlsRead {
    let got = match drain_plaintext(tls, buf) {
        Ok(g) => g,
        Err(()) => return TlsRead::Eof,
    };
    loop {
        match tls.read_tls(sock) {
            Ok(0) => {
                return if got {
                    TlsRead::Drained(true)
                } else {
                    TlsRead::Eof
                }
            }
            Ok(_) => {
                if tls.process_new_packets().is_err() {
                    // The alert describing the error is queued; the caller flushes and closes.
                    return TlsRead::Failed;
                }
                return match drain_plaintext(tls, buf) {
                    Ok(_) => TlsRead::More,
                    Err(()) => TlsRead::Eof,
                };
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => return TlsRead::Drained(got),
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(_) => return TlsRead::Failed,
        }
    }
}

/// What flushing through TLS did.
pub(crate) enum TlsFlush {
    /// All plaintext given and all ciphertext written.
    Done,
    /// The socket is full: wait for the writable edge.
    Blocked,
    Failed,
}

/// Hands `plain[*pos..]` to rustls (as much as it takes) and writes ciphertext until done or the
/// socket is full; `progressed` is set when the socket took bytes.
pub(crate) fn flush(
    sock: &mut impl Write,
    tls: &mut ServerConnection,
    plain: &[u8],
    pos: &mut usize,
    progressed: &mut bool,
) -> TlsFlush {
    loop {
        let mut moved = 0;
        if *pos < plain.len() {
            match tls.writer().write(&plain[*pos..]) {
                Ok(n) => moved = n,
                Err(_) => return TlsFlush::Failed,
            }
            *pos += moved;
        }
        let mut wrote = false;
        while tls.wants_write() {
            match tls.write_tls(sock) {
                Ok(0) => return TlsFlush::Failed,
                Ok(_) => {
                    *progressed = true;
                    wrote = true;
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => return TlsFlush::Blocked,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(_) => return TlsFlush::Failed,
            }
        }
        if *pos >= plain.len() {
            return TlsFlush::Done;
        }
        if moved == 0 && !wrote {
            // rustls takes nothing and had nothing to send: the handshake is not done, and the readable
            // edge that completes it flushes again. (Took nothing because its buffer was full from an
            // earlier EAGAIN, then wrote it all: the socket has room, so go on. Waiting here for a writable
            // edge that cannot come stalled large responses on real links.)
            return TlsFlush::Blocked;
        }
    }
}

/// Sends ciphertext rustls still holds (alerts, close_notify), without waiting.
pub(crate) fn push_out(sock: &mut impl Write, tls: &mut ServerConnection) {
    while tls.wants_write() {
        match tls.write_tls(sock) {
            Ok(n) if n > 0 => {}
            _ => return,
        }
    }
}

/// Sends a file or cached body through TLS: pieces are read (a file at its offset) and handed to
/// rustls as it takes them, records written until the socket is full. Ok(true) when all was sent.
pub(crate) fn send_body(
    sock: &mut impl Write,
    tls: &mut ServerConnection,
    body: &mut crate::reply::FileBody,
    progressed: &mut bool,
) -> std::io::Result<bool> {
    use crate::sys::ReadAt;
    let mut piece = [0u8; 16 * 1024];
    loop {
        while tls.wants_write() {
            match tls.write_tls(sock) {
                Ok(0) => return Err(ErrorKind::WriteZero.into()),
                Ok(_) => *progressed = true,
                Err(e) if e.kind() == ErrorKind::WouldBlock => return Ok(false),
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        if body.remaining == 0 {
            return Ok(true);
        }
        let want = body.remaining.min(piece.len() as u64) as usize;
        let data: &[u8] = match &body.source {
            crate::reply::BodySource::Memory(bytes) => {
                let start = body.offset as usize;
                &bytes[start..start + want]
            }
            crate::reply::BodySource::File(f) => {
                let n = f.read_at(&mut piece[..want], body.offset)?;
                if n == 0 {
                    return Err(ErrorKind::UnexpectedEof.into());
                }
                &piece[..n]
            }
        };
        let took = tls.writer().write(data)?;
        body.offset += took as u64;
        body.remaining -= took as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A directory removed when dropped: on every way out of `self_signed`, a failed openssl run or a panic too.
    struct TempDir(std::path::PathBuf);

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// A self-signed certificate made with openssl at test time, if openssl is installed. The files are read into
    /// memory and their directory removed before returning.
    fn self_signed(cn: &str) -> Option<CertPem> {
        let dir = TempDir(
            std::env::temp_dir().join(format!("gale-tls-unit-{}-{cn}", std::process::id())),
        );
        std::fs::create_dir_all(&dir.0).ok()?;
        let (cert, key) = (dir.0.join("c.pem"), dir.0.join("k.pem"));
        let ok = std::process::Command::new("openssl")
            .args([
                "req",
                "-x509",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
                "-nodes",
            ])
            .args([
                "-days",
                "1",
                "-subj",
                &format!("/CN={cn}"),
                "-addext",
                &format!("subjectAltName=DNS:{cn}"),
                // An end-entity certificate: rustls's client refuses a CA certificate as a server's.
                "-addext",
                "basicConstraints=critical,CA:FALSE",
            ])
            .arg("-keyout")
            .arg(&key)
            .arg("-out")
            .arg(&cert)
            .stderr(std::process::Stdio::null())
            .status()
            .ok()?
            .success();
        ok.then(|| CertPem {
            cert: std::fs::read(&cert).unwrap(),
            key: std::fs::read(&key).unwrap(),
        })
    }

    #[test]
    fn configs_and_their_errors() {
        let a = self_signed("a.test").expect(
            "openssl makes the test certificates: install it with `apt-get install -y openssl`",
        );
        let b = self_signed("b.test").unwrap();
        let ok = TlsOptions {
            default: Some(a.clone()),
            sni: vec![("b.test".into(), b.clone()), ("*.c.test".into(), b.clone())],
            alpn: vec![b"http/1.1".to_vec()],
            ..TlsOptions::default()
        };
        assert!(server_config(&ok).is_ok());
        let err = |o: TlsOptions| server_config(&o).unwrap_err();
        assert!(err(TlsOptions::default()).contains("give a certificate"));
        let mismatch = CertPem {
            cert: a.cert.clone(),
            key: b.key.clone(),
        };
        assert!(err(TlsOptions {
            default: Some(mismatch),
            ..TlsOptions::default()
        })
        .contains("does not belong"));
        let garbage = CertPem {
            cert: b"not pem".to_vec(),
            key: a.key.clone(),
        };
        assert!(err(TlsOptions {
            default: Some(garbage),
            ..TlsOptions::default()
        })
        .contains("no certificate"));
        let no_key = CertPem {
            cert: a.cert.clone(),
            key: b"-----BEGIN NOTHING-----".to_vec(),
        };
        assert!(err(TlsOptions {
            default: Some(no_key),
            ..TlsOptions::default()
        })
        .contains("private key"));
        assert!(err(TlsOptions {
            default: Some(a),
            min_version: 0x0301,
            ..TlsOptions::default()
        })
        .contains("minVersion"));
    }

    /// A socket that takes `room` bytes, then says WouldBlock until given more room.
    struct Socket {
        room: usize,
        got: Vec<u8>,
    }

    impl Write for Socket {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.room == 0 {
                return Err(ErrorKind::WouldBlock.into());
            }
            let n = buf.len().min(self.room);
            self.room -= n;
            self.got.extend_from_slice(&buf[..n]);
            Ok(n)
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// A server connection past its handshake with a rustls client, and the client.
    fn connected() -> (ServerConnection, rustls::ClientConnection) {
        let a = self_signed("flush.test").expect(
            "openssl makes the test certificates: install it with `apt-get install -y openssl`",
        );
        let server = server_config(&TlsOptions {
            default: Some(a.clone()),
            ..TlsOptions::default()
        })
        .unwrap();
        let mut roots = rustls::RootCertStore::empty();
        for c in CertificateDer::pem_slice_iter(&a.cert) {
            roots.add(c.unwrap()).unwrap();
        }
        let client = rustls::ClientConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
        let mut c =
            rustls::ClientConnection::new(Arc::new(client), "flush.test".try_into().unwrap())
                .unwrap();
        let mut s = ServerConnection::new(server).unwrap();
        for _ in 0..10 {
            let mut buf = Vec::new();
            c.write_tls(&mut buf).unwrap();
            s.read_tls(&mut &buf[..]).unwrap();
            s.process_new_packets().unwrap();
            let mut buf = Vec::new();
            s.write_tls(&mut buf).unwrap();
            c.read_tls(&mut &buf[..]).unwrap();
            c.process_new_packets().unwrap();
            if !c.is_handshaking() && !s.is_handshaking() {
                break;
            }
        }
        assert!(!s.is_handshaking(), "the test handshake did not finish");
        (s, c)
    }

    #[test]
    fn a_flush_after_the_socket_blocked_goes_on_once_it_has_room() {
        let (mut s, mut c) = connected();
        let plain: Vec<u8> = (0..300_000u32).map(|i| (i % 253) as u8).collect();
        let mut pos = 0;
        let mut progressed = false;
        // The socket is full: rustls keeps its buffer's worth (64 KiB of plaintext, a little more as records).
        let mut sock = Socket {
            room: 0,
            got: Vec::new(),
        };
        assert!(matches!(
            flush(&mut sock, &mut s, &plain, &mut pos, &mut progressed),
            TlsFlush::Blocked
        ));
        assert!(pos < plain.len() && s.wants_write());
        // The writable edge: room for everything. rustls's full buffer takes no plaintext at first, then
        // drains; the flush must go on to the end rather than wait for another edge.
        sock.room = usize::MAX;
        assert!(matches!(
            flush(&mut sock, &mut s, &plain, &mut pos, &mut progressed),
            TlsFlush::Done
        ));
        assert_eq!(pos, plain.len());
        let mut wire = &sock.got[..];
        let mut got = Vec::new();
        while !wire.is_empty() {
            c.read_tls(&mut wire).unwrap();
            c.process_new_packets().unwrap();
            let mut piece = [0u8; 32 * 1024];
            while let Ok(n) = std::io::Read::read(&mut c.reader(), &mut piece) {
                if n == 0 {
                    break;
                }
                got.extend_from_slice(&piece[..n]);
            }
        }
        assert!(
            got == plain,
            "the client read {} bytes, not the {} sent",
            got.len(),
            plain.len()
        );
    }
}
