// One process at a time may open an embedded data folder: PGlite takes no lock
// of its own, and two instances writing one folder corrupt it. The lock is a
// file holding the owner's pid and host, the way Postgres's postmaster.pid
// works. A lock library that relies on refreshing a timestamp (proper-lockfile)
// does not fit: PGlite runs in the owner's thread, and a long query would stop
// the refreshes and make a live lock look stale.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";

export const LOCK_FILE = "threadline.lock";

/**
 * Takes the folder's lock, or returns who holds it: `{ release }` on success,
 * `{ holder: { pid, host } }` when a live process (or another host) has it.
 * A lock left by a process that no longer runs is taken over.
 */
export function lockDataDir(dataDir) {
  const file = path.join(dataDir, LOCK_FILE);
  const mine = { pid: process.pid, host: hostname() };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, JSON.stringify(mine), { flag: "wx" });
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        process.off("exit", release);
        rmSync(file, { force: true });
      };
      process.on("exit", release);
      return { release };
    } catch (error) {
      if (error?.code !== "EEXIST") throw error;
    }
    const holder = readHolder(file);
    if (holder && isAlive(holder, mine)) return { holder };
    rmSync(file, { force: true }); // stale: its process is gone
  }
  return { holder: readHolder(file) ?? { pid: undefined, host: undefined } };
}

function readHolder(file) {
  try {
    const { pid, host } = JSON.parse(readFileSync(file, "utf8"));
    return { pid: Number(pid), host: String(host) };
  } catch {
    return undefined; // unreadable or half-written: treated as stale
  }
}

function isAlive(holder, mine) {
  // Another machine's process cannot be checked from here: assume it runs.
  if (holder.host !== mine.host) return true;
  // Our own pid in an old lock: a container restarted with the same pid.
  if (holder.pid === mine.pid || !Number.isInteger(holder.pid) || holder.pid <= 0) return false;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    return error?.code === "EPERM"; // alive, but another user's
  }
}
