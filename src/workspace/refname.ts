/**
 * The integration branch of a local run, `frontier/<run>`, as a name git accepts. A run
 * may be called anything frontier.yml allows (`Q3 review: API`, `a..b`, `x.lock`), and
 * git refuses much of that (git-check-ref-format): each refused character or sequence
 * becomes `-`, so the branch still reads as the run. Pure; the runner also asks git
 * itself before it makes the branch.
 */

/** `frontier/<run>`, made acceptable to git. */
export function runBranchName(run: string): string {
  const parts = run
    // control characters, space, and ~ ^ : ? * [ \ have no place in a ref
    // biome-ignore lint/suspicious/noControlCharactersInRegex: git refuses exactly these
    .replace(/[\u0000-\u0020\u007f~^:?*[\\]+/g, "-")
    // "@{" reads as a reflog selector, ".." as a range
    .replace(/@\{/g, "@-")
    .replace(/\.{2,}/g, ".")
    .split("/")
    .map((part) =>
      part
        // no component starts with "." or ends with ".lock" or "."
        .replace(/^\.+/, "")
        .replace(/\.+$/, "")
        .replace(/\.lock$/i, "-lock"),
    )
    .filter((part) => part !== "");
  const name = parts.join("/");
  return `frontier/${name === "" || name === "@" ? "run" : name}`;
}
