import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { startMockModelServer, type MockModelServer } from "../../scripts/mock-model-server.mjs";
import { chatTurn, visitor } from "../support/api";
import { testApp } from "../support/test-app";
import * as models from "@/app/api/models/route";
import * as chat from "@/app/api/chat/route";
import type { App } from "@/lib/app";
import type { ModelsResponse } from "@/lib/protocol/models";

// GET /api/models lists the models the operator offers, the default first,
// and the default is the model that answers: MODELS's first, talked to over
// HTTP by the real provider code.
let app: App | undefined;
let mock: MockModelServer | undefined;
afterEach(async () => {
  await app?.close();
  await mock?.close();
  app = mock = undefined;
});

const listed = async () => {
  const response = await models.GET(new Request("http://localhost/api/models"), {});
  expect(response.status).toBe(200);
  return ((await response.json()) as ModelsResponse).models;
};

describe("GET /api/models", () => {
  it("offers the offline model when no key is set", async () => {
    app = testApp();
    expect(await listed()).toEqual([
      { id: "offline:threadline-offline", label: "Offline demo model", provider: "offline", default: true, capabilities: { tools: true, images: false, reasoning: true } },
    ]);
  });

  it("offers MODELS in order, and its first answers", async () => {
    mock = await startMockModelServer();
    app = testApp({
      settings: { MODEL_PROVIDER: "", MODEL: "", OPENAI_COMPATIBLE_BASE_URL: mock.url, MODELS: "openai-compatible:mock-model:7b=Mock (local), offline:threadline-offline" },
    });
    expect((await listed()).map((m) => [m.id, m.label, m.default])).toEqual([
      ["openai-compatible:mock-model:7b", "Mock (local)", true],
      ["offline:threadline-offline", "Offline demo model", false],
    ]);

    const me = await visitor();
    const turn = await chatTurn(chat, { message: { id: randomUUID(), content: "hello" } }, me.cookie);
    expect(turn.response.status).toBe(200);
    expect(mock.requests.map((r) => (r as { model: string }).model)).toContain("mock-model:7b");
  });
});
