#!/usr/bin/env python3
"""The outside naturalness judge of `revoice bench voicefit`: DNSMOS.

Reads a JSON request on stdin ({"clips": [WAV paths]}), scores each clip with
DNSMOS as speechmos 0.0.1.1 ships it (resampled to 16 kHz, peak-limited to
1; P.835 signal, background and overall quality, and P.808 overall, each on
a 1-5 opinion scale, averaged over 9 s windows a second apart; a shorter
clip is repeated to fill a window, as the models expect) and prints JSON:
the judge's name and per clip its four scores.
"""
import json
import sys

import librosa
import numpy as np
from speechmos import dnsmos


def main():
    request = json.load(sys.stdin)
    clips = []
    for path in request["clips"]:
        audio, _ = librosa.load(path, sr=16000)
        audio = audio / max(1.0, float(np.abs(audio).max()))
        scores = dnsmos.run(audio, 16000)
        clips.append({key: float(scores[key]) for key in ("sig_mos", "bak_mos", "ovrl_mos", "p808_mos")})
    print(json.dumps({"judge": "DNSMOS (speechmos 0.0.1.1)", "clips": clips}))


if __name__ == "__main__":
    main()
