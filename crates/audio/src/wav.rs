//! WAV files through hound: 16-bit PCM out, validated reads in.

use std::path::Path;

use revoice_core::error::{Error, Result};

/// Writes mono f32 samples as a 16-bit PCM WAV (clipped to ±1), atomically.
pub fn write_pcm16(path: &Path, samples: &[f32], sample_rate: u32) -> Result<()> {
    let spec = hound::WavSpec { channels: 1, sample_rate, bits_per_sample: 16, sample_format: hound::SampleFormat::Int };
    let mut bytes = std::io::Cursor::new(Vec::with_capacity(44 + samples.len() * 2));
    {
        let mut w = hound::WavWriter::new(&mut bytes, spec).map_err(|e| Error::InvalidInput { input: path.display().to_string(), reason: e.to_string() })?;
        for &s in samples {
            w.write_sample((s.clamp(-1.0, 1.0) * i16::MAX as f32).round() as i16)
                .map_err(|e| Error::InvalidInput { input: path.display().to_string(), reason: e.to_string() })?;
        }
        w.finalize().map_err(|e| Error::InvalidInput { input: path.display().to_string(), reason: e.to_string() })?;
    }
    revoice_core::fsutil::write_atomically(path, &bytes.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_file_reads_back_with_its_format_and_samples() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("line.wav");
        write_pcm16(&path, &[0.0, 0.5, -1.5, 1.0], 24_000).unwrap();
        let mut r = hound::WavReader::open(&path).unwrap();
        assert_eq!(r.spec().sample_rate, 24_000);
        assert_eq!(r.spec().channels, 1);
        let s: Vec<i16> = r.samples::<i16>().map(|s| s.unwrap()).collect();
        assert_eq!(s, vec![0, 16384, -32767, 32767]);
    }
}
