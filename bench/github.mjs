/**
 * GitHub: API requests per ticket for a 100-ticket run, and the time from a settle to
 * the next dispatch request, measured against the fake GitHub of test/fake-github/
 * through the end-to-end helpers of test/e2e/ (reused, not rebuilt).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";

export async function githubSection({ root, row }) {
  const e2e = join(root, "test/e2e");
  if (!existsSync(e2e)) {
    return {
      rows: [
        row(
          "GitHub",
          "API requests per ticket; settle → next dispatch",
          "pending",
          "",
          "",
          "",
          "pending",
        ),
      ],
      notes: ["GitHub: pending — the end-to-end helpers (test/e2e/) have not landed."],
    };
  }
  return {
    rows: [
      row(
        "GitHub",
        "API requests per ticket; settle → next dispatch",
        "pending",
        "",
        "",
        "",
        "pending",
      ),
    ],
    notes: ["GitHub: test/e2e/ exists but the bench does not drive it yet."],
  };
}
