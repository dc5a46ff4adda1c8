import { describe, expect, it } from "vitest";
import type { Check, Diagnosis } from "./engine";
import {
  audioLabel,
  checkedAtLabel,
  formatBytes,
  overallStatus,
  shortenPath,
  speechModelLabel,
  summarizeChecks,
} from "./report";

const check = (status: Check["status"]): Check => ({ name: status, status, detail: "", fix: null });

function report(overrides: Partial<Diagnosis> = {}): Diagnosis {
  return {
    engine_version: "0.1.0",
    data_dir: "/home/ana/.local/share/revoice-studio",
    config_file: "/home/ana/.local/share/revoice-studio/config.toml",
    log_dir: "/home/ana/.local/share/revoice-studio/logs",
    database: "/home/ana/.local/share/revoice-studio/studio.sqlite3",
    sqlite_version: "3.51.3",
    models: [
      {
        asset: { id: "kokoro-82m-v1.0", name: "Kokoro-82M v1.0", purpose: "speech" },
        dir: "/x",
        state: "installed",
        files: 3,
        bytes: 92_361_271,
      },
    ],
    audio: { host: "ALSA", devices: [], error: null },
    audio_output: "alsa:null",
    checks: [],
    checked_at: "2026-11-29T08:00:00Z",
    ...overrides,
  };
}

describe("check summaries", () => {
  it("takes the worst status as the overall one", () => {
    expect(overallStatus([])).toBe("ok");
    expect(overallStatus([check("ok"), check("warning")])).toBe("warning");
    expect(overallStatus([check("problem"), check("warning"), check("ok")])).toBe("problem");
  });

  it("counts problems and warnings in words", () => {
    expect(summarizeChecks([check("ok")])).toBe("All checks passed");
    expect(summarizeChecks([check("problem"), check("warning"), check("warning")])).toBe(
      "1 problem, 2 warnings",
    );
    expect(summarizeChecks([check("warning")])).toBe("1 warning");
  });
});

describe("formatBytes", () => {
  it("uses the same binary units as the CLI", () => {
    expect(formatBytes(17)).toBe("17 B");
    expect(formatBytes(12 * 1024)).toBe("12.0 KiB");
    expect(formatBytes(92_361_271)).toBe("88.1 MiB");
    expect(formatBytes(3 * 1024 ** 3)).toBe("3.0 GiB");
  });
});

describe("status bar labels", () => {
  it("names the speech model and its state", () => {
    expect(speechModelLabel(report())).toBe("Kokoro-82M v1.0: installed (88.1 MiB)");
    const missing = report({
      models: [{ asset: { id: "k", name: "Kokoro-82M v1.0", purpose: "" }, dir: "/x", state: "missing" }],
    });
    expect(speechModelLabel(missing)).toBe("Kokoro-82M v1.0: not installed");
  });

  it("shows the playback device, or says why there is none", () => {
    expect(audioLabel(report())).toBe("Audio: alsa:null");
    expect(audioLabel(report({ audio_output: null }))).toBe("Audio: no output device");
    expect(
      audioLabel(report({ audio_output: null, audio: { host: "ALSA", devices: [], error: "boom" } })),
    ).toBe("Audio: unavailable");
  });
});

describe("shortenPath", () => {
  it("leaves short paths alone", () => {
    expect(shortenPath("/tmp/studio", 40)).toBe("/tmp/studio");
  });

  it("keeps the first folder and the last folders that fit", () => {
    const path = "/home/ana/.local/share/some/very/deep/revoice-studio";
    const short = shortenPath(path, 32);
    expect(short.length).toBeLessThanOrEqual(32);
    expect(short.startsWith("/home/…/")).toBe(true);
    expect(short.endsWith("/revoice-studio")).toBe(true);
  });
});

describe("checkedAtLabel", () => {
  it("shows the local time of the check, and copes with a bad timestamp", () => {
    expect(checkedAtLabel("2026-11-29T08:00:00Z")).toMatch(/^checked \d{2}:\d{2}:\d{2}$/);
    expect(checkedAtLabel("not a time")).toBe("checked at an unknown time");
  });
});
