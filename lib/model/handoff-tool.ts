/**
 * The tool through which an agent hands the conversation to another; the
 * router, not a step, carries it out. Kept with the models: the offline model
 * calls it too, and lib/model imports nothing from lib/agent.
 */
export const HANDOFF_TOOL = "hand_over";
