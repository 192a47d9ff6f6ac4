// GET /api/models: the models the operator offers (MODELS), the default first.

export interface ModelOption {
  /** `provider:model`: what a request names it by. */
  id: string;
  label: string;
  provider: "openai" | "anthropic" | "openai-compatible" | "offline";
  default: boolean;
  /** What the model can take: tool calls, images in the user's message, reasoning it shows. */
  capabilities: { tools: boolean; images: boolean; reasoning: boolean };
}

export interface ModelsResponse {
  models: ModelOption[];
}
