// @vitest-environment happy-dom
import { describe, expect, it } from "vitest";
import { stateCounts } from "./render-panel";
import type { Segment } from "../model";

const line = (id: number, state: Segment["state"]): Segment => ({
  id, trackId: 1, start: id, end: id + 1, text: `Line ${id}`, speakerId: null, speed: 1, gainDb: 0, fadeIn: 0, fadeOut: 0, strategy: null, locked: false, state, error: null, fit: null, spoken: null, planned: null, flags: [], check: null,
});

describe("render panel counts", () => {
  it("counts every line once by its state", () => {
    const counts = stateCounts([line(1, "ready"), line(2, "ready"), line(3, "failed"), line(4, "queued"), line(5, "stale")]);
    expect(counts).toEqual({ ready: 2, failed: 1, queued: 1, stale: 1, rendering: 0 });
  });
});

describe("render panel servers", () => {
  it("shows each remote server in or out of rotation, with the reason", async () => {
    const { render } = await import("lit-html");
    const { serverLines } = await import("./render-panel");
    const server = (url: string, up: boolean) => ({ url, up, problem: up ? null : "the connection failed: io: Peer disconnected", lastFault: null, inFlight: up ? 2 : 0, msPerLine: up ? 812.4 : null, linesDone: up ? 14 : 3, failures: up ? 0 : 1 });
    const host = document.createElement("div");
    render(serverLines([{ name: "fleet", servers: [server("http://127.0.0.1:8881", true), server("http://127.0.0.1:8882", false)] }]), host);
    const items = [...host.querySelectorAll("li")].map((li) => li.textContent?.replace(/\s+/g, " ").trim());
    expect(items[0]).toContain("in rotation");
    expect(items[0]).toContain("14 lines · 812 ms a line · 2 in flight");
    expect(items[1]).toContain("out: the connection failed: io: Peer disconnected");
    expect(items[1]).toContain("1 fault");
    render(serverLines([]), host);
    expect(host.querySelector("#render-servers")).toBeNull();
  });
});
