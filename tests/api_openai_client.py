"""The official `openai` Python client against Revoice Studio's speech API.

Usage: python api_openai_client.py BASE_URL (for example http://127.0.0.1:8880/v1)

Asks for the same line in all six response formats through
`client.audio.speech.create`, decodes each answer with ffmpeg and checks
that it is non-silent audio as long as the WAV answer (within 0.15 s), with
the Content-Type the API promises. Prints one line per format; exits 1 on
the first failure.
"""

import array
import math
import os
import subprocess
import sys
import tempfile

from openai import OpenAI

CONTENT_TYPES = {
    "wav": "audio/wav",
    "pcm": "audio/pcm",
    "mp3": "audio/mpeg",
    "opus": "audio/ogg",
    "aac": "audio/aac",
    "flac": "audio/flac",
}


def decode(path, fmt):
    """The file as mono f32 samples at 24 kHz, through ffmpeg."""
    raw_input = ["-f", "s16le", "-ar", "24000", "-ac", "1"] if fmt == "pcm" else []
    command = ["ffmpeg", "-v", "error", *raw_input, "-i", path, "-f", "f32le", "-ac", "1", "-ar", "24000", "-"]
    out = subprocess.run(command, capture_output=True, check=True).stdout
    samples = array.array("f")
    samples.frombytes(out)
    return samples


def main():
    base_url = sys.argv[1]
    client = OpenAI(base_url=base_url, api_key=os.environ.get("REVOICE_API_KEY", "not-needed"))
    text = "The official client asks the studio for speech. Every format should come back."
    expected = None
    with tempfile.TemporaryDirectory() as folder:
        for fmt in ["wav", "pcm", "mp3", "opus", "aac", "flac"]:
            answer = client.audio.speech.create(model="kokoro", voice="af_heart", input=text, response_format=fmt)
            content_type = answer.response.headers.get("content-type")
            path = os.path.join(folder, "speech." + fmt)
            with open(path, "wb") as f:
                f.write(answer.content)
            samples = decode(path, fmt)
            seconds = len(samples) / 24000.0
            rms = math.sqrt(sum(s * s for s in samples) / max(len(samples), 1))
            if expected is None:
                expected = seconds
            problems = []
            if content_type != CONTENT_TYPES[fmt]:
                problems.append("content-type %s, expected %s" % (content_type, CONTENT_TYPES[fmt]))
            if abs(seconds - expected) > 0.15:
                problems.append("%.2f s long, the WAV is %.2f s" % (seconds, expected))
            if rms < 0.01:
                problems.append("silent (rms %.4f)" % rms)
            if problems:
                print("%s FAILED: %s" % (fmt, "; ".join(problems)))
                return 1
            print("%s ok: %d bytes, %.2f s, rms %.3f, %s" % (fmt, len(answer.content), seconds, rms, content_type))
    return 0


if __name__ == "__main__":
    sys.exit(main())
