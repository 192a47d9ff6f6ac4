import { UNTITLED_THREAD } from "@threadline/history/title";
import { limits } from "@/lib/limits";

const FORK_SUFFIX = " (fork)";

/** A fork's title: its source's, shortened to leave room for " (fork)" within the title limit. */
export function forkTitle(source: string | null): string {
  let start = (source ?? UNTITLED_THREAD).slice(0, limits.maxTitleChars - FORK_SUFFIX.length);
  // Never half a character: a cut between a surrogate pair drops the first half.
  if (/[\uD800-\uDBFF]$/.test(start)) start = start.slice(0, -1);
  return `${start.trimEnd()}${FORK_SUFFIX}`;
}
