/**
 * The tool through which an agent hands the conversation to another; the
 * router, not a step, carries it out. Kept with the models: the offline model
 * calls it too, and lib/model imports nothing from lib/agent.
 */
export const HANDOFF_TOOL = "hand_over";

/**
 * The tool through which an agent calls another as a sub-agent: it sends a
 * task, the sub-agent runs with its own tools and returns its answer as the
 * call's result, and the caller goes on (lib/agent/network/run-network.ts).
 */
export const CALL_AGENT_TOOL = "call_agent";
