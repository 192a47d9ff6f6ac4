// The one place that says where the end-to-end suite's servers live. Both
// playwright.config.ts (which starts them) and scripts/test.mjs (which resets
// the database before they start) read it, so the two can never disagree.

export const MOCK_MODEL_PORT = 4010;
export const MOCK_MODEL_URL = `http://127.0.0.1:${MOCK_MODEL_PORT}`;

/** The operator's MCP server (scripts/mock-mcp-server.mjs) every app of the suite is given. */
export const MOCK_MCP_PORT = 4020;
export const MOCK_MCP_URL = `http://127.0.0.1:${MOCK_MCP_PORT}`;

export const APP_PORT = 3100;
export const APP_URL = `http://127.0.0.1:${APP_PORT}`;

/** The inline app once more, as an operator who caps the history every model call reads and compacts threads early. */
export const OPERATOR_APP_PORT = 3102;
export const OPERATOR_APP_URL = `http://127.0.0.1:${OPERATOR_APP_PORT}`;

/** The same app once more, with turns on the Inngest runtime against the stand-in. */
export const INNGEST_APP_PORT = 3101;
export const INNGEST_APP_URL = `http://127.0.0.1:${INNGEST_APP_PORT}`;
export const INNGEST_STANDIN_PORT = 8299;

/** A production server the crash test starts, kills with SIGKILL mid-reply, and starts again. */
export const CRASH_APP_PORT = 3103;
export const CRASH_APP_URL = `http://127.0.0.1:${CRASH_APP_PORT}`;
/** The same on the Inngest runtime, with a stand-in of its own. */
export const CRASH_INNGEST_APP_PORT = 3104;
export const CRASH_STANDIN_PORT = 8300;
/** The paging test's own server (it writes a long thread straight into its database), beside the crash test's. */
export const PAGING_APP_PORT = 3105;
export const PAGING_APP_URL = `http://127.0.0.1:${PAGING_APP_PORT}`;
export const INNGEST_STANDIN_URL = `http://127.0.0.1:${INNGEST_STANDIN_PORT}`;

/** The sign-in specs' own servers (AUTH_MODE=accounts, a database each), one per runtime, and the Inngest one's stand-in. */
export const ACCOUNTS_APP_PORTS = { inline: 3106, inngest: 3107 };
export const ACCOUNTS_STANDIN_PORT = 8301;
/** The OpenID Connect provider each of them signs people in through (tests/support/oidc-provider.ts). */
export const ACCOUNTS_OIDC_PORTS = { inline: 8302, inngest: 8303 };
/** The Spend spec's own server (AUTH_MODE=accounts, a database of its own), run once. */
export const SPEND_APP_PORT = 14500;

/**
 * The database of the apps under test: the server in E2E_DATABASE_URL, or,
 * without it, each app's own embedded Postgres in a folder of its own.
 */
export const E2E_DATABASE_URL = process.env.E2E_DATABASE_URL || undefined;
export const E2E_EMBEDDED_DIRS = [
  ".test-output/pglite-inline",
  ".test-output/pglite-inngest",
  ".test-output/pglite-operator",
  ".test-output/pglite-crash",
  ".test-output/pglite-paging",
  ".test-output/pglite-accounts-inline",
  ".test-output/pglite-accounts-inngest",
  ".test-output/pglite-spend",
];
const database = (embeddedDir) => (E2E_DATABASE_URL ? { DATABASE_URL: E2E_DATABASE_URL } : { EMBEDDED_DB_DIR: embeddedDir });

/** Environment of the app under test: a throwaway database and the mock model. */
export const E2E_APP_ENV = {
  PORT: String(APP_PORT),
  // Containers export HOSTNAME (their id); Next would bind to that address
  // instead of the loopback one the tests and the health check use.
  HOSTNAME: "127.0.0.1",
  ...database(E2E_EMBEDDED_DIRS[0]),
  SESSION_SECRET: "e2e-secret-0123456789abcdef0123456789abcdef",
  // A browser identity per visitor, as each test's new browser context expects; sign-in has specs of its own.
  AUTH_MODE: "open",
  OPENAI_COMPATIBLE_BASE_URL: `${MOCK_MODEL_URL}/v1`,
  // Two models on offer, both the mock's: the picker and "Regenerate with" have a choice, and the mock records which was asked.
  MODELS: "openai-compatible:mock-model=Mock model, openai-compatible:mock-model-b=Mock model B",
  // The first sees images (an attached one reaches it as an image), the second does not (the page says so).
  MODELS_WITH_IMAGES: "openai-compatible:mock-model",
  // The first is priced, the second not: a reply of each shows tokens with a cost, and without.
  MODEL_PRICES: JSON.stringify({ "openai-compatible:mock-model": { input: 1, output: 2 } }),
  // One MCP server, "notes": record_note asks first, lookup runs without asking.
  MCP_SERVERS: JSON.stringify({ mcpServers: { notes: { url: `${MOCK_MCP_URL}/mcp`, autoApprove: ["lookup"] } } }),
  // Every test is a new visitor from 127.0.0.1: the per-address limits would
  // count the whole suite as one network. The limits have tests of their own.
  RATE_LIMIT_NEW_IDENTITIES_PER_HOUR: "10000",
  RATE_LIMIT_CHAT_PER_MINUTE_PER_ADDRESS: "10000",
  // The title test holds the model's title until the page shows the first words; a loaded machine must not time it out first.
  TITLE_TIMEOUT_SECONDS: "60",
  // The many-tabs test holds a reply open ([[hang-mid]]) while eight tabs load; a loaded machine must not cut it off first.
  MODEL_IDLE_TIMEOUT_SECONDS: "120",
};

export const E2E_INNGEST_APP_ENV = {
  ...E2E_APP_ENV,
  PORT: String(INNGEST_APP_PORT),
  ...database(E2E_EMBEDDED_DIRS[1]),
  INNGEST_DEV: INNGEST_STANDIN_URL,
  // The stand-in listens on loopback only: the production start may use dev mode.
  INNGEST_DEV_IS_LOCAL: "1",
};

export const E2E_OPERATOR_APP_ENV = {
  ...E2E_APP_ENV,
  PORT: String(OPERATOR_APP_PORT),
  ...database(E2E_EMBEDDED_DIRS[2]),
  NEXT_PUBLIC_DEFAULT_HISTORY_POLICY: "lastN",
  NEXT_PUBLIC_DEFAULT_HISTORY_LENGTH: "1",
  COMPACTION_MAX_MESSAGES: "6",
  COMPACTION_TARGET_MESSAGES: "4",
  COMPACTION_KEEP_TURNS: "1",
};
