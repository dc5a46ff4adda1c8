#!/usr/bin/env python3
"""Reference numbers for the GE2E speaker encoder (Resemblyzer 0.1.4) in PyTorch.

A developer script, run by hand; no test runs it. It imports the upstream package straight out
of its wheel (the same file `revoice models install` verifies) and runs it in torch, f32, CPU.

    fixture OUT.safetensors   writes tests/fixtures/ge2e/synthetic.safetensors: for a 2-second
                              synthetic clip (the formula below; crates/model/src/speaker/tests.rs
                              regenerates it sample for sample), the gain volume
                              normalisation applied, its mel frames (Resemblyzer's
                              `audio.wav_to_mel_spectrogram` of the zero-padded clip), the two
                              partial embeddings and the utterance embedding that
                              `VoiceEncoder.embed_utterance` returns. VAD trimming is not part of
                              the fixture (the engine's VAD is energy based, see
                              crates/model/src/speaker/preprocess.rs), so the clip skips it.
    legacy-fixture OUT.pt     writes tests/fixtures/ge2e/legacy-checkpoint.pt: a tiny checkpoint
                              in torch's legacy (pre-zip) format, laid out like pretrained.pt
                              (model_state with a plain and a transposed tensor, plus an
                              optimizer state), for the Rust reader's unit test.
    embed FILE...             prints, as JSON lines, Resemblyzer's full pipeline on each audio
                              file: `preprocess_wav` (librosa load + resample, volume
                              normalisation, webrtcvad trimming) then `embed_utterance`. Compare
                              with `revoice voices match FILE --json` by hand.

Reproduce
---------
    python -m venv /tmp/ge2e-venv && /tmp/ge2e-venv/bin/pip install torch numpy scipy \\
        librosa webrtcvad-wheels soundfile
    pip download --no-deps Resemblyzer==0.1.4 -d /tmp/resem
    /tmp/ge2e-venv/bin/python scripts/dev/ge2e_reference.py \\
        --wheel /tmp/resem/Resemblyzer-0.1.4-py3-none-any.whl \\
        fixture tests/fixtures/ge2e/synthetic.safetensors

The fixture in the repository was made with torch 2.15.0, numpy 2.4.6, librosa 0.11.0,
scipy 1.17.1 (printed again on every run).
"""

import argparse
import json
import struct
import sys
import tempfile
import zipfile

import numpy as np

SAMPLE_RATE = 16000


def synthetic_clip():
    """2 s of a voiced-speech-like signal: 12 harmonics of a gliding 140 Hz pitch under a 3 Hz
    syllable envelope, at about -38 dBFS (so volume normalisation raises it). Computed in f64,
    stored as f32; the Rust test computes the same formula."""
    n = np.arange(2 * SAMPLE_RATE, dtype=np.float64)
    t = n / SAMPLE_RATE
    # Instantaneous pitch 140 + 30 sin(2π·0.7·t) Hz, integrated into a phase.
    phase = 2 * np.pi * 140 * t + (30 / 0.7) * (1 - np.cos(2 * np.pi * 0.7 * t))
    voice = sum(np.sin(k * phase + 0.3 * k) / k for k in range(1, 13))
    envelope = 0.55 - 0.45 * np.cos(2 * np.pi * 3 * t)
    return (0.02 * envelope * voice).astype(np.float32)


def load_resemblyzer(wheel):
    folder = tempfile.mkdtemp(prefix="resemblyzer-")
    zipfile.ZipFile(wheel).extractall(folder)
    sys.path.insert(0, folder)
    import resemblyzer
    from resemblyzer import audio, hparams

    return resemblyzer, audio, hparams


def save_safetensors(path, tensors):
    header, blobs, offset = {}, [], 0
    for name, array in tensors.items():
        data = np.ascontiguousarray(array, dtype=np.float32).tobytes()
        header[name] = {"dtype": "F32", "shape": list(array.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def versions():
    import librosa
    import scipy
    import torch

    return f"torch {torch.__version__}, numpy {np.__version__}, librosa {librosa.__version__}, scipy {scipy.__version__}"


def fixture(encoder, audio, hparams, out):
    import torch

    raw = synthetic_clip()
    wav = audio.normalize_volume(raw, hparams.audio_norm_target_dBFS, increase_only=True).astype(np.float32)
    embed, partials, wav_slices = encoder.embed_utterance(wav, return_partials=True)
    padded = np.pad(wav, (0, max(0, wav_slices[-1].stop - len(wav))))
    mel = audio.wav_to_mel_spectrogram(padded)
    with torch.no_grad():
        again = encoder(torch.from_numpy(np.stack([mel[s] for s in encoder.compute_partial_slices(len(wav), 1.3, 0.75)[1]])))
    assert np.allclose(again.numpy(), partials, atol=1e-6)
    gain = np.array([np.float64(wav[1000]) / np.float64(raw[1000])], dtype=np.float32)
    save_safetensors(out, {"gain": gain, "mel": mel, "partials": partials, "embedding": embed})
    print(f"{out}: clip {len(wav)} samples, mel {mel.shape}, partials {partials.shape}; {versions()}")
    print("raw dBFS", 20 * np.log10(np.sqrt(np.mean(raw.astype(np.float64) ** 2))))
    print("embedding[:6]", embed[:6])


def legacy_fixture(out):
    import collections

    import torch

    other = torch.arange(10, 16, dtype=torch.float32).reshape(2, 3)
    state = collections.OrderedDict(a=torch.arange(6, dtype=torch.float32).reshape(2, 3), b=other.t())
    checkpoint = {"step": 7, "model_state": state,
                  "optimizer_state": {"state": {0: {"exp_avg": torch.ones(2), "step": torch.tensor(3)}}, "lr": 1e-4}}
    torch.save(checkpoint, out, _use_new_zipfile_serialization=False)
    print(f"{out}: legacy checkpoint; {versions()}")


def embed_files(encoder, audio, files):
    for path in files:
        wav = audio.preprocess_wav(path)
        e = encoder.embed_utterance(wav)
        print(json.dumps({"file": path, "seconds_after_vad": len(wav) / SAMPLE_RATE, "embedding": [float(v) for v in e]}))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--wheel", required=True, help="Resemblyzer-0.1.4-py3-none-any.whl")
    sub = ap.add_subparsers(dest="command", required=True)
    f = sub.add_parser("fixture")
    f.add_argument("out")
    lf = sub.add_parser("legacy-fixture")
    lf.add_argument("out")
    e = sub.add_parser("embed")
    e.add_argument("files", nargs="+")
    args = ap.parse_args()

    import torch

    torch.set_num_threads(1)
    if args.command == "legacy-fixture":
        return legacy_fixture(args.out)
    resemblyzer, audio, hparams = load_resemblyzer(args.wheel)
    encoder = resemblyzer.VoiceEncoder(device="cpu", verbose=False)
    if args.command == "fixture":
        fixture(encoder, audio, hparams, args.out)
    else:
        embed_files(encoder, audio, args.files)


if __name__ == "__main__":
    main()
