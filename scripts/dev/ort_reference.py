#!/usr/bin/env python3
"""Reference timing for `revoice bench synth`: the same lines through kokoro-onnx
(PyPI) with onnxruntime, on the same int8 ONNX file and voice packs.

Not run by tests. `revoice bench synth` calls it when a Python with kokoro-onnx is
available (see `revoice bench synth --help`); it can also be run by hand:

    python scripts/dev/ort_reference.py DATA_DIR THREADS < lines.json

stdin: {"voice": "af_heart", "speed": 1.0, "lines": ["phonemes", ...], "repeats": 3}
stdout: {"lines": [{"seconds_audio": s, "seconds_render": s}, ...], "versions": {...}}
seconds_render is the median of `repeats` passes (1 when absent).
"""

import json
import os
import sys
import tempfile
import time

import numpy as np
import onnxruntime
from safetensors.numpy import load_file


def main():
    data_dir, threads = sys.argv[1], int(sys.argv[2])
    request = json.load(sys.stdin)
    import kokoro_onnx  # imported late so a missing package reports cleanly above

    onnx_path = os.path.join(data_dir, "downloads", "kokoro-82m-v1.0", "kokoro-v1.0.int8.onnx")
    packs = load_file(os.path.join(data_dir, "models", "kokoro-82m-v1.0", "voices.safetensors"))
    with tempfile.TemporaryDirectory() as tmp:
        # kokoro-onnx reads voices as an .npz of [510, 1, 256] arrays.
        voices_path = os.path.join(tmp, "voices.npz")
        np.savez(voices_path, **{k: v.reshape(510, 1, 256) for k, v in packs.items()})
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        session = onnxruntime.InferenceSession(onnx_path, options, providers=["CPUExecutionProvider"])
        engine = kokoro_onnx.Kokoro.from_session(session, voices_path)
        # Warm up once, as the Rust side does.
        engine.create(request["lines"][0], voice=request["voice"], speed=request["speed"], is_phonemes=True, trim=False)
        results = []
        repeats = max(1, int(request.get("repeats", 1)))
        for line in request["lines"]:
            passes = []
            for _ in range(repeats):
                start = time.perf_counter()
                samples, rate = engine.create(line, voice=request["voice"], speed=request["speed"], is_phonemes=True, trim=False)
                passes.append(time.perf_counter() - start)
            passes.sort()
            results.append({"seconds_audio": len(samples) / rate, "seconds_render": passes[len(passes) // 2]})
    versions = {"kokoro_onnx": getattr(kokoro_onnx, "__version__", "unknown"), "onnxruntime": onnxruntime.__version__}
    json.dump({"lines": results, "versions": versions}, sys.stdout)


if __name__ == "__main__":
    main()
