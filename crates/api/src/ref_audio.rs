//! Where `ref_audio` may come from, and the safety rules for each source:
//! a `data:` URI (base64), an http(s) URL (size cap, timeout, no
//! redirects; private, link-local and other non-public addresses refused
//! unless allowed, loopback allowed; the connection goes to the addresses
//! that were checked, never to a second lookup's), or a `file://` URL that must resolve
//! (symlinks followed) inside one of the configured media folders. The
//! result is a [`ReferenceInput`] for the reference-encode service, keyed
//! by its content. Fetching blocks: call it off the async workers.

use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::errors::ApiError;
use revoice_engine::cache::reference_input::decode_data_uri;
use revoice_engine::cache::ReferenceInput;

/// The rules `ref_audio` is checked against.
#[derive(Debug, Clone)]
pub struct RefAudioPolicy {
    /// Folders a `file://` reference may point into.
    pub media_folders: Vec<PathBuf>,
    /// Let URLs reach private and link-local addresses too.
    pub allow_private_urls: bool,
    /// Largest reference accepted, in bytes.
    pub max_bytes: usize,
    /// Whole-request limit for a URL fetch.
    pub timeout: Duration,
}

impl Default for RefAudioPolicy {
    fn default() -> Self {
        RefAudioPolicy { media_folders: Vec::new(), allow_private_urls: false, max_bytes: 10 << 20, timeout: Duration::from_secs(15) }
    }
}

fn bad(reason: impl Into<String>) -> ApiError {
    ApiError::bad_request(Some("ref_audio"), reason)
}

/// Checks `value` against `policy` and fetches or decodes it.
pub fn resolve(value: &str, policy: &RefAudioPolicy) -> Result<ReferenceInput, ApiError> {
    let value = value.trim();
    let lower = value.get(..8).unwrap_or(value).to_ascii_lowercase();
    if lower.starts_with("data:") {
        let bytes = decode_data_uri(value).map_err(|e| bad(e.to_string()))?;
        check_size(bytes.len(), policy)?;
        return Ok(ReferenceInput::Bytes { name: "ref_audio data URI".into(), bytes: Arc::from(bytes) });
    }
    if lower.starts_with("http://") || lower.starts_with("https://") {
        return fetch(value, policy);
    }
    if lower.starts_with("file://") {
        return local_file(value, policy);
    }
    Err(bad("must be a data: URI (base64), an http(s) URL or a file:// URL"))
}

fn check_size(bytes: usize, policy: &RefAudioPolicy) -> Result<(), ApiError> {
    if bytes > policy.max_bytes {
        return Err(bad(format!("is {:.1} MiB, over the {:.0} MiB limit", bytes as f64 / 1048576.0, policy.max_bytes as f64 / 1048576.0)));
    }
    if bytes == 0 {
        return Err(bad("is empty (0 bytes)"));
    }
    Ok(())
}

/// Whether a URL may reach `ip`: public addresses and loopback always;
/// private, link-local, shared and unspecified ones only when allowed.
pub fn address_allowed(ip: IpAddr, allow_private: bool) -> bool {
    if ip.is_loopback() || allow_private {
        return true;
    }
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            !(v4.is_private() || v4.is_link_local() || v4.is_unspecified() || v4.is_broadcast() || v4.is_multicast() || (a == 100 && (64..128).contains(&b)))
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return address_allowed(IpAddr::V4(v4), allow_private);
            }
            let first = v6.segments()[0];
            !(v6.is_unspecified() || v6.is_multicast() || (first & 0xfe00) == 0xfc00 || (first & 0xffc0) == 0xfe80)
        }
    }
}

/// The host and port of an http(s) URL.
fn host_and_port(url: &str) -> Result<(String, u16), ApiError> {
    let (scheme, rest) = url.split_once("://").ok_or_else(|| bad("is not a URL"))?;
    let default_port = if scheme.eq_ignore_ascii_case("https") { 443 } else { 80 };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let authority = authority.rsplit('@').next().unwrap_or(authority);
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let (host, after) = v6.split_once(']').ok_or_else(|| bad("has a malformed IPv6 host"))?;
        (host.to_string(), after.strip_prefix(':'))
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h.to_string(), Some(p)),
            None => (authority.to_string(), None),
        }
    };
    if host.is_empty() {
        return Err(bad("has no host"));
    }
    let port = match port {
        Some(p) => p.parse().map_err(|_| bad(format!("has a bad port {p:?}")))?,
        None => default_port,
    };
    Ok((host, port))
}

fn fetch(url: &str, policy: &RefAudioPolicy) -> Result<ReferenceInput, ApiError> {
    let (host, port) = host_and_port(url)?;
    let addresses: Vec<SocketAddr> =
        (host.as_str(), port).to_socket_addrs().map_err(|e| bad(format!("host {host:?} cannot be resolved: {e}")))?.take(16).collect();
    if addresses.is_empty() {
        return Err(bad(format!("host {host:?} has no addresses")));
    }
    if let Some(ip) = addresses.iter().map(|a| a.ip()).find(|ip| !address_allowed(*ip, policy.allow_private_urls)) {
        return Err(bad(format!("{url} resolves to {ip}, a private or link-local address; such URLs are refused")));
    }
    let config = ureq::Agent::config_builder()
        .timeout_global(Some(policy.timeout))
        .max_redirects(0)
        .max_redirects_will_error(false)
        .http_status_as_error(false)
        .proxy(None)
        .build();
    // Connect only to the addresses just checked: a second lookup could answer differently.
    let agent = ureq::Agent::with_parts(config, ureq::unversioned::transport::DefaultConnector::default(), CheckedAddresses(addresses));
    let mut response = agent.get(url).call().map_err(|e| bad(format!("{url} could not be fetched: {e}")))?;
    let status = response.status().as_u16();
    if status != 200 {
        return Err(bad(format!("{url} answered HTTP {status} (redirects are not followed)")));
    }
    let bytes = response.body_mut().with_config().limit(policy.max_bytes as u64 + 1).read_to_vec().map_err(|e| match e {
        ureq::Error::BodyExceedsLimit(_) => bad(format!("{url} serves more than the {} MiB limit", policy.max_bytes >> 20)),
        other => bad(format!("{url} could not be read: {other}")),
    })?;
    check_size(bytes.len(), policy)?;
    Ok(ReferenceInput::Fetched { url: url.to_string(), bytes: Arc::from(bytes) })
}

/// A resolver that answers the addresses the policy already allowed.
#[derive(Debug)]
struct CheckedAddresses(Vec<SocketAddr>);

impl ureq::unversioned::resolver::Resolver for CheckedAddresses {
    fn resolve(
        &self,
        _uri: &ureq::http::Uri,
        _config: &ureq::config::Config,
        _timeout: ureq::unversioned::transport::NextTimeout,
    ) -> Result<ureq::unversioned::resolver::ResolvedSocketAddrs, ureq::Error> {
        let mut out = self.empty();
        for address in &self.0 {
            out.push(*address);
        }
        Ok(out)
    }
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            out.push(u8::from_str_radix(text.get(i + 1..i + 3)?, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn local_file(url: &str, policy: &RefAudioPolicy) -> Result<ReferenceInput, ApiError> {
    let rest = &url["file://".len()..];
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    if !path.starts_with('/') {
        return Err(bad("a file:// URL must name an absolute path on this machine (file:///path)"));
    }
    let path = percent_decode(path).ok_or_else(|| bad("has a malformed %-escape"))?;
    let inside = |p: &Path| policy.media_folders.iter().filter_map(|f| f.canonicalize().ok()).any(|f| p.starts_with(&f));
    let outside = || bad(format!("{path} is outside the media folders this server may read (configure [api] media_folders)"));
    let real = match Path::new(&path).canonicalize() {
        Ok(real) => real,
        Err(e) if inside(Path::new(&path)) => return Err(bad(format!("{path}: {e}"))),
        Err(_) => return Err(outside()),
    };
    if !inside(&real) {
        return Err(outside());
    }
    let size = std::fs::metadata(&real).map_err(|e| bad(format!("{path}: {e}")))?.len();
    check_size(size as usize, policy)?;
    Ok(ReferenceInput::LocalFile(real))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_and_link_local_addresses_are_refused_and_loopback_is_not() {
        for ip in ["10.0.0.1", "192.168.1.2", "172.16.0.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "fe80::1", "fd00::1", "::ffff:10.0.0.1"] {
            assert!(!address_allowed(ip.parse().unwrap(), false), "{ip}");
            assert!(address_allowed(ip.parse().unwrap(), true), "{ip}");
        }
        for ip in ["127.0.0.1", "::1", "93.184.216.34", "2606:4700::1"] {
            assert!(address_allowed(ip.parse().unwrap(), false), "{ip}");
        }
    }

    #[test]
    fn file_urls_outside_the_media_folders_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.wav"), b"RIFF").unwrap();
        let policy = RefAudioPolicy { media_folders: vec![dir.path().to_path_buf()], ..RefAudioPolicy::default() };
        let err = resolve("file:///etc/passwd", &policy).unwrap_err();
        assert_eq!((err.status.as_u16(), err.param.as_deref()), (400, Some("ref_audio")));
        let escape = format!("file://{}/../../etc/passwd", dir.path().display());
        assert!(resolve(&escape, &policy).is_err());
        let inside = format!("file://{}/a.wav", dir.path().display());
        assert!(matches!(resolve(&inside, &policy).unwrap(), ReferenceInput::LocalFile(_)));
        assert!(resolve("ftp://x/a.wav", &policy).is_err());
    }

    #[test]
    fn urls_split_into_host_and_port() {
        assert_eq!(host_and_port("http://127.0.0.1:8080/a.wav").unwrap(), ("127.0.0.1".into(), 8080));
        assert_eq!(host_and_port("https://[::1]/x").unwrap(), ("::1".into(), 443));
        assert_eq!(host_and_port("http://user@host.example/x").unwrap(), ("host.example".into(), 80));
    }
}
