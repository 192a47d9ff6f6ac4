import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ENV_NAMES, parseEnv } from "@/lib/settings";

const root = path.resolve(__dirname, "../..");

// [variable, value, what it parses to] — or, for a bad value, the one line that names it.
const good: [string, string, unknown][] = [
  ["DATABASE_URL", "postgres://db/threadline", "postgres://db/threadline"],
  ["EMBEDDED_DB_DIR", "", ".data/pglite"],
  ["EMBEDDED_DB_DIR", "/var/lib/threadline", "/var/lib/threadline"],
  ["DATABASE_POOL_SIZE", "", 10],
  ["DATABASE_POOL_SIZE", " 4 ", 4],
  ["SESSION_SECRET", "", undefined],
  ["SESSION_SECRET", "x".repeat(32), "x".repeat(32)],
  ["MODEL_PROVIDER", "anthropic", "anthropic"],
  ["MODEL", "gpt-4.1", "gpt-4.1"],
  ["MODELS", "", undefined],
  ["MODELS", " offline:threadline-offline=Demo ", "offline:threadline-offline=Demo"],
  ["UTILITY_MODEL", "", undefined],
  ["MCP_SERVERS", "", undefined],
  ["MODEL_PRICES", "", undefined],
  ["MODEL_PRICES", '{"openai:o3": {"input": 2, "output": 8}}', '{"openai:o3": {"input": 2, "output": 8}}'],
  ["MCP_SERVERS", '{"mcpServers":{}}', '{"mcpServers":{}}'],
  ["MCP_TOOL_TIMEOUT_SECONDS", "", 30],
  ["MCP_TOOL_TIMEOUT_SECONDS", "5", 5],
  ["MCP_RESULT_MAX_CHARS", "", 20_000],
  ["MCP_RESULT_MAX_CHARS", "500", 500],
  ["MCP_CONNECT_TIMEOUT_SECONDS", "", 5],
  ["MCP_CONNECT_TIMEOUT_SECONDS", "2", 2],
  ["UTILITY_MODEL", "offline:threadline-offline", "offline:threadline-offline"],
  ["OPENAI_BASE_URL", "https://proxy.example/v1", "https://proxy.example/v1"],
  ["ANTHROPIC_BASE_URL", "http://127.0.0.1:9/v1", "http://127.0.0.1:9/v1"],
  ["OPENAI_COMPATIBLE_BASE_URL", "http://localhost:11434/v1", "http://localhost:11434/v1"],
  ["SYSTEM_PROMPT", "  Be brief.  ", "Be brief."],
  ["PORT", "8080", 8080],
  ["HOSTNAME", "0.0.0.0", "0.0.0.0"],
  ["WEB_CONCURRENCY", "", undefined],
  ["WEB_CONCURRENCY", "4", 4],
  ["TRUSTED_PROXY_HOPS", "", 0],
  ["TRUSTED_PROXY_HOPS", "2", 2],
  ["WORKER_HEADER", "", false],
  ["WORKER_HEADER", "1", true],
  ["RATE_LIMIT_CHAT_PER_MINUTE", "", 20],
  ["RATE_LIMIT_CHAT_PER_MINUTE", "0", 0],
  ["RATE_LIMIT_CHAT_PER_MINUTE_PER_ADDRESS", "", 120],
  ["RATE_LIMIT_NEW_IDENTITIES_PER_HOUR", "", 60],
  ["RATE_LIMIT_FORKS_PER_MINUTE", "", 10],
  ["RATE_LIMIT_FORKS_PER_MINUTE_PER_ADDRESS", "", 60],
  ["RATE_LIMIT_IMPORTS_PER_HOUR", "", 20],
  ["RATE_LIMIT_IMPORTS_PER_HOUR", "0", 0],
  ["RATE_LIMIT_IMPORTS_PER_HOUR_PER_ADDRESS", "", 60],
  ["RATE_LIMIT_UPLOADS_PER_HOUR", "", 200],
  ["RATE_LIMIT_UPLOADS_PER_HOUR", "0", 0],
  ["RATE_LIMIT_UPLOADS_PER_HOUR_PER_ADDRESS", "", 600],
  ["RATE_LIMIT_DOCUMENT_EDITS_PER_MINUTE", "", 30],
  ["RATE_LIMIT_DOCUMENT_EDITS_PER_MINUTE", "0", 0],
  ["DOCUMENT_MAX_STORED_MB", "", 4],
  ["DOCUMENT_MAX_STORED_MB", "16", 16],
  ["DOCUMENTS_PER_THREAD", "", 50],
  ["DOCUMENTS_PER_THREAD", "2", 2],
  ["RATE_LIMIT_REMINDERS_PER_HOUR", "", 60],
  ["RATE_LIMIT_REMINDERS_PER_HOUR", "0", 0],
  ["REMINDERS_PER_THREAD", "", 20],
  ["REMINDERS_PER_THREAD", "5", 5],
  ["REMINDERS_PER_IDENTITY", "", 100],
  ["MEMORY", "", "on"],
  ["MEMORY", "off", "off"],
  ["MEMORY_PER_IDENTITY", "", 500],
  ["MEMORY_PER_IDENTITY", "3", 3],
  ["MEMORY_LEARNING", "", "on"],
  ["MEMORY_LEARNING", "off", "off"],
  ["RATE_LIMIT_MEMORY_LESSONS_PER_HOUR", "", 60],
  ["RATE_LIMIT_MEMORY_LESSONS_PER_HOUR", "0", 0],
  ["MEMORY_LESSON_TIMEOUT_SECONDS", "", 60],
  ["MEMORY_LESSON_TIMEOUT_SECONDS", "5", 5],
  ["SHARES_PER_IDENTITY", "", 200],
  ["SHARES_PER_IDENTITY", "5", 5],
  ["SHARE_MAX_KB", "", 4096],
  ["SHARE_MAX_KB", "64", 64],
  ["RATE_LIMIT_SHARES_PER_HOUR", "", 60],
  ["RATE_LIMIT_SHARES_PER_HOUR", "0", 0],
  ["RATE_LIMIT_SHARE_VIEWS_PER_MINUTE_PER_ADDRESS", "", 120],
  ["RATE_LIMIT_SHARE_VIEWS_PER_MINUTE_PER_ADDRESS", "0", 0],
  ["MAX_TOOL_ROUNDS", "", 10],
  ["MAX_TOOL_ROUNDS", "3", 3],
  ["ATTACHMENT_MAX_MB", "", 10],
  ["ATTACHMENT_MAX_MB", "25", 25],
  ["STORAGE_QUOTA_MB", "", 1000],
  ["STORAGE_QUOTA_MB", "0", 0],
  ["MODELS_WITH_IMAGES", "offline:threadline-offline", "offline:threadline-offline"],
  ["NEXT_PUBLIC_DEFAULT_HISTORY_POLICY", "lastN", "lastN"],
  ["NEXT_PUBLIC_DEFAULT_HISTORY_LENGTH", "0", 0],
  ["NEXT_PUBLIC_DEFAULT_HISTORY_LENGTH", "", undefined],
  ["COMPACTION_MAX_MESSAGES", "", 50],
  ["COMPACTION_MAX_MESSAGES", "0", 0],
  ["COMPACTION_TARGET_MESSAGES", "20", 20],
  ["COMPACTION_KEEP_TURNS", "", 10],
  ["TURN_LEASE_SECONDS", "", 30],
  ["MAX_LIVE_STREAMS_PER_IDENTITY", "", 20],
  ["MAX_LIVE_STREAMS_PER_IDENTITY", "0", 0],
  ["SAVE_RETRY_SECONDS", "5", 5],
  ["STREAM_PROGRESS_MS", "", 200],
  ["STREAM_PROGRESS_MS", "50", 50],
  ["MODEL_IDLE_TIMEOUT_SECONDS", "", 30],
  ["TURN_TIMEOUT_SECONDS", "", 600],
  ["TITLE_TIMEOUT_SECONDS", "", 5],
  ["TITLE_TIMEOUT_SECONDS", "0", 0],
  ["TOOL_APPROVAL", "", "default"],
  ["TOOL_APPROVAL", "all", "all"],
  ["TOOL_APPROVAL_TIMEOUT_HOURS", "", 24],
  ["TOOL_APPROVAL_TIMEOUT_HOURS", "1", 1],
  ["MAX_MODEL_INPUT_CHARS", "", 400_000],
  ["MAX_OUTPUT_TOKENS", "", 16_384],
  ["MAX_OUTPUT_TOKENS", "4096", 4096],
  ["BUDGET_DEFAULT", "", undefined],
  ["BUDGET_DEFAULT", "$2/day", { amount: 2, unit: "usd", period: "day" }],
  ["BUDGET_DEFAULT", "2.5 usd per week", { amount: 2.5, unit: "usd", period: "week" }],
  ["BUDGET_GUESTS", "20000 tokens/month", { amount: 20000, unit: "tokens", period: "month" }],
  ["BUDGET_TIME_ZONE", "", "UTC"],
  ["BUDGET_TIME_ZONE", "Europe/Paris", "Europe/Paris"],
  ["INNGEST_BASE_URL", "http://inngest:8288", "http://inngest:8288"],
  ["INNGEST_DEV", "1", "1"],
  ["INNGEST_DEV", "http://localhost:8288", "http://localhost:8288"],
  ["INNGEST_DEV_IS_LOCAL", "1", "1"],
  ["INNGEST_CHECKPOINTING", "", true],
  ["INNGEST_CHECKPOINTING", "0", false],
  ["INNGEST_CHECKPOINTING", "TRUE", true],
  ["INNGEST_MAX_RUNTIME_SECONDS", "", 0],
  ["INNGEST_MAX_RUNTIME_SECONDS", "50", 50],
  ["AUTH_MODE", "", "accounts"],
  ["AUTH_MODE", "open", "open"],
  ["AUTH_SIGNUP", "", "invite"],
  ["AUTH_SIGNUP", "open", "open"],
  ["AUTH_ALLOWED_EMAILS", "", undefined],
  ["AUTH_ALLOWED_EMAILS", "ana@example.org, example.com", "ana@example.org, example.com"],
  ["AUTH_GUESTS", "", false],
  ["AUTH_GUESTS", "1", true],
  ["AUTH_PROXY_HEADER", "", "X-Forwarded-Email"],
  ["AUTH_PROXY_HEADER", "Tailscale-User-Login", "Tailscale-User-Login"],
  ["AUTH_PROXY_TRUSTED", "", undefined],
  ["AUTH_PROXY_TRUSTED", "10.0.0.5, 172.18.0.0/16", "10.0.0.5, 172.18.0.0/16"],
  ["APP_URL", "", undefined],
  ["APP_URL", "https://chat.example.org", "https://chat.example.org"],
  ["AUTH_OIDC_ISSUER", "", undefined],
  ["AUTH_OIDC_CLIENT_ID", "", undefined],
  ["AUTH_OIDC_CLIENT_SECRET", "", undefined],
  ["AUTH_OIDC_LABEL", "", undefined],
  ["AUTH_OIDC_PROVIDERS", "", undefined],
  ["AUTH_OIDC_PROVIDERS", "[]", "[]"],
  ["AUTH_OIDC_GROUPS_CLAIM", "", undefined],
  ["AUTH_LOCKOUT_FAILURES", "", 10],
  ["AUTH_LOCKOUT_FAILURES", "3", 3],
  ["RATE_LIMIT_AUTH_PER_MINUTE_PER_ADDRESS", "", 30],
  ["RATE_LIMIT_AUTH_PER_MINUTE_PER_ADDRESS", "0", 0],
  ["SMTP_URL", "", undefined],
  ["MAIL_FROM", "", undefined],
  ["MAIL_FROM", "Threadline <no-reply@chat.example.org>", "Threadline <no-reply@chat.example.org>"],
  ["MAIL_FROM", "no-reply@chat.example.org", "no-reply@chat.example.org"],
  ["SMTP_TIMEOUT_SECONDS", "", 10],
  ["SMTP_TIMEOUT_SECONDS", "30", 30],
  ["RATE_LIMIT_MAILS_PER_HOUR_PER_EMAIL", "", 5],
  ["RATE_LIMIT_MAILS_PER_HOUR_PER_EMAIL", "0", 0],
];

const bad: [string, string, string][] = [
  ["DATABASE_POOL_SIZE", "0", 'DATABASE_POOL_SIZE must be a whole number from 1 to 1000, not "0".'],
  ["DATABASE_POOL_SIZE", "ten", 'DATABASE_POOL_SIZE must be a whole number from 1 to 1000, not "ten".'],
  ["ATTACHMENT_MAX_MB", "0", 'ATTACHMENT_MAX_MB must be a whole number from 1 to 1000, not "0".'],
  ["REMINDERS_PER_THREAD", "0", 'REMINDERS_PER_THREAD must be a whole number from 1 to 100000, not "0".'],
  ["MAX_TOOL_ROUNDS", "101", 'MAX_TOOL_ROUNDS must be a whole number from 1 to 100, not "101".'],
  ["MODELS_WITH_IMAGES", "openai-compatible:llava", "MODELS_WITH_IMAGES names openai-compatible:llava, which is not a model on offer (offline:threadline-offline)."],
  ["SESSION_SECRET", "short", "SESSION_SECRET must be at least 32 characters long, not a 5-character value."],
  ["MODEL_PROVIDER", "gemini", 'MODEL_PROVIDER must be one of openai, anthropic, openai-compatible, offline, not "gemini".'],
  ["MODELS", "openai:gpt-4.1-mini", "MODELS lists openai:gpt-4.1-mini, which needs OPENAI_API_KEY."],
  ["MCP_SERVERS", "/no/such/mcp.json", "MCP_SERVERS names a file that cannot be read (ENOENT): /no/such/mcp.json; give a JSON file's path, or the JSON itself."],
  ["MCP_SERVERS", '{"servers":{}}', 'MCP_SERVERS mcpServers must be an object of servers by name.'],
  ["MCP_SERVERS", '{"mcpServers":{"a b":{"url":"http://x"}}}', `MCP_SERVERS names a server "a b": a name must be 1-24 letters, digits or '-' (its tools are called <name>__<tool>).`],
  ["MCP_SERVERS", '{"mcpServers":{"fs":{"command":"npx"}}}', 'MCP_SERVERS server "fs" is started by a command: only servers reached over HTTP (Streamable HTTP or SSE) are supported; give its url.'],
  ["MCP_SERVERS", '{"mcpServers":{"docs":{"url":"ftp://x"}}}', 'MCP_SERVERS server "docs": url must be an http:// or https:// URL.'],
  ["MCP_SERVERS", '{"mcpServers":{"docs":{"url":"http://x","autoApprove":"all"}}}', 'MCP_SERVERS server "docs": autoApprove must be a list of the server\'s tool names.'],
  ["MODEL_PRICES", "[]", 'MODEL_PRICES must be an object of prices by model, as {"openai:gpt-4.1-mini": {"input": 0.4, "output": 1.6}}.'],
  ["MODEL_PRICES", '{"gpt-4.1": {"input": 1, "output": 2}}', 'MODEL_PRICES names "gpt-4.1": a model is provider:model, as openai:gpt-4.1-mini.'],
  ["MODEL_PRICES", '{"openai:o3": {"input": -1, "output": 2}}', 'MODEL_PRICES "openai:o3" input must be 0 or more.'],
  ["MODEL_PRICES", '{"openai:o3": {"input": 1}}', 'MODEL_PRICES "openai:o3" output must be a number of dollars per million tokens.'],
  ["MCP_TOOL_TIMEOUT_SECONDS", "0", 'MCP_TOOL_TIMEOUT_SECONDS must be a whole number from 1 to 3600, not "0".'],
  ["MCP_RESULT_MAX_CHARS", "10", 'MCP_RESULT_MAX_CHARS must be a whole number from 100 to 1000000, not "10".'],
  ["MCP_CONNECT_TIMEOUT_SECONDS", "121", 'MCP_CONNECT_TIMEOUT_SECONDS must be a whole number from 1 to 120, not "121".'],
  ["UTILITY_MODEL", "anthropic:claude-haiku-4-5", "UTILITY_MODEL names anthropic:claude-haiku-4-5, which needs ANTHROPIC_API_KEY."],
  ["UTILITY_MODEL", "gpt-4.1-nano", 'UTILITY_MODEL must be provider:model, as openai:gpt-4.1-nano (providers: openai, anthropic, openai-compatible, offline), not "gpt-4.1-nano".'],
  ["OPENAI_BASE_URL", "api.openai.com", 'OPENAI_BASE_URL must be an http:// or https:// URL, not "api.openai.com".'],
  ["OPENAI_COMPATIBLE_BASE_URL", "ftp://x/v1", 'OPENAI_COMPATIBLE_BASE_URL must be an http:// or https:// URL, not "ftp://x/v1".'],
  ["PORT", "70000", 'PORT must be a whole number from 0 to 65535, not "70000".'],
  ["WEB_CONCURRENCY", "0", 'WEB_CONCURRENCY must be a whole number from 1 to 256, not "0".'],
  ["TRUSTED_PROXY_HOPS", "-1", 'TRUSTED_PROXY_HOPS must be a whole number from 0 to 99, not "-1".'],
  ["WORKER_HEADER", "yes", 'WORKER_HEADER must be 1 or 0, not "yes".'],
  ["NODE_ENV", "staging", 'NODE_ENV must be development, production or test, not "staging".'],
  ["RATE_LIMIT_CHAT_PER_MINUTE", "1.5", 'RATE_LIMIT_CHAT_PER_MINUTE must be a whole number from 0 to 999999999, not "1.5".'],
  ["RATE_LIMIT_CHAT_PER_MINUTE_PER_ADDRESS", "lots", 'RATE_LIMIT_CHAT_PER_MINUTE_PER_ADDRESS must be a whole number from 0 to 999999999, not "lots".'],
  ["RATE_LIMIT_NEW_IDENTITIES_PER_HOUR", "1e3", 'RATE_LIMIT_NEW_IDENTITIES_PER_HOUR must be a whole number from 0 to 999999999, not "1e3".'],
  ["NEXT_PUBLIC_DEFAULT_HISTORY_POLICY", "most", 'NEXT_PUBLIC_DEFAULT_HISTORY_POLICY must be "all", "none" or "lastN", not "most".'],
  ["NEXT_PUBLIC_DEFAULT_HISTORY_LENGTH", "-1", 'NEXT_PUBLIC_DEFAULT_HISTORY_LENGTH must be a whole number, 0 or more, not "-1".'],
  ["COMPACTION_MAX_MESSAGES", "many", 'COMPACTION_MAX_MESSAGES must be a whole number from 0 to 999999, not "many".'],
  ["COMPACTION_TARGET_MESSAGES", "abc", 'COMPACTION_TARGET_MESSAGES must be a whole number from 2 to 999999, not "abc".'],
  ["COMPACTION_TARGET_MESSAGES", "1", 'COMPACTION_TARGET_MESSAGES must be a whole number from 2 to 999999, not "1".'],
  ["COMPACTION_TARGET_MESSAGES", "50", "COMPACTION_TARGET_MESSAGES must be at least 2 and less than COMPACTION_MAX_MESSAGES (50), not 50."],
  ["COMPACTION_KEEP_TURNS", "0", 'COMPACTION_KEEP_TURNS must be a whole number from 1 to 999999, not "0".'],
  ["TURN_LEASE_SECONDS", "0", 'TURN_LEASE_SECONDS must be a whole number from 1 to 999999, not "0".'],
  ["STREAM_PROGRESS_MS", "5", 'STREAM_PROGRESS_MS must be a whole number from 10 to 60000, not "5".'],
  ["SAVE_RETRY_SECONDS", "30s", 'SAVE_RETRY_SECONDS must be a whole number from 1 to 999999, not "30s".'],
  ["MODEL_IDLE_TIMEOUT_SECONDS", "1000000", 'MODEL_IDLE_TIMEOUT_SECONDS must be a whole number from 1 to 999999, not "1000000".'],
  ["TURN_TIMEOUT_SECONDS", "-5", 'TURN_TIMEOUT_SECONDS must be a whole number from 1 to 999999, not "-5".'],
  ["TITLE_TIMEOUT_SECONDS", "601", 'TITLE_TIMEOUT_SECONDS must be a whole number from 0 to 600, not "601".'],
  ["TOOL_APPROVAL", "some", 'TOOL_APPROVAL must be "default", "all" or "none", not "some".'],
  ["TOOL_APPROVAL_TIMEOUT_HOURS", "0", 'TOOL_APPROVAL_TIMEOUT_HOURS must be a whole number from 1 to 8760, not "0".'],
  ["MAX_MODEL_INPUT_CHARS", "0", 'MAX_MODEL_INPUT_CHARS must be a whole number from 1 to 999999999, not "0".'],
  ["MAX_OUTPUT_TOKENS", "8", 'MAX_OUTPUT_TOKENS must be a whole number from 16 to 1000000, not "8".'],
  ["BUDGET_DEFAULT", "2 dollars", 'BUDGET_DEFAULT must be an amount a period, as "$2/day", "2 usd/day" or "20000 tokens/month", not "2 dollars".'],
  ["BUDGET_GUESTS", "1.5 tokens/day", 'BUDGET_GUESTS must be an amount a period, as "$2/day", "2 usd/day" or "20000 tokens/month", not "1.5 tokens/day".'],
  ["BUDGET_TIME_ZONE", "Mars/Olympus", 'BUDGET_TIME_ZONE must be a time zone, as UTC or Europe/Paris, not "Mars/Olympus".'],
  ["INNGEST_BASE_URL", "inngest:8288", 'INNGEST_BASE_URL must be an http:// or https:// URL, not "inngest:8288".'],
  ["INNGEST_DEV", "yes", 'INNGEST_DEV must be 1, 0 or a dev server\'s http:// URL, not "yes".'],
  ["INNGEST_CHECKPOINTING", "off", 'INNGEST_CHECKPOINTING must be 1 or 0, not "off".'],
  ["INNGEST_MAX_RUNTIME_SECONDS", "10s", 'INNGEST_MAX_RUNTIME_SECONDS must be a whole number from 0 to 999999, not "10s".'],
  ["AUTH_MODE", "ldap", 'AUTH_MODE must be "accounts", "proxy" or "open", not "ldap".'],
  ["AUTH_SIGNUP", "closed", 'AUTH_SIGNUP must be "invite", "allowlist" or "open", not "closed".'],
  ["AUTH_ALLOWED_EMAILS", "ana@, bob", 'AUTH_ALLOWED_EMAILS must list emails or domains separated by commas; "ana@" is neither.'],
  ["AUTH_GUESTS", "maybe", 'AUTH_GUESTS must be 1 or 0, not "maybe".'],
  ["AUTH_PROXY_HEADER", "X Email", 'AUTH_PROXY_HEADER must be a header name, not "X Email".'],
  ["AUTH_PROXY_TRUSTED", "10.0.0.0/33", 'AUTH_PROXY_TRUSTED must list addresses or CIDR networks separated by commas; "10.0.0.0/33" is neither.'],
  ["AUTH_PROXY_TRUSTED", "proxy.local", 'AUTH_PROXY_TRUSTED must list addresses or CIDR networks separated by commas; "proxy.local" is neither.'],
  ["APP_URL", "chat.example.org", 'APP_URL must be an http:// or https:// URL, not "chat.example.org".'],
  ["AUTH_OIDC_ISSUER", "keycloak.example.org", 'AUTH_OIDC_ISSUER must be an http:// or https:// URL, not "keycloak.example.org".'],
  [
    "AUTH_OIDC_ISSUER",
    "https://keycloak.example.org/realms/team",
    "Sign-in through an OIDC provider needs AUTH_OIDC_ISSUER, AUTH_OIDC_CLIENT_ID and AUTH_OIDC_CLIENT_SECRET together; AUTH_OIDC_CLIENT_ID and AUTH_OIDC_CLIENT_SECRET are missing.",
  ],
  [
    "AUTH_OIDC_CLIENT_ID",
    "threadline",
    "Sign-in through an OIDC provider needs AUTH_OIDC_ISSUER, AUTH_OIDC_CLIENT_ID and AUTH_OIDC_CLIENT_SECRET together; AUTH_OIDC_ISSUER and AUTH_OIDC_CLIENT_SECRET are missing.",
  ],
  ["AUTH_OIDC_CLIENT_SECRET", "s".repeat(2001), "AUTH_OIDC_CLIENT_SECRET must be at most 2000 characters, not a 2001-character value."],
  ["AUTH_OIDC_LABEL", "Team", "Sign-in through an OIDC provider needs AUTH_OIDC_ISSUER, AUTH_OIDC_CLIENT_ID and AUTH_OIDC_CLIENT_SECRET together; AUTH_OIDC_ISSUER, AUTH_OIDC_CLIENT_ID and AUTH_OIDC_CLIENT_SECRET are missing."],
  ["AUTH_OIDC_LABEL", "L".repeat(61), `AUTH_OIDC_LABEL must be at most 60 characters, not "${"L".repeat(61)}".`],
  ["AUTH_OIDC_PROVIDERS", "{not json", 'AUTH_OIDC_PROVIDERS must be JSON: a list of {"id","label","issuer","clientId","clientSecret"}.'],
  [
    "AUTH_OIDC_PROVIDERS",
    '[{"id":"Team IdP","issuer":"https://id.example.org","clientId":"a","clientSecret":"b"}]',
    'AUTH_OIDC_PROVIDERS must be a list of {"id","label","issuer","clientId","clientSecret"} (at 0.id): must be 1 to 40 lowercase letters, digits or dashes.',
  ],
  [
    "AUTH_OIDC_PROVIDERS",
    '[{"id":"team","issuer":"https://id.example.org","clientId":"a"}]',
    'AUTH_OIDC_PROVIDERS must be a list of {"id","label","issuer","clientId","clientSecret"} (at 0.clientSecret): Invalid input: expected string, received undefined.',
  ],
  ["AUTH_OIDC_GROUPS_CLAIM", "my groups", 'AUTH_OIDC_GROUPS_CLAIM must be a claim name (1 to 100 characters, no spaces), not "my groups".'],
  ["AUTH_OIDC_GROUPS_CLAIM", "groups", "AUTH_OIDC_GROUPS_CLAIM needs an OIDC provider (AUTH_OIDC_ISSUER or AUTH_OIDC_PROVIDERS): the claim is read at each sign-in through one."],
  ["AUTH_LOCKOUT_FAILURES", "0", 'AUTH_LOCKOUT_FAILURES must be a whole number from 1 to 1000, not "0".'],
  ["RATE_LIMIT_AUTH_PER_MINUTE_PER_ADDRESS", "many", 'RATE_LIMIT_AUTH_PER_MINUTE_PER_ADDRESS must be a whole number from 0 to 999999999, not "many".'],
  ["SMTP_URL", "mail.example.org", "SMTP_URL must be a mail server's URL, smtp://user:password@mail.example.org:587 or smtps://user:password@mail.example.org:465 (its value is not shown: it may hold a password)."],
  ["SMTP_URL", "https://ana:hunter2@mail.example.org", "SMTP_URL must be a mail server's URL, smtp://user:password@mail.example.org:587 or smtps://user:password@mail.example.org:465 (its value is not shown: it may hold a password)."],
  ["SMTP_URL", "smtp://ana@mail.example.org", "SMTP_URL names a user but no password: smtp://user:password@mail.example.org:587 or smtps://user:password@mail.example.org:465."],
  ["SMTP_URL", "smtp://ana:hunter2%zz@mail.example.org", "SMTP_URL's user or password has a % that is not followed by two hex digits: write a % in either as %25."],
  ["SMTP_URL", "smtp://ana:hunter2@mail.example.org", "SMTP_URL needs APP_URL: the links in its mails must name the address people reach the server at."],
  ["MAIL_FROM", "nobody", 'MAIL_FROM must be an address, ana@example.org or Name <ana@example.org>, not "nobody".'],
  ["SMTP_TIMEOUT_SECONDS", "0", 'SMTP_TIMEOUT_SECONDS must be a whole number from 1 to 600, not "0".'],
  ["RATE_LIMIT_MAILS_PER_HOUR_PER_EMAIL", "lots", 'RATE_LIMIT_MAILS_PER_HOUR_PER_EMAIL must be a whole number from 0 to 999999, not "lots".'],
  // A password written into a URL is starred out of the line that quotes the value.
  ["APP_URL", "ftp://ana:hunter2@chat.example.org", 'APP_URL must be an http:// or https:// URL, not "ftp://ana:***@chat.example.org".'],
];

describe("the configuration", () => {
  it.each(good)("reads %s=%j as %j", (name, value, expected) => {
    expect(parseEnv({ [name]: value })[name as keyof ReturnType<typeof parseEnv>]).toEqual(expected);
  });

  it.each(bad)("refuses %s=%j in one line that names it", (name, value, message) => {
    expect(() => parseEnv({ [name]: value })).toThrow(message);
    try {
      parseEnv({ [name]: value });
    } catch (error) {
      expect((error as Error).message).toBe(message);
    }
  });

  it("checks the rules between variables", () => {
    expect(parseEnv({}).compaction).toEqual({ maxMessages: 50, targetMessages: 30, keepTurns: 10 });
    expect(parseEnv({ COMPACTION_MAX_MESSAGES: "12" }).compaction).toEqual({ maxMessages: 12, targetMessages: 11, keepTurns: 10 });
    expect(parseEnv({ COMPACTION_MAX_MESSAGES: "0", COMPACTION_TARGET_MESSAGES: "99" }).compaction).toBeUndefined();
    expect(() => parseEnv({ MODEL_PROVIDER: "openai-compatible" })).toThrow("MODEL_PROVIDER=openai-compatible needs OPENAI_COMPATIBLE_BASE_URL.");
    expect(() => parseEnv({ AUTH_MODE: "proxy" })).toThrow("AUTH_MODE=proxy needs AUTH_PROXY_TRUSTED: the proxy's addresses, the only ones whose header is believed.");
    expect(parseEnv({ AUTH_MODE: "proxy", AUTH_PROXY_TRUSTED: "::1, 10.0.0.0/8" }).proxyTrusted).toEqual(["::1", "10.0.0.0/8"]);
    expect(() => parseEnv({ AUTH_SIGNUP: "allowlist" })).toThrow("AUTH_SIGNUP=allowlist needs AUTH_ALLOWED_EMAILS: the emails or domains that may sign up.");
    expect(parseEnv({ AUTH_SIGNUP: "allowlist", AUTH_ALLOWED_EMAILS: "Ana@Example.org,@team.example" }).allowedEmails).toEqual(["ana@example.org", "@team.example"]);
    expect(parseEnv({ SMTP_URL: "smtps://ana%40example.org:p%25ss@mail.example.org", APP_URL: "https://chat.example.org/" }).mail).toEqual({
      smtp: { host: "mail.example.org", port: 465, secure: true, auth: { user: "ana@example.org", pass: "p%ss" } },
      from: "Threadline <no-reply@chat.example.org>",
      timeoutMs: 10_000,
    });
    expect(parseEnv({ SMTP_URL: "smtp://relay:2525", APP_URL: "http://10.0.0.5:3000", MAIL_FROM: "chat@example.org", SMTP_TIMEOUT_SECONDS: "3" }).mail).toEqual({
      smtp: { host: "relay", port: 2525, secure: false, auth: undefined },
      from: "chat@example.org",
      timeoutMs: 3000,
    });
    expect(parseEnv({}).mail).toBeUndefined();
    expect(() => parseEnv({ AUTH_MODE: "open", AUTH_GUESTS: "1" })).toThrow("AUTH_GUESTS=true needs AUTH_MODE=accounts: in open mode nobody signs in, so nobody is a guest.");
    const oidc = { AUTH_OIDC_ISSUER: "https://id.example.org/realms/team", AUTH_OIDC_CLIENT_ID: "threadline", AUTH_OIDC_CLIENT_SECRET: "s3cret", APP_URL: "https://chat.example.org" };
    const entry = (id: string) => ({ id, issuer: `https://${id}.example.org`, clientId: "c", clientSecret: "s" });
    expect(parseEnv({}).oidcProviders).toEqual([]);
    expect(parseEnv({ ...oidc, AUTH_OIDC_GROUPS_CLAIM: "https://example.org/claims/groups" }).AUTH_OIDC_GROUPS_CLAIM).toBe("https://example.org/claims/groups");
    expect(parseEnv(oidc).oidcProviders).toEqual([{ id: "oidc", label: "id.example.org", issuer: "https://id.example.org/realms/team", clientId: "threadline", clientSecret: "s3cret" }]);
    expect(parseEnv({ ...oidc, AUTH_OIDC_LABEL: "Team", AUTH_OIDC_PROVIDERS: JSON.stringify([{ ...entry("google"), label: "Google" }, entry("entra")]) }).oidcProviders).toEqual([
      { id: "oidc", label: "Team", issuer: "https://id.example.org/realms/team", clientId: "threadline", clientSecret: "s3cret" },
      { id: "google", label: "Google", issuer: "https://google.example.org", clientId: "c", clientSecret: "s" },
      { id: "entra", label: "entra.example.org", issuer: "https://entra.example.org", clientId: "c", clientSecret: "s" },
    ]);
    expect(() => parseEnv({ ...oidc, APP_URL: "" })).toThrow(
      "Sign-in through an OIDC provider needs APP_URL: the callback address (APP_URL/api/auth/callback/<id>) the provider sends people back to.",
    );
    expect(() => parseEnv({ APP_URL: oidc.APP_URL, AUTH_OIDC_PROVIDERS: JSON.stringify([entry("team")]), AUTH_MODE: "proxy", AUTH_PROXY_TRUSTED: "10.0.0.1" })).toThrow(
      "Sign-in through an OIDC provider needs AUTH_MODE=accounts: in proxy mode nobody signs in here.",
    );
    expect(() => parseEnv({ ...oidc, AUTH_OIDC_PROVIDERS: JSON.stringify([entry("oidc")]) })).toThrow(
      'AUTH_OIDC_PROVIDERS lists the id "oidc" twice (AUTH_OIDC_ISSUER\'s provider is "oidc"): each provider needs an id of its own.',
    );
    expect(() => parseEnv({ ...oidc, AUTH_OIDC_ISSUER: "https://id.example.org/?realm=team" })).toThrow(
      'AUTH_OIDC_ISSUER must be an issuer URL without a query or fragment, not "https://id.example.org/?realm=team".',
    );
    expect(() => parseEnv({ APP_URL: oidc.APP_URL, AUTH_OIDC_PROVIDERS: JSON.stringify(Array.from({ length: 21 }, (_, i) => entry(`p${i}`))) })).toThrow(
      'AUTH_OIDC_PROVIDERS must be a list of {"id","label","issuer","clientId","clientSecret"}: lists at most 20 providers.',
    );
    // A wrong entry's secret never reaches the log.
    expect(() => parseEnv({ APP_URL: oidc.APP_URL, AUTH_OIDC_PROVIDERS: JSON.stringify([{ ...entry("team"), clientSecret: "hunter2", extra: 1 }]) })).toThrow(/^(?!.*hunter2).*Unrecognized key/);
    expect(() => parseEnv({ MODELS: "offline:threadline-offline", MODEL: "gpt-4.1" })).toThrow("set it or MODEL_PROVIDER and MODEL, not both.");
    // JSON.parse's own words differ between Node versions: the line names the variable and says what it is not.
    expect(() => parseEnv({ MCP_SERVERS: "{not json" })).toThrow(/^MCP_SERVERS is not JSON: .+\.$/);
  });

  it("reads MCP_SERVERS from the JSON file it names, as from the JSON itself", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "mcp-config-"));
    const file = path.join(dir, "mcp.json");
    const config = { mcpServers: { docs: { url: "https://example.com/mcp", headers: { Authorization: "Bearer x" }, autoApprove: ["search"] }, old: { url: "http://127.0.0.1:9/sse", type: "sse" } } };
    writeFileSync(file, JSON.stringify(config));
    const expected = [
      { name: "docs", url: "https://example.com/mcp", headers: { Authorization: "Bearer x" }, autoApprove: ["search"], transport: "http" },
      { name: "old", url: "http://127.0.0.1:9/sse", headers: {}, autoApprove: [], transport: "sse" },
    ];
    expect(parseEnv({ MCP_SERVERS: file }).mcpServers).toEqual(expected);
    expect(parseEnv({ MCP_SERVERS: JSON.stringify(config) }).mcpServers).toEqual(expected);
    writeFileSync(file, '{"mcpServers": {"docs": {}}}');
    expect(() => parseEnv({ MCP_SERVERS: file })).toThrow(`MCP_SERVERS (${file}) server "docs": url must be an http:// or https:// URL.`);
    rmSync(dir, { recursive: true });
  });

  it("has a test here for every variable it reads (docs/configuration.md lists them: tests/unit/docs.test.ts)", () => {
    const tested = new Set([...good, ...bad].map(([name]) => name));
    const untested = ENV_NAMES.filter((name) => !tested.has(name) && !/_KEY$|^NODE_ENV$/.test(name));
    expect(untested).toEqual([]);
  });
});

describe("reading the environment", () => {
  // Plain-Node modules the start scripts import: they cannot import TypeScript, so they read process.env themselves.
  const allowed = new Set(["lib/env.ts", "lib/inngest/env.mjs"]);
  // instrumentation.ts reads NEXT_RUNTIME, Next's marker of the runtime compiling it, and nothing else.
  const markerOnly = (file: string, text: string) => file === "instrumentation.ts" && text.match(/process\.env\.\w+/g)?.every((m) => m === "process.env.NEXT_RUNTIME");

  function sources(dir: string): string[] {
    return readdirSync(path.join(root, dir)).flatMap((entry) => {
      const relative = path.posix.join(dir, entry);
      if (statSync(path.join(root, relative)).isDirectory()) return sources(relative);
      return /\.(ts|tsx|mts|mjs|js|jsx)$/.test(entry) ? [relative] : [];
    });
  }

  it("happens in lib/env.ts only, in the app's code", () => {
    const files = [...["lib", "app", "components", "inngest"].flatMap(sources), "proxy.ts", "instrumentation.ts"];
    expect(files.length).toBeGreaterThan(50);
    const readers = files.filter((file) => {
      const text = readFileSync(path.join(root, file), "utf8");
      return !allowed.has(file) && text.includes("process.env") && !markerOnly(file, text);
    });
    expect(readers).toEqual([]);
    expect(readFileSync(path.join(root, "lib/env.ts"), "utf8")).toContain("process.env");
  });
});
