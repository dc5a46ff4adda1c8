#!/usr/bin/env python3
"""Make the Kokoro-82M v1.0 golden fixtures in tests/fixtures/kokoro/.

A developer script, run by hand; no test runs it. It drives the upstream PyTorch model
(hexgrad/kokoro, `KModel.forward_with_tokens`) in f32 with Revoice's converted weights, made
deterministic the way the int8 ONNX export is (SineGen's random initial phase and both noise
terms are zero, docs/kokoro-weights.md section 2.5). For six fixed lines it stores the tokens,
style vector, durations, F0/energy curves and audio, plus (line 0 only) the output of every
block the Rust port has, so each block can be tested alone. It also runs onnxruntime on the int8
file with the same inputs and reports how far that audio is from the f32 torch audio.

Reproduce
---------
1. Install the Kokoro assets into a Revoice data folder, e.g. the one the tests use:
       scripts/test            (or: revoice --data-dir target/test-data models install)
   The script reads <data>/models/kokoro-82m-v1.0/{kokoro,voices}.safetensors, vocab.json and
   <data>/downloads/kokoro-82m-v1.0/kokoro-v1.0.int8.onnx. Nothing is downloaded.
2. In a fresh virtual environment (Python 3.10-3.12):
       pip install torch onnxruntime transformers safetensors numpy kokoro==0.9.4
   (`kokoro` is the upstream package; only kokoro.model / kokoro.istftnet / kokoro.modules are used.)
3. From the repository root:
       python scripts/dev/kokoro_golden.py [DATA_DIR]          # DATA_DIR defaults to target/test-data
   Options: --out (default tests/fixtures/kokoro), --threads, and --kokoro-src DIR to import the
   upstream package from a source checkout (DIR contains kokoro/model.py) instead of the installed
   one; then only loguru is needed besides the packages above (misaki is not imported).

The fixtures were generated with the package versions recorded in cases.json and README.md.
The phoneme strings are fixed in CASES below (they are the model's input, so G2P is out of scope):
they were assembled by hand from misaki 0.9.4's gold lexicons (us_gold.json / gb_gold.json) and
misaki's context rules for "the", "a", "to", "I", because misaki's full English G2P needs spaCy's
en_core_web_sm model, which is not on PyPI.
"""

import argparse
import contextlib
import hashlib
import importlib
import io
import json
import os
import re
import sys
import types
from pathlib import Path

import numpy as np

MODEL_ID = "kokoro-82m-v1.0"
SAMPLE_RATE = 24000

# Kokoro-82M v1.0 hyperparameters (the upstream config.json without its vocab, which is read
# from the installed vocab.json). docs/kokoro-weights.md section 1 shows the weights confirm them.
CONFIG = {
    "istftnet": {
        "upsample_kernel_sizes": [20, 12],
        "upsample_rates": [10, 6],
        "gen_istft_hop_size": 5,
        "gen_istft_n_fft": 20,
        "resblock_dilation_sizes": [[1, 3, 5], [1, 3, 5], [1, 3, 5]],
        "resblock_kernel_sizes": [3, 7, 11],
        "upsample_initial_channel": 512,
    },
    "dim_in": 64,
    "dropout": 0.2,
    "hidden_dim": 512,
    "max_conv_dim": 512,
    "max_dur": 50,
    "multispeaker": True,
    "n_layer": 3,
    "n_mels": 80,
    "n_token": 178,
    "style_dim": 128,
    "text_encoder_kernel_size": 5,
    "plbert": {
        "hidden_size": 768,
        "num_attention_heads": 12,
        "intermediate_size": 2048,
        "max_position_embeddings": 512,
        "num_hidden_layers": 12,
        "dropout": 0.1,
    },
}

# The six lines. Phonemes use Kokoro's alphabet (every symbol is in vocab.json).
CASES = [
    {
        "name": "short",
        "text": "Hello world!",
        "phonemes": "həlˈO wˈɜɹld!",
        "voice": "af_heart",
        "speed": 1.0,
    },
    {
        "name": "long",
        "text": "The quick brown fox jumps over the lazy dog, then runs home to sleep by the fire.",
        "phonemes": "ðə kwˈɪk bɹˈWn fˈɑks ʤˈʌmps ˈOvəɹ ðə lˈAzi dˈɔɡ, ðˈɛn ɹˈʌnz hˈOm tə slˈip bI ðə fˈIəɹ.",
        "voice": "af_heart",
        "speed": 1.0,
    },
    {
        "name": "numbers",
        "text": "I have 3 cats and 25 fish.",
        "phonemes": "ˌI hæv θɹˈi kˈæts ænd twˈɛnti fˈIv fˈɪʃ.",
        "voice": "af_heart",
        "speed": 1.0,
    },
    {
        "name": "question",
        "text": "Are you coming tonight?",
        "phonemes": "ɑɹ ju kˈʌmɪŋ tənˈIt?",
        "voice": "af_heart",
        "speed": 1.0,
    },
    {
        "name": "british",
        "text": "I'd like a cup of tea, please.",
        "phonemes": "ˌId lˈIk ɐ kˈʌp ɒv tˈiː, plˈiːz.",
        "voice": "bm_george",
        "speed": 1.0,
    },
    {
        "name": "fast",
        "text": "This line is a little faster.",
        "phonemes": "ðɪs lˈIn ɪz ɐ lˈɪɾᵊl fˈæstəɹ.",
        "voice": "af_heart",
        "speed": 1.3,
    },
]

ORT_EXTRA_OUTPUTS = ["/encoder/Clip_output_0", "/encoder/Squeeze_output_0", "/encoder/Div_output_0"]

# Log-mel yardstick (see logmel()).
MEL_N_FFT, MEL_HOP, MEL_BANDS, MEL_FLOOR = 1024, 256, 80, 1e-5


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("data_dir", nargs="?", default="target/test-data",
                   help="Revoice data folder holding models/ and downloads/ (default: target/test-data)")
    p.add_argument("--out", default="tests/fixtures/kokoro", help="where the fixtures go")
    p.add_argument("--kokoro-src", default=None,
                   help="import upstream kokoro from this source folder (contains kokoro/model.py) "
                        "instead of the installed kokoro==0.9.4")
    p.add_argument("--threads", type=int, default=2, help="CPU threads for torch and onnxruntime")
    return p.parse_args()


# ---------------------------------------------------------------------------------------------
# Upstream model


def import_upstream(src):
    """Return (KModel class, kokoro version). With a source folder, register an empty `kokoro`
    package so its __init__ (which pulls in the G2P pipeline and misaki) is not executed."""
    if src is None:
        kokoro = importlib.import_module("kokoro")
        from kokoro.model import KModel
        return KModel, getattr(kokoro, "__version__", "unknown")
    pkg_dir = Path(src).resolve() / "kokoro"
    if not (pkg_dir / "model.py").is_file():
        sys.exit(f"--kokoro-src: {pkg_dir}/model.py not found")
    stub = types.ModuleType("kokoro")
    stub.__path__ = [str(pkg_dir)]
    sys.modules["kokoro"] = stub
    from kokoro.model import KModel
    m = re.search(r"__version__\s*=\s*['\"]([^'\"]+)", (pkg_dir / "__init__.py").read_text())
    return KModel, (m.group(1) if m else "unknown") + f" (source at {pkg_dir})"


def build_model(KModel, vocab, weights):
    """Instantiate KModel without any checkpoint download, then load the converted tensors."""
    import torch

    empty = io.BytesIO()
    torch.save({}, empty)  # KModel loads this "checkpoint": it holds no components, so it loads nothing
    empty.seek(0)
    model = KModel(repo_id="hexgrad/Kokoro-82M", config={**CONFIG, "vocab": vocab}, model=empty)
    model.eval()

    params = dict(model.named_parameters())
    filled = set()
    with torch.no_grad():
        for key, arr in weights.items():
            w = torch.from_numpy(arr)
            if key in params:
                assert params[key].shape == w.shape, (key, params[key].shape, w.shape)
                params[key].copy_(w)
                filled.add(key)
                continue
            # A weight-normed layer: the file holds the effective weight W = g * v / ||v||.
            # Put W itself in v and the norm of each dim-0 slice of W in g. Slices that the int8
            # export rounded to all zeros get g = 0 (and v = 1, to keep ||v|| away from zero).
            base = key[: -len(".weight")]
            g = params[base + ".parametrizations.weight.original0"]
            v = params[base + ".parametrizations.weight.original1"]
            norms = w.reshape(w.shape[0], -1).norm(dim=1)
            nonzero = (norms > 0).reshape(-1, *([1] * (w.dim() - 1)))
            v.copy_(torch.where(nonzero, w, torch.ones_like(w)))
            g.copy_(norms.reshape(g.shape))
            effective = model.get_submodule(base).weight
            err = float((effective - w).abs().max())
            assert err <= 1e-6 * max(1.0, float(w.abs().max())), (key, err)
            filled.update({g_name for g_name in (base + ".parametrizations.weight.original0",
                                                 base + ".parametrizations.weight.original1")})

    # Every parameter left untouched must be one Kokoro does not use (docs/kokoro-weights.md 2.4):
    # ALBERT's pooler, and the never-trained InstanceNorm affine of each AdaIN1d (must be 1 and 0).
    adain_norms = {n + ".norm." + p for n, m in model.named_modules()
                   if type(m).__name__ == "AdaIN1d" for p in ("weight", "bias")}
    for name, p in params.items():
        if name in filled or name.startswith("bert.pooler."):
            continue
        assert name in adain_norms, f"parameter {name} was not loaded"
        expected = 1.0 if name.endswith(".weight") else 0.0
        assert bool(torch.all(p == expected)), name
    return model


@contextlib.contextmanager
def silent_source(counter):
    """Make SineGen / SourceModuleHnNSF deterministic as in the ONNX export: torch.rand (the random
    initial phase of each harmonic) and torch.randn_like (the voiced/unvoiced additive noise, and
    the unused noise branch) return zeros while the model runs."""
    import torch

    rand, randn_like = torch.rand, torch.randn_like

    def zero_rand(*size, **kw):
        counter["rand"] += 1
        if len(size) == 1 and isinstance(size[0], (tuple, list, torch.Size)):
            size = tuple(size[0])
        return torch.zeros(*size, dtype=kw.get("dtype"), device=kw.get("device"))

    def zero_randn_like(x, **kw):
        counter["randn_like"] += 1
        return torch.zeros_like(x, dtype=kw.get("dtype"), device=kw.get("device"))

    torch.rand, torch.randn_like = zero_rand, zero_randn_like
    try:
        yield
    finally:
        torch.rand, torch.randn_like = rand, randn_like


class Taps:
    """Forward hooks that copy block inputs/outputs out of a forward_with_tokens call.
    Each value is [batch-dropped] f32 numpy, stored under the fixture name."""

    def __init__(self, model):
        g = model.decoder.generator
        first = lambda t: t[0] if isinstance(t, tuple) else t
        # (module, "in" or "out", fixture name, function from the tapped tensor to the stored array)
        spec = [
            (model.bert, "out", "bert", lambda t: t[0]),                          # [T,768]
            (model.bert_encoder, "out", "d_en", lambda t: t[0].T),                # [512,T]
            (model.predictor.text_encoder, "out", "pred_text", lambda t: t[0]),   # [T,640]
            (model.predictor.lstm, "out", "pred_lstm", lambda t: first(t)[0]),    # [T,512]
            (model.predictor.duration_proj, "out", "duration_logits", lambda t: t[0]),  # [T,50]
            (model.predictor.shared, "in", "en", lambda t: t[0].T),               # [640,F]
            (model.predictor.shared, "out", "shared_out", lambda t: first(t)[0].T),  # [512,F]
            (model.text_encoder, "out", "t_en", lambda t: t[0]),                  # [512,T]
            (model.decoder, "in", "asr", lambda t: t[0]),                         # [512,F]
            (model.decoder.F0_conv, "out", "dec_f0", lambda t: t[0]),             # [1,F]
            (model.decoder.N_conv, "out", "dec_n", lambda t: t[0]),               # [1,F]
            (model.decoder.encode, "out", "dec_encode", lambda t: t[0]),          # [1024,F]
            (g, "in", "dec_x", lambda t: t[0]),                                   # [512,2F]
            (g.m_source, "out", "har_source", lambda t: first(t)[0].T),           # [1,samples]
            (g.noise_convs[0], "in", "har", lambda t: t[0]),                      # [22,frames]
            (g.conv_post, "out", "gen_post", lambda t: t[0]),                     # [22,frames']
        ]
        self.values, self.handles = {}, []
        for module, where, name, pick in spec:
            self.handles.append(self._hook(module, where, name, pick))
        # F0 and energy curves are the decoder's 2nd and 3rd inputs ([2F] each).
        self.handles.append(model.decoder.register_forward_pre_hook(self._curves))

    def _store(self, name, tensor):
        assert name not in self.values, f"{name} tapped twice"
        self.values[name] = tensor.detach().to("cpu").float().contiguous().numpy().copy()

    def _hook(self, module, where, name, pick):
        if where == "in":
            return module.register_forward_pre_hook(lambda m, args: self._store(name, pick(args[0])))
        return module.register_forward_hook(lambda m, args, out: self._store(name, pick(out)))

    def _curves(self, module, args):
        self._store("f0", args[1][0])
        self._store("n", args[2][0])

    def reset(self):
        self.values = {}

    def close(self):
        for h in self.handles:
            h.remove()


def alignment_matrix(durations):
    """The 0/1 [T, F] matrix forward_with_tokens builds: frame j belongs to token i."""
    total = int(durations.sum())
    owner = np.repeat(np.arange(len(durations)), durations)
    a = np.zeros((len(durations), total), np.float32)
    a[owner, np.arange(total)] = 1.0
    return a


# ---------------------------------------------------------------------------------------------
# onnxruntime


def ort_session(onnx_path, threads):
    """The int8 graph, with three intermediate results exposed as extra outputs: the rounded
    per-token durations (/encoder/Clip_output_0: round(sum of sigmoids / speed) clipped at 1), the
    predicted F0 curve (/encoder/Squeeze_output_0, the decoder's F0 input) and the durations before
    rounding (/encoder/Div_output_0)."""
    import onnx
    import onnxruntime as ort

    graph = onnx.load(str(onnx_path))
    for name in ORT_EXTRA_OUTPUTS:
        graph.graph.output.append(onnx.ValueInfoProto(name=name))
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    return ort.InferenceSession(graph.SerializeToString(), opts, providers=["CPUExecutionProvider"])


# ---------------------------------------------------------------------------------------------
# Metrics


def mel_filterbank():
    """80 triangular filters, HTK mel scale m(f) = 2595 * log10(1 + f / 700), centres equally
    spaced in mel from 0 Hz to 12 kHz (Nyquist), unit peak height, no area normalisation,
    evaluated at the 513 FFT bin frequencies k * 24000 / 1024."""
    mel = lambda f: 2595.0 * np.log10(1.0 + f / 700.0)
    hz = lambda m: 700.0 * (10.0 ** (m / 2595.0) - 1.0)
    edges = hz(np.linspace(mel(0.0), mel(SAMPLE_RATE / 2), MEL_BANDS + 2))
    bins = np.arange(MEL_N_FFT // 2 + 1) * SAMPLE_RATE / MEL_N_FFT
    fb = np.zeros((MEL_BANDS, len(bins)))
    for b in range(MEL_BANDS):
        lo, mid, hi = edges[b], edges[b + 1], edges[b + 2]
        rise = (bins - lo) / (mid - lo)
        fall = (hi - bins) / (hi - mid)
        fb[b] = np.clip(np.minimum(rise, fall), 0.0, None)
    assert np.all(fb.sum(axis=1) > 0), "a mel band covers no FFT bin"
    return fb


def logmel(audio):
    """ln(max(M, 1e-5)), M = filterbank @ |STFT|: the signal is reflect-padded by 512 samples at
    each end, framed with n_fft 1024 / hop 256 (1 + len // 256 frames), multiplied by a periodic
    Hann window (0.5 - 0.5 cos(2 pi n / 1024)), and |rfft| is the magnitude (not power)."""
    x = np.pad(audio.astype(np.float64), MEL_N_FFT // 2, mode="reflect")
    frames = 1 + (len(x) - MEL_N_FFT) // MEL_HOP
    idx = np.arange(MEL_N_FFT)[None, :] + MEL_HOP * np.arange(frames)[:, None]
    window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(MEL_N_FFT) / MEL_N_FFT)
    mag = np.abs(np.fft.rfft(x[idx] * window, axis=1))  # [frames, 513]
    return np.log(np.maximum(mag @ mel_filterbank().T, MEL_FLOOR))  # [frames, 80]


def onnx_istft_gain(n_fft=20, hop=5):
    """How much louder the int8 ONNX graph's iSTFT is than torch.istft. torch.istft divides the
    overlap-add by the overlap-added squared window, which for a periodic Hann of 20 at hop 5 is 1.5
    at every sample past the first frame. The exported graph divides by a constant 20-sample
    `window_sum` (one frame's Hann squared), so only its first 20 samples are normalised and the
    rest comes out 1.5 times torch's."""
    w = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n_fft) / n_fft)
    return float(sum(w[k::hop] @ w[k::hop] for k in range(hop)) / hop)


def compare(ref, other):
    """Yardstick between two waveforms, over the common length when the lengths differ."""
    n = min(len(ref), len(other))
    a, b = ref[:n].astype(np.float64), other[:n].astype(np.float64)
    return {
        "logmel_l1": float(np.mean(np.abs(logmel(a) - logmel(b)))),
        "logmel_l1_gain_matched": float(np.mean(np.abs(logmel(onnx_istft_gain() * a) - logmel(b)))),
        "waveform_cosine": float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b))),
        "rms_ratio": float(np.sqrt(np.mean(b * b) / np.mean(a * a))),
    }


# ---------------------------------------------------------------------------------------------


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def main():
    args = parse_args()
    import torch
    import onnxruntime
    import safetensors
    import transformers
    from safetensors.numpy import load_file, save_file

    torch.set_num_threads(args.threads)
    data = Path(args.data_dir)
    model_dir = data / "models" / MODEL_ID
    files = {
        "weights": model_dir / "kokoro.safetensors",
        "voices": model_dir / "voices.safetensors",
        "vocab": model_dir / "vocab.json",
        "onnx": data / "downloads" / MODEL_ID / "kokoro-v1.0.int8.onnx",
    }
    for f in files.values():
        if not f.is_file():
            sys.exit(f"{f} is missing: install Kokoro into {data} first (see this script's docstring)")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    KModel, kokoro_version = import_upstream(args.kokoro_src)
    vocab = json.loads(files["vocab"].read_text(encoding="utf-8"))["vocab"]
    weights = load_file(str(files["weights"]))
    assert len(weights) == 457, len(weights)
    model = build_model(KModel, vocab, weights)
    del weights
    voices = load_file(str(files["voices"]))
    session = ort_session(files["onnx"], args.threads)
    taps = Taps(model)
    calls = {"rand": 0, "randn_like": 0}

    summary = []
    for i, case in enumerate(CASES):
        ps = case["phonemes"]
        unknown = sorted({c for c in ps if c not in vocab})
        assert not unknown, (case["name"], unknown)
        ids = [vocab[c] for c in ps]
        tokens = np.array([0, *ids, 0], np.int64)
        pack = voices[case["voice"]]  # [510, 256]
        style = pack[len(ps) - 1].astype(np.float32)  # [256]: 128 decoder, then 128 prosody
        speed = float(case["speed"])

        taps.reset()
        with torch.no_grad(), silent_source(calls):
            audio, durations = model.forward_with_tokens(
                torch.from_numpy(tokens)[None], torch.from_numpy(style)[None], speed)
        audio = audio.float().numpy().copy()
        durations = durations.long().reshape(-1).numpy().astype(np.int64)
        tapped = taps.values
        assert len(durations) == len(tokens)
        # The durations before rounding, computed as forward_with_tokens does. Tokens whose value
        # lies near k + 0.5 may round the other way in another implementation (see README).
        raw = (torch.sigmoid(torch.from_numpy(tapped["duration_logits"])).sum(-1) / speed).numpy()
        assert np.array_equal(np.maximum(np.round(raw), 1).astype(np.int64), durations)
        margin = np.abs(raw - np.floor(raw) - 0.5)
        margin = float(margin[raw >= 0.5].min()) if np.any(raw >= 0.5) else None

        ort_audio, ort_dur, ort_f0, ort_raw = session.run(None, {
            "tokens": tokens[None], "style": style[None], "speed": np.array([speed], np.float32)})
        ort_audio = ort_audio.reshape(-1).astype(np.float32)
        ort_dur = ort_dur.reshape(-1).astype(np.int64)

        tensors = {
            "tokens": tokens,
            "style": style,
            "durations": durations,
            "durations_raw": raw.astype(np.float32),
            "f0": tapped["f0"],
            "n": tapped["n"],
            "audio": audio,
            "audio_ort": ort_audio,
        }
        frames = int(durations.sum())
        assert tensors["f0"].shape == (2 * frames,) and len(audio) == 600 * frames, (
            tensors["f0"].shape, len(audio), frames)
        if i == 0:
            aln = alignment_matrix(durations)
            # The rebuilt alignment is the one the model used: asr must equal t_en @ alignment.
            assert np.allclose(tapped["t_en"] @ aln, tapped["asr"], atol=1e-6)
            keep = ["bert", "d_en", "pred_text", "pred_lstm", "duration_logits", "en", "shared_out",
                    "t_en", "asr", "dec_f0", "dec_n", "dec_encode", "dec_x", "har_source", "har",
                    "gen_post"]
            tensors.update({k: tapped[k] for k in keep})
            tensors["alignment"] = aln
        tensors = {k: np.ascontiguousarray(v) for k, v in tensors.items()}
        for k, v in tensors.items():
            assert v.dtype in (np.float32, np.int64), (k, v.dtype)
        fname = f"case{i}.safetensors"
        save_file(tensors, str(out / fname))

        metrics = compare(audio, ort_audio)
        mismatch = int(np.sum(durations != ort_dur)) if len(ort_dur) == len(durations) else None
        ort_f0 = ort_f0.reshape(-1)
        f0_rel = (float(np.linalg.norm(tapped["f0"] - ort_f0) / np.linalg.norm(tapped["f0"]))
                  if ort_f0.shape == tapped["f0"].shape else None)
        metrics.update({
            "durations_agree": bool(mismatch == 0),
            "duration_mismatches": mismatch,
            "durations_ort": ort_dur.tolist(),
            "samples_ort": int(len(ort_audio)),
            "f0_rel_l2": f0_rel,
            "durations_raw_max_abs_diff": float(np.abs(raw - ort_raw.reshape(-1)).max()),
        })
        entry = {
            "name": case["name"],
            "text": case["text"],
            "phonemes": ps,
            "voice": case["voice"],
            "speed": speed,
            "file": fname,
            "tokens": int(len(tokens)),
            "frames": frames,
            "samples": int(len(audio)),
            "seconds": round(len(audio) / SAMPLE_RATE, 3),
            "durations": durations.tolist(),
            "durations_raw": [round(float(x), 4) for x in raw],
            "rounding_margin": margin,
            "metrics": metrics,
            "tensors": {k: {"dtype": str(v.dtype), "shape": list(v.shape)} for k, v in tensors.items()},
        }
        summary.append(entry)
        print(f"case{i} {case['name']:9s} T={len(tokens):3d} F={frames:4d} {len(audio) / SAMPLE_RATE:5.2f}s  "
              f"logmel L1 {metrics['logmel_l1']:.4f}  cos {metrics['waveform_cosine']:.4f}  "
              f"durations {'agree' if metrics['durations_agree'] else f'differ at {mismatch} token(s)'}",
              flush=True)
    taps.close()
    assert calls["rand"] >= len(CASES) and calls["randn_like"] >= len(CASES), calls

    versions = {
        "python": sys.version.split()[0],
        "torch": torch.__version__,
        "onnxruntime": onnxruntime.__version__,
        "transformers": transformers.__version__,
        "numpy": np.__version__,
        "safetensors": safetensors.__version__,
        "kokoro": kokoro_version,
        "phonemes": "hand-assembled from misaki 0.9.4 gold lexicons (see script docstring)",
    }
    inputs = {k: {"file": str(v.relative_to(data)), "sha256": sha256(v)} for k, v in files.items()}
    doc = {
        "sample_rate": SAMPLE_RATE,
        "reference": "upstream KModel.forward_with_tokens, f32, CPU, converted int8->f32 weights, "
                     "SineGen initial phase and noise terms zero; tokens [0, *ids, 0]; "
                     "style = voice_pack[len(phonemes) - 1]",
        "metric": {
            "logmel_l1": "mean over frames x 80 bands of |ln(max(M_a,1e-5)) - ln(max(M_b,1e-5))|, "
                         "M = HTK-mel(80 bands, 0-12 kHz, unnormalised triangles) @ |STFT| with n_fft "
                         "1024, hop 256, periodic Hann, reflect padding 512 each side; both signals cut "
                         "to the shorter length",
            "logmel_l1_gain_matched": "the same with the torch audio first multiplied by 1.5, the "
                                      "int8 ONNX graph's iSTFT gain (see onnx_istft_gain in the script)",
            "waveform_cosine": "a.b / (|a||b|) over the common length",
            "rms_ratio": "rms(ORT audio) / rms(torch audio) over the common length",
            "durations_agree": "torch durations equal the int8 ORT graph's /encoder/Clip_output_0",
            "f0_rel_l2": "|f0_torch - f0_ort| / |f0_torch| (L2 norms), only when the durations agree",
            "durations_raw_max_abs_diff": "max over tokens of |raw torch duration - raw ORT duration| "
                                          "(before rounding, in frames)",
        },
        "versions": versions,
        "inputs": inputs,
        "cases": summary,
    }
    (out / "cases.json").write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    write_readme(out, doc)
    total = sum(f.stat().st_size for f in out.iterdir() if f.is_file())
    print(f"wrote {out} ({total / 1e6:.2f} MB)")


def write_readme(out, doc):
    v = doc["versions"]
    rows = []
    for i, c in enumerate(doc["cases"]):
        m = c["metrics"]
        k = m["duration_mismatches"]
        agree = "yes" if m["durations_agree"] else f"no ({k} token{'s' if k != 1 else ''})"
        f0 = "–" if m["f0_rel_l2"] is None else f"{m['f0_rel_l2']:.4f}"
        rows.append(f"| {i} | {c['name']} | {c['voice']} | {c['speed']} | {c['tokens']} | {c['seconds']:.2f} | "
                    f"{m['logmel_l1']:.3f} | {m['logmel_l1_gain_matched']:.3f} | {m['waveform_cosine']:.3f} | {agree} | "
                    f"{m['durations_raw_max_abs_diff']:.3f} | {f0} | {m['rms_ratio']:.2f} |")
    lines = [
        "# Kokoro-82M v1.0 golden fixtures",
        "",
        "Reference outputs for testing the Rust (candle) Kokoro port block by block and end to end.",
        "Made by `scripts/dev/kokoro_golden.py` (its docstring says how to rerun it); do not edit by hand.",
        "",
        "## How they were made",
        "",
        "- Model: upstream hexgrad/kokoro `KModel.forward_with_tokens`, f32 on CPU, loaded with Revoice's",
        "  converted weights (`models/kokoro-82m-v1.0/kokoro.safetensors`, dequantised from the int8 ONNX",
        "  release). Weight-normed layers get v = W and g = ||W|| per output row, so their effective weight is W.",
        "- Deterministic like the ONNX export: SineGen's random initial phase and both noise terms are zero",
        "  (docs/kokoro-weights.md §2.5).",
        "- Inputs: tokens `[0, *ids, 0]` from `vocab.json`; style = voice pack row `len(phonemes) - 1`",
        "  (256 values: first 128 decoder, last 128 prosody); the case's speed.",
        "- `audio_ort`: onnxruntime (CPU) on `downloads/kokoro-82m-v1.0/kokoro-v1.0.int8.onnx` with the same",
        "  tokens, style and speed.",
        "- Phonemes: written by hand in Kokoro's alphabet from misaki 0.9.4's gold lexicons",
        "  (misaki's English G2P needs spaCy's `en_core_web_sm`, which is not on PyPI). They are the model",
        "  input, so the fixtures do not test G2P.",
        f"- Versions: Python {v['python']}, torch {v['torch']}, onnxruntime {v['onnxruntime']}, transformers",
        f"  {v['transformers']}, numpy {v['numpy']}, safetensors {v['safetensors']}, kokoro {v['kokoro']}.",
        "  Input file hashes are in `cases.json`.",
        "",
        "## Files",
        "",
        "- `cases.json`: per case the text, phonemes, voice, speed, file, token/frame/sample counts,",
        "  durations (torch and ORT), tensor shapes, and the metrics below; plus versions and input hashes.",
        "- `case0.safetensors` … `case5.safetensors`: f32 floats, i64 integers, batch dimension dropped.",
        "  T = tokens including the two pads, F = frames = sum(durations), audio = 600·F samples at 24 kHz.",
        "  Every case holds:",
        "  - `tokens` [T] i64, `style` [256], `durations` [T] i64 (after speed and rounding:",
        "    max(1, round(sum(sigmoid(logits)) / speed)), round half to even as torch.round),",
        "  - `durations_raw` [T] the same before rounding (`cases.json` also gives `rounding_margin`, the",
        "    smallest |raw − (k + 0.5)|: a Rust port may round a token that close to .5 the other way),",
        "  - `f0` [2F] and `n` [2F] (predicted F0 and energy curves), `audio` [600F] (torch),",
        "  - `audio_ort` (int8 ONNX via onnxruntime; same length when the durations agree).",
        "  `case0` also holds every block's output:",
        "  - `bert` [T,768] ALBERT last_hidden_state; `d_en` [512,T] bert_encoder output, transposed;",
        "  - `pred_text` [T,640] predictor.text_encoder; `pred_lstm` [T,512] predictor.lstm;",
        "    `duration_logits` [T,50] duration_proj before the sigmoid;",
        "  - `alignment` [T,F] 0/1; `en` [640,F] = pred_text^T @ alignment;",
        "  - `shared_out` [512,F] predictor.shared LSTM output, transposed;",
        "  - `t_en` [512,T] text_encoder; `asr` [512,F] = t_en @ alignment;",
        "  - `dec_f0` [1,F], `dec_n` [1,F] after decoder.F0_conv / N_conv; `dec_encode` [1024,F] after",
        "    decoder.encode; `dec_x` [512,2F] the generator's input;",
        "  - `har_source` [1,600F] SourceModuleHnNSF output (SineGen, l_linear, tanh);",
        "    `har` [22,120F+1] its STFT (n_fft 20, hop 5, periodic Hann, centred with reflect padding):",
        "    11 magnitudes then 11 phases;",
        "  - `gen_post` [22,120F+1] conv_post output, before exp (first 11) and sin (last 11).",
        "",
        "## Torch f32 against int8 ORT",
        "",
        "log-mel L1 = mean over all frames and 80 bands of |ln max(M_torch, 1e-5) − ln max(M_ort, 1e-5)|,",
        "where M = mel filterbank · |STFT(x)|: n_fft 1024, hop 256, periodic Hann window, reflect padding",
        "of 512 samples each side, magnitude (not power); 80 triangular filters of unit height on the HTK mel",
        "scale 2595·log10(1 + f/700), edges equally spaced in mel from 0 to 12 kHz. Cosine = a·b/(|a||b|).",
        "Both are taken over the common length. `f0 rel` = |f0_torch − f0_ort| / |f0_torch| (L2), shown",
        "only where the durations agree.",
        "",
        "| case | name | voice | speed | T | seconds | log-mel L1 | L1 ×1.5 | cosine | durations agree | raw dur diff | f0 rel | rms ORT/torch |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
        *rows,
        "",
        "Read the waveform cosine with care: the harmonic source integrates F0 into phase, so even the",
        "small F0 differences of the int8 graph shift every harmonic's phase by a growing amount and the",
        "cosine falls while the spectra still agree. Where the durations differ the ORT audio has another",
        "length and every frame after the first differing token is misaligned, which inflates both numbers.",
        "The int8 ONNX audio is louder by a fixed factor: its exported iSTFT divides by a traced 20-sample",
        "`window_sum` (one frame's Hann²) instead of the overlap-added Hann² (1.5 everywhere past the first",
        "frame), so past sample 20 it is 1.5× torch.istft's output (`rms ORT/torch` ≈ 1.44). ln 1.5 ≈ 0.41",
        "of the raw log-mel L1 is that gain; `L1 ×1.5` compares 1.5·torch with ORT and is the number that",
        "measures int8 error. The Rust port follows torch (torch.istft normalisation), not the export.",
        "Judge Rust audio against `audio` with the log-mel L1, and the blocks against the case-0 tensors.",
        "The int8 graph's raw durations are up to `raw dur diff` frames away from torch's (int8 ALBERT",
        "noise), so it rounds a few tokens one frame the other way. A Rust f32 port should match torch's",
        "`durations` exactly; check `rounding_margin` before loosening that.",
        "",
        "| case | text | phonemes |",
        "|---|---|---|",
        *[f"| {i} | {c['text']} | `{c['phonemes']}` |" for i, c in enumerate(doc["cases"])],
        "",
    ]
    (out / "README.md").write_text("\n".join(lines), encoding="utf-8")


if __name__ == "__main__":
    main()
