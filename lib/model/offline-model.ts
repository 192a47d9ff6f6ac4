import type { LanguageModelV3, LanguageModelV3Prompt, LanguageModelV3StreamPart } from "@ai-sdk/provider";

// A model that needs no key and no network, so that a fresh install works end
// to end. It streams word by word with a small delay, the way a real model
// does, so streaming, Stop and persistence behave as they will in production.

const WORD_DELAY_MS = 35;

function lastUserText(prompt: LanguageModelV3Prompt): string {
  for (let i = prompt.length - 1; i >= 0; i--) {
    const message = prompt[i];
    if (message.role === "user") {
      return message.content.map((part) => (part.type === "text" ? part.text : "")).join("");
    }
  }
  return "";
}

export function offlineReply(prompt: LanguageModelV3Prompt): string {
  const turns = prompt.filter((m) => m.role === "user").length;
  const text = lastUserText(prompt).trim();
  const quoted = text.length > 200 ? `${text.slice(0, 200)}…` : text;
  return [
    `This is Threadline's **offline demo model**: no API key is configured, so no real model is answering.`,
    ``,
    `You wrote: "${quoted}"`,
    ``,
    `This thread holds ${turns} message${turns === 1 ? "" : "s"} from you so far, so history is reaching the model.`,
    `Set \`OPENAI_API_KEY\`, \`ANTHROPIC_API_KEY\` or \`OPENAI_COMPATIBLE_BASE_URL\` to talk to a real one.`,
  ].join("\n");
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });
}

export function createOfflineModel(modelId = "threadline-offline"): LanguageModelV3 {
  return {
    specificationVersion: "v3",
    provider: "threadline-offline",
    modelId,
    supportedUrls: {},
    async doGenerate(options) {
      const text = offlineReply(options.prompt);
      return {
        content: [{ type: "text", text }],
        finishReason: { unified: "stop", raw: "stop" },
        usage: {
          inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: undefined, text: undefined, reasoning: undefined },
        },
        warnings: [],
      };
    },
    async doStream(options) {
      const words = offlineReply(options.prompt).split(/(?<=\s)/);
      const signal = options.abortSignal;
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        async start(controller) {
          controller.enqueue({ type: "stream-start", warnings: [] });
          controller.enqueue({ type: "text-start", id: "offline-text" });
          try {
            for (const word of words) {
              await sleep(WORD_DELAY_MS, signal);
              controller.enqueue({ type: "text-delta", id: "offline-text", delta: word });
            }
          } catch (error) {
            controller.error(error);
            return;
          }
          controller.enqueue({ type: "text-end", id: "offline-text" });
          controller.enqueue({
            type: "finish",
            finishReason: { unified: "stop", raw: "stop" },
            usage: {
              inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
              outputTokens: { total: words.length, text: words.length, reasoning: undefined },
            },
          });
          controller.close();
        },
      });
      return { stream };
    },
  };
}
