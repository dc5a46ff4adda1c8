// Find and replace: literal matching, case, whole words, counts, the next
// match, and highlighting runs.
import { describe, expect, it } from "vitest";
import { matcher, matchesSentence, nextMatch, splitRuns, summarizeMatches } from "./find";

const plain = { matchCase: false, wholeWord: false };

describe("find", () => {
  it("matches literally, ignoring case unless asked", () => {
    expect(matcher("", plain)).toBeNull();
    expect(matcher("the", plain)!.ranges("The cat and the hat")).toEqual([[0, 3], [12, 15]]);
    expect(matcher("the", { ...plain, matchCase: true })!.ranges("The cat and the hat")).toEqual([[12, 15]]);
    expect(matcher("a.c", plain)!.count("abc a.c")).toBe(1);
    expect(matcher("(x)*", plain)!.count("(x)* (x)")).toBe(1);
    expect(matcher("ÉTÉ", plain)!.count("un été")).toBe(1);
  });

  it("matches whole words only when asked, in any script", () => {
    const word = { ...plain, wholeWord: true };
    expect(matcher("the", word)!.ranges("the other theme, the.")).toEqual([[0, 3], [17, 20]]);
    expect(matcher("été", word)!.count("étés été")).toBe(1);
    expect(matcher("aa", word)!.count("aaa aa")).toBe(1);
    expect(matcher("go", word)!.count("go_on go-on")).toBe(1);
    expect(matcher("the", plain)!.count("the other theme")).toBe(3);
  });

  it("replaces every match literally", () => {
    const m = matcher("cat", plain)!;
    expect(m.replace("Cat cat scatter", "$1 dog")).toBe("$1 dog $1 dog s$1 dogter");
    expect(matcher("cat", { matchCase: true, wholeWord: true })!.replace("Cat cat scatter", "dog")).toBe("Cat dog scatter");
    expect(m.replace("no match", "x")).toBe("no match");
  });

  it("counts matches and lines", () => {
    const lines = [
      { id: 1, text: "go go go" },
      { id: 2, text: "stop" },
      { id: 3, text: "Go now" },
    ];
    const summary = summarizeMatches(lines, matcher("go", plain));
    expect(summary).toEqual({ matches: 4, lines: 2, ids: [1, 3] });
    expect(matchesSentence(summary)).toBe("4 matches in 2 lines");
    expect(matchesSentence({ matches: 1, lines: 1, ids: [1] })).toBe("1 match in 1 line");
    expect(matchesSentence(summarizeMatches(lines, matcher("zzz", plain)))).toBe("No matches");
    expect(summarizeMatches(lines, null).matches).toBe(0);
  });

  it("goes to the next match, wrapping round, and back", () => {
    expect(nextMatch([2, 5, 9], -1)).toBe(2);
    expect(nextMatch([2, 5, 9], 2)).toBe(5);
    expect(nextMatch([2, 5, 9], 9)).toBe(2);
    expect(nextMatch([2, 5, 9], 5, true)).toBe(2);
    expect(nextMatch([2, 5, 9], 2, true)).toBe(9);
    expect(nextMatch([], 0)).toBe(-1);
  });

  it("splits text into runs for highlighting", () => {
    expect(splitRuns("a cat sat", [[2, 5]])).toEqual([
      { text: "a ", match: false },
      { text: "cat", match: true },
      { text: " sat", match: false },
    ]);
    expect(splitRuns("cat", [[0, 3]])).toEqual([{ text: "cat", match: true }]);
    expect(splitRuns("", [])).toEqual([{ text: "", match: false }]);
  });
});
