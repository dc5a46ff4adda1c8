#!/usr/bin/env python3
"""The faster-whisper side of `revoice bench asr`.

Reads a JSON request on stdin ({"model_dir", "threads", "clips": [16 kHz WAV paths]}),
loads faster-whisper 1.2.1 on that CTranslate2 folder (f32, the given CPU threads),
transcribes the first clip once to warm up, then each clip greedily (beam_size=1,
temperature=0, English) and prints JSON: per clip its text and seconds, the load time and
the process's peak resident memory.
"""
import json
import resource
import sys
import time

import faster_whisper
from faster_whisper import WhisperModel, decode_audio


def main():
    request = json.load(sys.stdin)
    started = time.perf_counter()
    model = WhisperModel(request["model_dir"], device="cpu", compute_type="float32", cpu_threads=request["threads"])
    load = time.perf_counter() - started
    audio = [decode_audio(path, sampling_rate=16000) for path in request["clips"]]

    def run(samples):
        segments, _ = model.transcribe(samples, language="en", beam_size=1, temperature=0.0)
        return "".join(s.text for s in segments)

    run(audio[0])
    clips = []
    for samples in audio:
        t = time.perf_counter()
        text = run(samples)
        clips.append({"text": text, "seconds": time.perf_counter() - t})
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"version": faster_whisper.__version__, "load_seconds": load, "peak_mib": peak, "clips": clips}))


if __name__ == "__main__":
    main()
