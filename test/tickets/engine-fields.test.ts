/** The engine-written fields of a ticket file are the runner's alone (SPEC §4b): which edits touch them. */
import { describe, expect, it } from "vitest";
import { engineFieldRule } from "../../src/tickets/parse.js";

const rule = engineFieldRule("tickets");
const plain = "---\nwrite_scope: [src/**]\n---\n# B\n\nDo b.\n";

describe("an edit to a ticket file, judged for the engine's fields", () => {
  it("knows the ticket files of its directory", () => {
    expect(rule.isTicket("tickets/b.md")).toBe(true);
    expect(
      ["tickets/_draft.md", "tickets/.x.md", "tickets/sub/b.md", "src/b.md"].map(rule.isTicket),
    ).toEqual([false, false, false, false]);
    expect(engineFieldRule("").isTicket("b.md")).toBe(true);
  });

  it("the author's fields, the body, a new ticket without them: not the engine's", () => {
    expect(rule.changed("tickets/b.md", plain, plain.replace("Do b.", "Do b well."))).toBe(false);
    expect(rule.changed("tickets/b.md", plain, plain.replace("src/**", "lib/**"))).toBe(false);
    expect(rule.changed("tickets/c.md", undefined, plain)).toBe(false);
  });

  it("a status written, quoted, or into a file that no longer parses: the engine's", () => {
    expect(
      rule.changed("tickets/b.md", plain, plain.replace("---\n", "---\nstatus: complete\n")),
    ).toBe(true);
    expect(
      rule.changed("tickets/b.md", plain, plain.replace("---\n", '---\n"status": complete\n')),
    ).toBe(true);
    const broken = plain.replace("---\n", "---\nstatus: complete\nwrite_scope: [\n");
    expect(rule.changed("tickets/b.md", plain, broken)).toBe(true);
    expect(
      rule.changed("tickets/b.md", undefined, plain.replace("---\n", "---\nattempt: 3\n")),
    ).toBe(true);
  });
});
