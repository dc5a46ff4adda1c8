#!/usr/bin/env bash
# Runs the script bench page in headless Chromium and prints its numbers:
# builds ui/dist, serves it on loopback, opens script-bench.html?auto and
# waits for the page's `SCRIPT_BENCH {json}` console line. With no
# Chromium, runs it in WebKitGTK instead (WebKitWebDriver and MiniBrowser,
# under xvfb-run when there is no display; see bench-webkit.mjs). Optional:
# LINES (default 2000), FRAMES (600), ORIGINAL=0 (no original column),
# SCREENSHOT=path.png (with VIEW, e.g. "select=25"), CHROMIUM, PORT,
# NO_BUILD=1 (ui/dist is already built).
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
chromium="${CHROMIUM:-$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)}"
if [ -z "$chromium" ] && ! command -v WebKitWebDriver >/dev/null; then
  echo "no Chromium (chromium, chromium-browser, google-chrome or CHROMIUM) and no WebKitWebDriver" >&2
  exit 2
fi
lines="${LINES:-2000}"
frames="${FRAMES:-600}"
port="${PORT:-4180}"
work="$(mktemp -d)"
server=""
browser=""
cleanup() {
  if [ -n "$browser" ]; then kill "$browser" 2>/dev/null || true; wait "$browser" 2>/dev/null || true; fi
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  sleep 0.3
  rm -rf "$work" 2>/dev/null || true
}
trap cleanup EXIT

if [ -z "${NO_BUILD:-}" ]; then (cd "$root" && npm run --silent build >/dev/null); fi
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$root/ui/dist" >/dev/null 2>&1 &
server=$!
sleep 0.5
query="lines=$lines${ORIGINAL:+&original=$ORIGINAL}"
url="http://127.0.0.1:$port/script-bench.html?auto&frames=$frames&$query"

if [ -z "$chromium" ]; then
  here="$(cd "$(dirname "$0")" && pwd)"
  run=(node "$here/bench-webkit.mjs" "http://127.0.0.1:$port/script-bench.html?$query${VIEW:+&$VIEW}" "$frames" ${SCREENSHOT:+"$SCREENSHOT"})
  if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then run=(xvfb-run -a -s "-screen 0 1920x1200x24" "${run[@]}"); fi
  out="$("${run[@]}" 2>&1 || true)"
  if grep -q '^SCRIPT_BENCH ' <<<"$out"; then grep '^SCRIPT_BENCH ' <<<"$out" | head -1; exit 0; fi
  echo "the bench page printed no result in WebKit:" >&2
  tail -20 <<<"$out" >&2
  exit 1
fi

if [ -n "${SCREENSHOT:-}" ]; then
  "$chromium" --headless=new --no-sandbox --disable-gpu --hide-scrollbars --window-size=1600,900 \
    --user-data-dir="$work/shot" --virtual-time-budget=3000 --screenshot="$SCREENSHOT" \
    "http://127.0.0.1:$port/script-bench.html?$query${VIEW:+&$VIEW}" >/dev/null 2>&1 || true
fi

"$chromium" --headless=new --no-sandbox --window-size=1920,1080 --user-data-dir="$work/profile" \
  --enable-logging=stderr --v=0 "$url" 2>"$work/console.log" >/dev/null &
browser=$!
for _ in $(seq 1 240); do
  if grep -q "SCRIPT_BENCH" "$work/console.log" 2>/dev/null; then
    grep -o 'SCRIPT_BENCH {.*}' "$work/console.log" | head -1 | sed 's/\\"/"/g'
    exit 0
  fi
  sleep 0.5
done
echo "the bench page printed no result in 120 s; Chromium said:" >&2
tail -20 "$work/console.log" >&2
exit 1
