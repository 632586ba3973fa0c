/** The author's bytes are kept exactly, invalid UTF-8 included: only the front matter is edited. */
import { describe, expect, it } from "vitest";
import { editTicket } from "../../src/tickets/writeback.js";

const bytes = (...parts: Array<string | number[]>) =>
  Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p) : Buffer.from(p))));

describe("a ticket whose body is not UTF-8", () => {
  it("gets its engine fields and keeps every byte of the body", () => {
    const raw = bytes("---\ntitle: A\n---\n# A\n", [0xff, 0xfe, 0x80, 0x0a]);
    const edit = editTicket("a.md", raw, { status: "complete", attempt: 1 });
    expect(edit?.bytes).toEqual(
      bytes("---\ntitle: A\nstatus: complete\nattempt: 1\n---\n# A\n", [0xff, 0xfe, 0x80, 0x0a]),
    );
  });

  it("without front matter, gets one; a byte order mark stays first", () => {
    const raw = bytes([0xef, 0xbb, 0xbf], "# A\n", [0xc3, 0x28, 0x0a]);
    const edit = editTicket("a.md", raw, { status: "ready" });
    expect(edit?.bytes).toEqual(
      bytes([0xef, 0xbb, 0xbf], "---\nstatus: ready\n---\n# A\n", [0xc3, 0x28, 0x0a]),
    );
  });

  it("front matter that is not UTF-8 is refused, never rewritten", () => {
    const raw = bytes("---\ntitle: ", [0xff], "\n---\n# A\n");
    expect(() => editTicket("a.md", raw, { status: "ready" })).toThrow(/not valid UTF-8/);
  });

  it("a UTF-8 ticket is edited as text, as before", () => {
    const edit = editTicket("a.md", Buffer.from("---\ntitle: Ä\n---\nbody ✓\n"), {
      status: "ready",
    });
    expect(edit).toEqual({
      path: "a.md",
      kind: "replace",
      content: "---\ntitle: Ä\nstatus: ready\n---\nbody ✓\n",
    });
  });
});
