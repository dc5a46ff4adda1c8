//! Where a voice reference comes from, and what identifies its content.
//! [`ReferenceInput`] names the cases a request can carry (a local file,
//! bytes, a data URI, a remote URL before and after fetching); its
//! [`content_identity`](ReferenceInput::content_identity) is the `input_key`
//! part of a [`ReferenceEncodeKey`](super::ReferenceEncodeKey), and
//! [`still_matches`](ReferenceInput::still_matches) is the re-check a hook's
//! `revalidate` runs before an artifact is cached.
//!
//! Identity is the SHA-256 of the content bytes, whatever carried them: the
//! same clip as a file, as bytes or as a data URI shares one key, and a file
//! that is touched but not changed keeps its key. Local files are hashed in
//! full when keyed and hashed again when revalidated (a reference clip is a
//! few MB at most, so hashing costs far less than an encode, and unlike a
//! size + mtime + inode stamp it cannot miss a same-size rewrite within one
//! mtime tick). A remote URL by itself has no identity: what it serves can
//! change, so it becomes cacheable only as [`ReferenceInput::Fetched`],
//! keyed by the bytes that were actually fetched.

use std::path::PathBuf;
use std::sync::Arc;

use sha2::{Digest, Sha256};

use revoice_core::error::{Error, Result};

/// A voice reference as a request carries it.
#[derive(Debug, Clone)]
pub enum ReferenceInput {
    /// A file on this machine.
    LocalFile(PathBuf),
    /// Bytes handed over directly; `name` is only for messages.
    Bytes { name: String, bytes: Arc<[u8]> },
    /// A `data:` URI (base64 or percent-encoded).
    DataUri(String),
    /// A remote URL not fetched yet: never cacheable.
    RemoteUrl(String),
    /// A remote URL's content, as fetched: keyed by the bytes.
    Fetched { url: String, bytes: Arc<[u8]> },
}

impl ReferenceInput {
    /// A short human name for messages: the path, the URL, or the byte count.
    pub fn describe(&self) -> String {
        match self {
            ReferenceInput::LocalFile(path) => path.display().to_string(),
            ReferenceInput::Bytes { name, bytes } => format!("{name} ({} bytes)", bytes.len()),
            ReferenceInput::DataUri(uri) => format!("data URI ({} characters)", uri.len()),
            ReferenceInput::RemoteUrl(url) => url.clone(),
            ReferenceInput::Fetched { url, bytes } => {
                format!("{url} ({} bytes fetched)", bytes.len())
            }
        }
    }

    /// The content's identity, `sha256:<hex>`, or `None` for a remote URL
    /// that has not been fetched. Fails if a file cannot be read or a data
    /// URI is malformed.
    pub fn content_identity(&self) -> Result<Option<String>> {
        let digest = match self {
            ReferenceInput::LocalFile(path) => {
                let bytes = std::fs::read(path).map_err(|e| Error::io("read", path, e))?;
                sha256_identity(&bytes)
            }
            ReferenceInput::Bytes { bytes, .. } | ReferenceInput::Fetched { bytes, .. } => sha256_identity(bytes),
            ReferenceInput::DataUri(uri) => sha256_identity(&decode_data_uri(uri)?),
            ReferenceInput::RemoteUrl(_) => return Ok(None),
        };
        Ok(Some(digest))
    }

    /// Whether the content still has `identity`. Only a local file can
    /// change under a key (it is hashed again); bytes in memory cannot.
    /// An unreadable file does not match.
    pub fn still_matches(&self, identity: &str) -> bool {
        match self {
            ReferenceInput::LocalFile(_) => {
                matches!(self.content_identity(), Ok(Some(now)) if now == identity)
            }
            ReferenceInput::RemoteUrl(_) => false,
            _ => true,
        }
    }

    /// The content bytes: the file read now, the bytes, or the decoded data
    /// URI. A remote URL that has not been fetched has none and is an error.
    pub fn read_bytes(&self) -> Result<Arc<[u8]>> {
        match self {
            ReferenceInput::LocalFile(path) => std::fs::read(path).map(Arc::from).map_err(|e| Error::io("read", path, e)),
            ReferenceInput::Bytes { bytes, .. } | ReferenceInput::Fetched { bytes, .. } => Ok(Arc::clone(bytes)),
            ReferenceInput::DataUri(uri) => decode_data_uri(uri).map(Arc::from),
            ReferenceInput::RemoteUrl(url) => {
                Err(Error::InvalidInput { input: url.clone(), reason: "a remote reference must be fetched before it can be read".into() })
            }
        }
    }
}

/// `sha256:<hex>` of `bytes`.
pub fn sha256_identity(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(Sha256::digest(bytes)))
}

/// Decodes a `data:[<mediatype>][;base64],<data>` URI to its bytes.
pub fn decode_data_uri(uri: &str) -> Result<Vec<u8>> {
    let bad = |reason: &str| Error::InvalidInput { input: format!("data URI ({} characters)", uri.len()), reason: reason.to_string() };
    let rest = uri.strip_prefix("data:").ok_or_else(|| bad("does not start with \"data:\""))?;
    let (header, payload) = rest.split_once(',').ok_or_else(|| bad("has no ',' between the media type and the data"))?;
    if header.ends_with(";base64") {
        decode_base64(payload).ok_or_else(|| bad("its base64 payload is malformed"))
    } else {
        decode_percent(payload).ok_or_else(|| bad("its percent-encoded payload is malformed"))
    }
}

/// Standard or URL-safe base64, padding optional, ASCII whitespace ignored.
fn decode_base64(text: &str) -> Option<Vec<u8>> {
    fn value(c: u8) -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        } as u32)
    }
    let symbols: Vec<u8> = text.bytes().filter(|c| !c.is_ascii_whitespace()).collect();
    let unpadded = symbols.strip_suffix(b"==").or_else(|| symbols.strip_suffix(b"=")).unwrap_or(&symbols);
    if unpadded.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(unpadded.len() * 3 / 4);
    for chunk in unpadded.chunks(4) {
        let mut bits = 0u32;
        for &c in chunk {
            bits = (bits << 6) | value(c)?;
        }
        bits <<= 6 * (4 - chunk.len() as u32);
        let bytes = bits.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    Some(out)
}

fn decode_percent(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_clip_as_bytes_as_a_data_uri_and_as_a_file_has_one_identity() {
        let clip: Arc<[u8]> = Arc::from(&b"RIFF fake wav"[..]);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ref.wav");
        std::fs::write(&path, &clip).unwrap();

        let from_bytes = ReferenceInput::Bytes { name: "upload".into(), bytes: clip.clone() };
        let from_uri = ReferenceInput::DataUri("data:audio/wav;base64,UklGRiBmYWtlIHdhdg==".into());
        let from_file = ReferenceInput::LocalFile(path);
        let id = from_bytes.content_identity().unwrap().unwrap();
        assert_eq!(from_uri.content_identity().unwrap(), Some(id.clone()));
        assert_eq!(from_file.content_identity().unwrap(), Some(id.clone()));
        assert!(id.starts_with("sha256:"));
    }

    #[test]
    fn a_remote_url_has_no_identity_until_it_is_fetched() {
        let url = ReferenceInput::RemoteUrl("https://example.invalid/ref.wav".into());
        assert_eq!(url.content_identity().unwrap(), None);
        let fetched = ReferenceInput::Fetched { url: "https://example.invalid/ref.wav".into(), bytes: Arc::from(&b"abc"[..]) };
        assert_eq!(fetched.content_identity().unwrap(), Some(sha256_identity(b"abc")));
    }

    #[test]
    fn a_local_file_rewritten_after_keying_no_longer_matches() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ref.wav");
        std::fs::write(&path, b"first take").unwrap();
        let input = ReferenceInput::LocalFile(path.clone());
        let id = input.content_identity().unwrap().unwrap();
        assert!(input.still_matches(&id));
        std::fs::write(&path, b"other take").unwrap();
        assert!(!input.still_matches(&id));
        std::fs::remove_file(&path).unwrap();
        assert!(!input.still_matches(&id), "a vanished file does not match");
    }

    #[test]
    fn an_unreadable_file_names_its_path() {
        let input = ReferenceInput::LocalFile("/nowhere/ref.wav".into());
        let err = input.content_identity().unwrap_err().to_string();
        assert!(err.contains("/nowhere/ref.wav"), "{err}");
    }

    #[test]
    fn data_uris_decode_base64_and_percent_payloads() {
        assert_eq!(decode_data_uri("data:,a%20b").unwrap(), b"a b");
        assert_eq!(decode_data_uri("data:;base64,YWJjZA").unwrap(), b"abcd");
        assert_eq!(decode_data_uri("data:;base64,YWJj").unwrap(), b"abc");
        let err = decode_data_uri("data:;base64,@@@@").unwrap_err().to_string();
        assert!(err.contains("base64"), "{err}");
        assert!(decode_data_uri("http://x").is_err());
    }
}
