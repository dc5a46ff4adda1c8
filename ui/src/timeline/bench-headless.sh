#!/usr/bin/env bash
# Runs the timeline bench page in headless Chromium and prints its numbers:
# builds ui/dist, serves it on loopback, opens timeline-bench.html?auto and
# waits for the page's `TIMELINE_BENCH {json}` console line. Optional:
# LINES (default 2000), FRAMES (600), SCREENSHOT=path.png (with VIEW, e.g.
# "zoom=150&at=60&select=25", for the view to shoot), CHROMIUM.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
chromium="${CHROMIUM:-$(command -v chromium || command -v chromium-browser || command -v google-chrome)}"
lines="${LINES:-2000}"
frames="${FRAMES:-600}"
port="${PORT:-4179}"
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

(cd "$root" && npm run --silent build >/dev/null)
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$root/ui/dist" >/dev/null 2>&1 &
server=$!
sleep 0.5
url="http://127.0.0.1:$port/timeline-bench.html?auto&lines=$lines&frames=$frames"

if [ -n "${SCREENSHOT:-}" ]; then
  "$chromium" --headless=new --no-sandbox --disable-gpu --hide-scrollbars --window-size=1600,900 \
    --user-data-dir="$work/shot" --virtual-time-budget=3000 --screenshot="$SCREENSHOT" \
    "http://127.0.0.1:$port/timeline-bench.html?lines=$lines${VIEW:+&$VIEW}" >/dev/null 2>&1 || true
fi

"$chromium" --headless=new --no-sandbox --window-size=1920,1080 --user-data-dir="$work/profile" \
  --enable-logging=stderr --v=0 "$url" 2>"$work/console.log" >/dev/null &
browser=$!
for _ in $(seq 1 240); do
  if grep -q "TIMELINE_BENCH" "$work/console.log" 2>/dev/null; then
    grep -o 'TIMELINE_BENCH {.*}' "$work/console.log" | head -1 | sed 's/\\"/"/g'
    exit 0
  fi
  sleep 0.5
done
echo "the bench page printed no result in 120 s; Chromium said:" >&2
tail -20 "$work/console.log" >&2
exit 1
