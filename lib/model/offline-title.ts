// The offline demo model's title of a thread: what the first message is
// about, as a person would name the conversation, in sentence case and at
// most six words. What the demo's tools were asked for names it ("Time in
// Tokyo and a percentage"); otherwise the topic of the first sentence, its
// asking words and what follows a "because" left out ("Flamingos",
// "Best time to visit Porto"). Deterministic, so tests and a keyless install
// see the same title for the same message; "" when the message says nothing
// (the thread then keeps its first words).
import { calculationPhrase } from "./offline-arithmetic";
import { titleRequestMessage } from "./title-request";

const MAX_WORDS = 6;

/** What opens a sentence without saying what it is about. */
const OPENERS = new RegExp(
  "^(?:" +
    [
      String.raw`(?:note|reminder|question|fyi|ps)(?:\s+(?:for|to)\s+(?:later|me|myself))?\s*[:,-]`,
      String.raw`(?:hi|hello|hey)(?:\s+there)?\b[,!]?`,
      // What the person asks the memory to keep or drop says nothing of the topic: "Remember that I like green tea".
      String.raw`(?:please\s+)?(?:remember|don'?t\s+forget|forget)(?:\s+that)?\b`,
      String.raw`(?:ok|okay|so|well|please|thanks|thank you)\b,?`,
      String.raw`(?:can|could|would|will)\s+you(?:\s+please)?(?:\s+(?:tell|help|show|explain|give)\s+me(?:\s+(?:about|with|how\s+to))?)?`,
      String.raw`(?:please\s+)?(?:tell|teach|show|explain|give)\s+(?:me\s+)?(?:about|how\s+to|how)?`,
      String.raw`(?:help\s+me(?:\s+(?:with|to))?)`,
      String.raw`(?:i\s+(?:really\s+|just\s+)?(?:love|like|adore|hate|want(?:\s+to\s+(?:know|learn)(?:\s+about)?)?|need(?:\s+help\s+with)?|wonder(?:\s+about)?|am\s+(?:thinking|curious)\s+about|think\s+about|have\s+a\s+question\s+about))`,
      String.raw`(?:let'?s|lets)\s+(?:talk|chat)\s+about`,
      String.raw`(?:what|who|which)(?:'s|\s+is|\s+are|\s+was|\s+were)`,
      String.raw`how\s+(?:do|does|can|should|would)\s+(?:i|you|we|one)`,
      String.raw`how\s+to`,
      String.raw`(?:why|when|where)\s+(?:is|are|do|does|did|was|were)`,
      String.raw`(?:the|a|an|some|my|our)\b`,
    ].join("|") +
    String.raw`)\s*`,
  "i",
);

/** Where a topic ends: the reason, the condition or the next clause that follows it. */
const TOPIC_END = /\s*(?:,|;|:|\s-\s|\b(?:because|since|so that|so|but|when|while|if|which|that|who|and then|as they|as it)\b).*$/i;

/** Words that do not end a title. */
const DANGLING = new Set("a an and are at for from in is of on or the to with by my your our their it".split(" "));

const sentenceCase = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** What the demo's tools were asked for, as topics: the time somewhere, a calculation, a search of other chats. */
function toolTopics(message: string): string[] {
  const topics: string[] = [];
  const place = /\b(?:time|date|day|clock)\b[^?!.;]*?\bin ((?:[A-Z][\w'’.-]*)(?:[ /_](?:[A-Z][\w'’.-]*))*)/.exec(message)?.[1];
  if (place) topics.push(`time in ${place}`);
  else if (/\bwhat(?:'s| is) the (?:time|date)\b|\bwhat time is it\b/i.test(message)) topics.push("the time");
  const sum = calculationPhrase(message);
  if (sum) {
    if (/%|\bper ?cent\b/i.test(sum)) topics.push("a percentage");
    else if (/\b(?:to|in|into)\s+[a-z°]/i.test(sum) || /^convert\b/i.test(message)) topics.push("a unit conversion");
    else topics.push("a calculation");
  }
  const search = /\b(?:about|regarding) ([\w'’ -]+?) in (?:my|an?|the)? ?(?:other|another|previous|earlier|last|older)? ?(?:chat|thread|conversation)s?\b/i.exec(message)?.[1];
  if (search) topics.push(`${search.trim()} in other chats`);
  return topics;
}

/** The topic of a sentence: what is left once the words that open it and what follows it are gone. */
function topicOf(sentence: string): string {
  let text = sentence.replace(/\s+/g, " ").trim();
  for (let before = ""; before !== text; ) {
    before = text;
    text = text.replace(OPENERS, "");
  }
  text = text.replace(TOPIC_END, "").replace(/[^\p{L}\p{N}'’ -]+/gu, " ").replace(/\s+/g, " ").trim();
  const words = text.split(" ").filter(Boolean).slice(0, MAX_WORDS);
  while (words.length > 0 && DANGLING.has(words.at(-1)!.toLowerCase())) words.pop();
  return words.join(" ");
}

export function offlineTitle(requestText: string): string {
  const message = titleRequestMessage(requestText).trim();
  const topics = toolTopics(message);
  if (topics.length > 0) return sentenceCase(topics.join(" and "));
  for (const sentence of message.split(/(?<=[.?!])\s+|\n+/)) {
    const topic = topicOf(sentence);
    if (topic) return sentenceCase(topic);
  }
  return "";
}
