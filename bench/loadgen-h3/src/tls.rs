//! The TLS side of both binaries: the certificates to trust from a PEM file, and quinn's client configuration
//! (TLS 1.3 with ring, ALPN h3) trusting only them.

use std::sync::Arc;
use std::time::Duration;

/// The DER certificates of a PEM file (`--ca`).
pub fn pem_certs(path: &str) -> Result<Vec<Vec<u8>>, String> {
    use rustls_pki_types::pem::PemObject;
    let certs = rustls_pki_types::CertificateDer::pem_file_iter(path)
        .map_err(|e| format!("--ca {path}: {e}"))?
        .map(|c| c.map(|c| c.to_vec()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("--ca {path}: {e}"))?;
    if certs.is_empty() {
        return Err(format!("--ca {path}: no PEM certificate in it"));
    }
    Ok(certs)
}

/// A client configuration trusting `roots`; `idle` overrides quinn's idle timeout.
pub fn client_config(
    roots: &[Vec<u8>],
    idle: Option<Duration>,
) -> Result<quinn::ClientConfig, String> {
    let mut store = rustls::RootCertStore::empty();
    for der in roots {
        store
            .add(rustls_pki_types::CertificateDer::from(der.clone()))
            .map_err(|e| format!("--ca: {e}"))?;
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(|e| e.to_string())?
        .with_root_certificates(store)
        .with_no_client_auth();
    tls.alpn_protocols = vec![b"h3".to_vec()];
    let quic = quinn::crypto::rustls::QuicClientConfig::try_from(tls).map_err(|e| e.to_string())?;
    let mut cfg = quinn::ClientConfig::new(Arc::new(quic));
    if let Some(idle) = idle {
        let mut transport = quinn::TransportConfig::default();
        transport.max_idle_timeout(Some(idle.try_into().map_err(|_| "idle timeout too long")?));
        cfg.transport_config(Arc::new(transport));
    }
    Ok(cfg)
}
