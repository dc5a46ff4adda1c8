#!/usr/bin/env python3
"""The reference pipeline for `revoice bench heard`: each sentence through
misaki 0.9.4's G2P (zh: ZHG2P(), the path Kokoro v1.0 reads Mandarin with;
ja: JAG2P(), its default cutlet path) and its phonemes rendered by kokoro-onnx
with onnxruntime, on the same int8 ONNX file and voice packs as
ort_reference.py, each render written as a 24 kHz 24-bit WAV into OUT_DIR.

Not run by tests. `revoice bench heard` calls it when a Python with
kokoro-onnx and misaki is available (scripts/dev/heard-venv makes one); it can
also be run by hand:

    python scripts/dev/heard_reference.py DATA_DIR OUT_DIR THREADS < request.json

stdin: {"language": "zh", "voices": ["zf_xiaobei", ...], "sentences": ["...", ...]}
stdout: {"sentences": [{"phonemes": "..." | null, "error": "..." | null}, ...],
         "renders": {"zf_xiaobei": [{"wav": path | null, "seconds_audio": s,
                                    "seconds_render": s}, ...], ...},
         "peak_mib": peak resident memory, "versions": {...}}
A sentence the G2P cannot read has phonemes null and its error; it has no WAV.
"""

import importlib.metadata
import json
import logging
import os
import resource
import sys
import tempfile
import time
import warnings


def g2p_for(language):
    """misaki's G2P for `language`, as Kokoro's own pipeline builds it for v1.0."""
    if language == "zh":
        import jieba

        jieba.setLogLevel(logging.ERROR)
        from misaki.zh import ZHG2P

        return ZHG2P()
    if language == "ja":
        from misaki.ja import JAG2P

        return JAG2P()
    raise SystemExit(f"no reference G2P for language {language!r} (known: zh, ja)")


def main():
    data_dir, out_dir, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
    request = json.load(sys.stdin)
    warnings.simplefilter("ignore")
    # Whatever the packages print goes to stderr: stdout carries the answer alone.
    answer, sys.stdout = sys.stdout, sys.stderr
    # Imported late so a missing package reports cleanly as the last stderr line.
    import numpy as np
    import onnxruntime
    import soundfile
    import kokoro_onnx
    from safetensors.numpy import load_file

    g2p = g2p_for(request["language"])
    sentences = []
    for text in request["sentences"]:
        try:
            phonemes, _ = g2p(text)
            sentences.append({"phonemes": phonemes, "error": None})
        except Exception as error:  # the reference cannot read it: say so, keep going
            sentences.append({"phonemes": None, "error": repr(error)})

    onnx_path = os.path.join(data_dir, "downloads", "kokoro-82m-v1.0", "kokoro-v1.0.int8.onnx")
    packs = load_file(os.path.join(data_dir, "models", "kokoro-82m-v1.0", "voices.safetensors"))
    renders = {}
    with tempfile.TemporaryDirectory() as tmp:
        # kokoro-onnx reads voices as an .npz of [510, 1, 256] arrays.
        voices_path = os.path.join(tmp, "voices.npz")
        np.savez(voices_path, **{k: v.reshape(510, 1, 256) for k, v in packs.items()})
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        session = onnxruntime.InferenceSession(onnx_path, options, providers=["CPUExecutionProvider"])
        engine = kokoro_onnx.Kokoro.from_session(session, voices_path)
        for voice in request["voices"]:
            rows = []
            for i, sentence in enumerate(sentences):
                if sentence["phonemes"] is None or not sentence["phonemes"].strip():
                    rows.append({"wav": None, "seconds_audio": 0.0, "seconds_render": 0.0})
                    continue
                start = time.perf_counter()
                samples, rate = engine.create(sentence["phonemes"], voice=voice, speed=1.0, is_phonemes=True, trim=False)
                seconds = time.perf_counter() - start
                wav = os.path.join(out_dir, f"{voice}-{i:03}.wav")
                # 24-bit PCM: lossless for this, and no float PEAK chunk for the reader to skip.
                soundfile.write(wav, samples, rate, subtype="PCM_24")
                rows.append({"wav": wav, "seconds_audio": len(samples) / rate, "seconds_render": seconds})
            renders[voice] = rows

    versions = {
        name: importlib.metadata.version(name) for name in ("misaki", "kokoro-onnx", "onnxruntime")
    }
    if request["language"] == "ja":
        versions.update({name: importlib.metadata.version(name) for name in ("fugashi", "unidic-lite")})
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    json.dump({"sentences": sentences, "renders": renders, "peak_mib": peak_mib, "versions": versions}, answer)


if __name__ == "__main__":
    main()
