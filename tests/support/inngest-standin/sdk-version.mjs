// The stand-in speaks the execution and checkpoint protocol of one SDK
// release, read from its source. Another release may change a shape without a
// type error anywhere, so the stand-in refuses to start against it: update
// the stand-in (executor.mjs, index.mjs) and this pin together.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

export const WRITTEN_FOR_SDK = "4.24.0";

/** The installed `inngest` package.json (its exports do not list the file itself). */
export function installedSdkPackageJson() {
  const require = createRequire(import.meta.url);
  let dir = path.dirname(require.resolve("inngest"));
  while (!readPackageName(path.join(dir, "package.json"))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error("the Inngest stand-in cannot find the installed inngest package.json");
    dir = parent;
  }
  return path.join(dir, "package.json");
}

function readPackageName(file) {
  try {
    return JSON.parse(readFileSync(file, "utf8")).name === "inngest";
  } catch {
    return false;
  }
}

/** Throws unless the package.json at `file` (default: the installed SDK's) is the release the stand-in was written for. */
export function assertSdkVersion(file = installedSdkPackageJson()) {
  const { version } = JSON.parse(readFileSync(file, "utf8"));
  if (version !== WRITTEN_FOR_SDK) {
    throw new Error(
      `the Inngest stand-in was written for inngest ${WRITTEN_FOR_SDK} but ${file} is inngest ${version}: ` +
        "read the new SDK's execution and checkpoint code (components/InngestCommHandler.js, components/execution/engine.js, " +
        "api/api.js) and update tests/support/inngest-standin before trusting its tests",
    );
  }
  return version;
}
