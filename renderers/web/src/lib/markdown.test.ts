/** An answer still arriving is drawn with its unclosed marks closed, never changed once whole. */

import { describe, expect, it } from "vitest";

import { closeOpenMarks, renderMarkdown } from "@/lib/markdown";

describe("closeOpenMarks", () => {
  it("closes an open code fence, bold and inline code", () => {
    expect(closeOpenMarks("Here:\n```py\nprint(1)")).toBe("Here:\n```py\nprint(1)\n```");
    expect(closeOpenMarks("The shirt is **blu")).toBe("The shirt is **blu**");
    expect(closeOpenMarks("Run `make te")).toBe("Run `make te`");
  });

  it("leaves out a link whose URL has not finished arriving", () => {
    expect(closeOpenMarks("See [the docs](https://exa")).toBe("See ");
  });

  it("changes nothing that is whole, and looks only at the paragraph being written", () => {
    for (const whole of ["**bold** and `code`", "```\na ** b\n```\nafter", "a **b** c **d**", "[a](https://x.example)"]) {
      expect(closeOpenMarks(whole)).toBe(whole);
    }
    expect(closeOpenMarks("an **open\n\nnext **para")).toBe("an **open\n\nnext **para**");
    expect(closeOpenMarks("`a ** b` **c")).toBe("`a ** b` **c**");
  });

  it("draws a streaming bold as bold, and the same text whole as written", () => {
    expect(renderMarkdown("The shirt is **blu", true)).toContain("<strong>blu</strong>");
    expect(renderMarkdown("The shirt is **blu")).not.toContain("<strong>");
  });
});
