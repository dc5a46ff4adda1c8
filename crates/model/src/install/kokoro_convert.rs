//! Turns Kokoro's verified release files into the engine's own files:
//! `kokoro.safetensors` (every weight dequantised to f32 under the module
//! path the candle model loads it from), `voices.safetensors` (one
//! `[510, 256]` style table per stock voice) and `vocab.json`.

use std::collections::HashMap;
use std::path::Path;

use safetensors::tensor::{Dtype, TensorView};

use super::sources::RawRelease;
use super::{vocab, InstallProgress};
use crate::kokoro::release::{STYLE_DIM, VOICE_PACK_BYTES, VOICE_ROWS};
use crate::kokoro::{VOCAB_FILE, VOICES_FILE, WEIGHTS_FILE};
use revoice_core::error::{Error, Result};

/// Writes every engine file into `dir`; returns their names.
pub fn write_engine_files(raw: &RawRelease, dir: &Path, progress: &dyn InstallProgress) -> Result<Vec<String>> {
    progress.begin("converting weights", None);
    let weights = dir.join(WEIGHTS_FILE);
    super::kokoro_weights::convert_onnx(&raw.onnx, &weights)?;
    crate::install::verify_sha256(&weights, &raw.release.converted_weights_sha256)
        .map_err(|e| e.context("checking the converted weights against the verified conversion"))?;
    progress.end();
    progress.begin("packing voices", None);
    write_voices(raw, &dir.join(VOICES_FILE))?;
    progress.end();
    vocab::write(&dir.join(VOCAB_FILE), &raw.vocab)?;
    Ok(vec![WEIGHTS_FILE.into(), VOICES_FILE.into(), VOCAB_FILE.into()])
}

fn write_voices(raw: &RawRelease, out: &Path) -> Result<()> {
    let mut packs: Vec<(String, Vec<u8>)> = Vec::new();
    for voice in &raw.release.voices {
        let path = raw.voices_dir.join(format!("{}.bin", voice.name));
        let bytes = std::fs::read(&path).map_err(|e| Error::io("read", &path, e))?;
        if bytes.len() as u64 != VOICE_PACK_BYTES {
            return Err(Error::InvalidInput {
                input: path.display().to_string(),
                reason: format!("a voice pack has {VOICE_PACK_BYTES} bytes, this one {}", bytes.len()),
            });
        }
        packs.push((voice.name.clone(), bytes));
    }
    let views: HashMap<String, TensorView> = packs
        .iter()
        .map(|(name, bytes)| {
            let view = TensorView::new(Dtype::F32, vec![VOICE_ROWS, STYLE_DIM], bytes).expect("voice pack shape matches its size");
            (name.clone(), view)
        })
        .collect();
    super::write_safetensors(out, views)
}
