import { describe, expect, it } from "vitest";
import { createNetwork, type Router } from "@/lib/agent/network";
import { runTurn } from "@/lib/agent/turn";
import { RecordingHistory } from "../support/fake-history";
import { scriptedModel } from "../support/scripted-model";

const message = { id: "m", role: "user" as const, content: "Plan a trip" };

describe("the agent network", () => {
  it("lets the router chain agents, each seeing what the earlier ones wrote, and stores every result", async () => {
    const planner = scriptedModel(["Plan: ", "fly"]);
    const writer = scriptedModel(["Booked."]);
    const router: Router = ({ iteration, agents }) => agents[iteration];
    const history = new RecordingHistory();
    const outcome = await runTurn(
      { owner: "o", turnId: "t", message },
      {
        history,
        network: createNetwork({
          model: planner.model,
          router,
          agents: [
            { name: "planner", system: "Plan." },
            { name: "writer", system: "Write.", model: writer.model },
          ],
        }),
        publish: () => {},
      },
    );
    expect(outcome.results.map((r) => [r.agentName, r.content])).toEqual([
      ["planner", "Plan: fly"],
      ["writer", "Booked."],
    ]);
    expect(JSON.stringify(writer.prompts[0])).toContain("Plan: fly");
    expect(history.calls.filter((c) => c.hook === "appendResults")[0].args.results).toHaveLength(2);
  });

  it("never runs more than maxIter agents, whatever the router says", async () => {
    const { model, prompts } = scriptedModel(["again"]);
    const outcome = await runTurn(
      { owner: "o", turnId: "t", message },
      {
        history: new RecordingHistory(),
        network: createNetwork({ model, maxIter: 3, router: ({ agents }) => agents[0], agents: [{ name: "loop", system: "" }] }),
        publish: () => {},
      },
    );
    expect(prompts).toHaveLength(3);
    expect(outcome.results).toHaveLength(3);
  });
});
