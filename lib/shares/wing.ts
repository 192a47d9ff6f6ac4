import "server-only";
import type { SessionSecret } from "@/lib/auth/secret";
import type { FileStore } from "@/lib/files/file-store";
import { once, type Wing, type WingParts } from "@/lib/wing";
import { adoptShares, revokeThreadShares, ShareStore } from "./share-store";
import { Shares, type SharedThreads } from "./shares";
import type { SharesSettings } from "./settings";

// Share links: a read-only snapshot of one branch of a thread, opened by
// anyone with its link (app/s/), until it expires or its owner revokes it.
// Deleting the thread revokes its links; a guest's links go with their
// threads to the account they sign up for.

/** What the links take from the app: the threads they snapshot and fork into, and the secret that signs their ids. */
interface SharesApp {
  threads(): SharedThreads;
  files(): FileStore;
  sessionSecret: SessionSecret;
}

function services({ config, pool }: WingParts<SharesSettings>, app: SharesApp) {
  return {
    /** The owners' share links, and what a viewer sees of one. */
    shares: once(() => new Shares({ store: new ShareStore(pool), threads: () => app.threads(), files: () => app.files(), secret: () => app.sessionSecret(), settings: config })),
  };
}

export const sharesWing: Wing<SharesApp, ReturnType<typeof services>, SharesSettings> = {
  name: "shares",
  tables: ["shares"],
  services,
  thread: {
    // Before the thread goes: its links stop opening, and their snapshots go with it.
    async delete(tx, { threadId }) {
      await revokeThreadShares(tx, threadId);
    },
    adopt: adoptShares,
  },
};
