import cityTimezones from "city-timezones";
import { z } from "zod";
import { defineTool } from "./types";

const ZONES = new Map(Intl.supportedValuesOf("timeZone").map((zone) => [zone.toLowerCase(), zone]));
ZONES.set("utc", "UTC");

/** An IANA zone ("Asia/Tokyo", any case), or a city: the IANA zones' own cities first, then the most populous match in city-timezones' list. */
export function resolveTimeZone(place: string): { timeZone: string; place: string } | undefined {
  const wanted = place.trim().replace(/\s+/g, " ");
  const exact = ZONES.get(wanted.toLowerCase());
  if (exact) return { timeZone: exact, place: exact };
  const asZoneCity = wanted.toLowerCase().replace(/ /g, "_");
  for (const [lower, zone] of ZONES) {
    if (lower.endsWith(`/${asZoneCity}`)) return { timeZone: zone, place: wanted };
  }
  const cities = cityTimezones.lookupViaCity(wanted).filter((city) => ZONES.has(city.timezone.toLowerCase()));
  if (cities.length === 0) return undefined;
  const biggest = cities.reduce((a, b) => (b.pop > a.pop ? b : a));
  return { timeZone: biggest.timezone, place: `${biggest.city}, ${biggest.country}` };
}

function utcOffset(date: Date, timeZone: string): string {
  const name = new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "longOffset" })
    .formatToParts(date)
    .find((part) => part.type === "timeZoneName")?.value;
  return name === "GMT" || !name ? "+00:00" : name.replace("GMT", "");
}

export function timeIn(timeZone: string, now: Date) {
  const local = new Intl.DateTimeFormat("en-GB", {
    timeZone,
    weekday: "long",
    day: "numeric",
    month: "long",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).format(now);
  return { timeZone, local, utcOffset: utcOffset(now, timeZone), iso: now.toISOString() };
}

export const currentTime = (clock: () => Date = () => new Date()) =>
  defineTool({
    name: "current_time",
    description:
      "The current date and time in a place. Give an IANA time zone (\"Asia/Tokyo\") or a city name (\"Tokyo\"); \"UTC\" for UTC.",
    input: z.object({
      timeZone: z.string().min(1).max(100).describe("An IANA time zone or a city, e.g. \"Europe/Paris\" or \"Tokyo\""),
    }),
    async execute({ timeZone }) {
      const resolved = resolveTimeZone(timeZone);
      if (!resolved) throw new Error(`"${timeZone}" is neither an IANA time zone nor a city I know. Try a zone such as "Asia/Tokyo".`);
      return { place: resolved.place, ...timeIn(resolved.timeZone, clock()) };
    },
  });
