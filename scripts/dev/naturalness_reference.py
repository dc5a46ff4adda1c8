#!/usr/bin/env python3
"""DNSMOS as speechmos 0.0.1.1 ships it, the reference for the studio's own port.

    naturalness_reference.py            the outside naturalness judge of
                                        `revoice bench voicefit`
    naturalness_reference.py fixture    writes tests/fixtures/dnsmos/reference.json

The judge reads a JSON request on stdin ({"clips": [WAV paths]}), scores each
clip with DNSMOS (resampled to 16 kHz, peak-limited to 1; P.835 signal,
background and overall quality, and P.808 overall, each on a 1-5 opinion
scale, averaged over 9 s windows a second apart; a shorter clip is repeated to
fill a window, as the models expect) and prints JSON: the judge's name and per
clip its four scores.

The fixture mode scores the Whisper fixtures' 16 kHz clips, and the three of
them joined and repeated (a clip long enough for speechmos to leave windows
out), with the P.835 model, so the Rust port's tests can hold it to these
numbers.
"""
import json
import os
import sys

import librosa
import numpy as np
from speechmos import dnsmos

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "..", "tests", "fixtures")


def judge():
    request = json.load(sys.stdin)
    clips = []
    for path in request["clips"]:
        audio, _ = librosa.load(path, sr=16000)
        audio = audio / max(1.0, float(np.abs(audio).max()))
        scores = dnsmos.run(audio, 16000)
        clips.append({key: float(scores[key]) for key in ("sig_mos", "bak_mos", "ovrl_mos", "p808_mos")})
    print(json.dumps({"judge": "DNSMOS (speechmos 0.0.1.1)", "clips": clips}))


def fixture():
    names = ["dora.flac", "george.flac", "heart.flac"]
    audio = {n: librosa.load(os.path.join(FIXTURES, "whisper", n), sr=None)[0] for n in names}
    clips = [(n, [n]) for n in names] + [("joined twice", names + names)]
    out = []
    for name, parts in clips:
        samples = np.concatenate([audio[p] for p in parts]).astype(np.float32)
        scores = dnsmos.run(samples, 16000)
        out.append({"name": name, "parts": parts, "signal": float(scores["sig_mos"]),
                    "background": float(scores["bak_mos"]), "overall": float(scores["ovrl_mos"])})
    path = os.path.join(FIXTURES, "dnsmos", "reference.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump({"judge": "DNSMOS P.835 (speechmos 0.0.1.1, onnxruntime)", "clips": out}, f, indent=1)
        f.write("\n")
    print(path)


if __name__ == "__main__":
    fixture() if sys.argv[1:] == ["fixture"] else judge()
